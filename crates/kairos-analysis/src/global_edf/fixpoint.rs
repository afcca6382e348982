//! Least fixed points of response-time recurrences `x = base + floor(S(x) / m)`, fast.
//!
//! The plain iteration `x <- base + floor(S(x) / m)` from `x = base` reaches the least fixed
//! point, but with a term capped at `x - C_k + 1` (or a workload in its carry-in ramp) `S` can
//! grow exactly as fast as `m x`, and then the iteration creeps up one nanosecond per step:
//! 10^8 steps for a 100 ms deadline. SchedCAT works in microseconds and creeps 1000 times less.
//!
//! [`least_fixed_point`] gives the same answer (the least fixed point `>= start`) with far fewer
//! steps: each term reports, besides its value at `x`, its slope and how far it stays linear
//! (a [`Piece`]); on the stretch where the whole sum is linear the first point with
//! `base + floor(S(x) / m) <= x` is solved for in closed form. The slow obvious twin, the plain
//! iteration, is kept in the tests and compared on random recurrences.

/// `value + slope * t` for `t` in `[0, len]` (inclusive): a function of `x` from the current
/// point on. Values and slopes are signed so differences of workloads fit too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub value: i128,
    pub slope: i128,
    pub len: u64,
}

impl Piece {
    pub(crate) const fn constant(value: i128) -> Piece {
        Piece {
            value,
            slope: 0,
            len: u64::MAX,
        }
    }

    /// `x + offset` as a function of `x` (slope 1, linear forever).
    pub(crate) const fn ramp(value: i128) -> Piece {
        Piece {
            value,
            slope: 1,
            len: u64::MAX,
        }
    }

    /// Pointwise minimum; linear until the larger-valued, smaller-sloped operand catches up.
    pub(crate) fn min(self, other: Piece) -> Piece {
        let (low, high) = if (self.value, self.slope) <= (other.value, other.slope) {
            (self, other)
        } else {
            (other, self)
        };
        let mut len = self.len.min(other.len);
        if low.slope > high.slope {
            let until = (high.value - low.value) / (low.slope - high.slope);
            len = len.min(u64::try_from(until).unwrap_or(u64::MAX));
        }
        Piece {
            value: low.value,
            slope: low.slope,
            len,
        }
    }

    /// Pointwise maximum.
    pub(crate) fn max(self, other: Piece) -> Piece {
        self.neg().min(other.neg()).neg()
    }

    pub(crate) fn neg(self) -> Piece {
        Piece {
            value: -self.value,
            slope: -self.slope,
            len: self.len,
        }
    }

    pub(crate) fn add(self, other: Piece) -> Piece {
        Piece {
            value: self.value + other.value,
            slope: self.slope + other.slope,
            len: self.len.min(other.len),
        }
    }

    pub(crate) fn sub(self, other: Piece) -> Piece {
        self.add(other.neg())
    }

    pub(crate) fn shorten(self, len: u64) -> Piece {
        Piece {
            len: self.len.min(len),
            ..self
        }
    }
}

/// `floor(span / T) C + min(C, span mod T)` at `span` and onwards as `span` grows with `x`: the
/// shape of every workload bound (rising with slope 1 for `C`, then flat until the next period).
pub(crate) fn sawtooth(span: u128, wcet: u64, period: u64) -> Piece {
    let (c, t) = (u128::from(wcet), u128::from(period));
    let (jobs, rest) = (span / t, span % t);
    if rest < c {
        Piece {
            value: (jobs * c + rest) as i128,
            slope: 1,
            len: (c - rest) as u64,
        }
    } else {
        Piece {
            value: ((jobs + 1) * c) as i128,
            slope: 0,
            len: (t - rest) as u64,
        }
    }
}

/// The least `x >= start` with `x = base + floor(S(x) / m)`, or `None` if it exceeds `limit`.
///
/// `sum(x)` returns the [`Piece`] of `S` at `x`. Requires `S` non-decreasing, `m >= 1` and
/// `base + floor(S(start) / m) >= start` (true for `start = base` and `S >= 0`).
pub(crate) fn least_fixed_point(
    base: u64,
    start: u64,
    limit: u64,
    m: usize,
    mut sum: impl FnMut(u64) -> Piece,
) -> Option<u64> {
    let m = m as i128;
    let mut x = start;
    loop {
        let p = sum(x);
        // f(x + t) = base + floor((v + s t) / m) on t in [0, len]. Every point of [start, p*)
        // has f(y) > y, so the fixed point p* is the first y >= x with f(y) <= y, that is
        // v + s t <= m (x + t - base) + m - 1, i.e. (m - s) t >= q:
        // With an absurd core count m (x - base) may not fit: then q is certainly <= 0.
        let Some(q) = m
            .checked_mul(i128::from(x) - i128::from(base))
            .and_then(|capacity| p.value.checked_sub(capacity))
            .and_then(|q| q.checked_sub(m - 1))
        else {
            return Some(x);
        };
        if q <= 0 {
            return Some(x);
        }
        if p.slope < m {
            let step = m - p.slope;
            let t = (q + step - 1) / step;
            if t <= i128::from(p.len) {
                let y = i128::from(x) + t;
                return (y <= i128::from(limit)).then_some(y as u64);
            }
        }
        // No fixed point on [x, x + len]: continue after it, or at f(x) if that is further.
        let f_x = i128::from(base) + p.value.div_euclid(m);
        let next = (i128::from(x) + i128::from(p.len) + 1).max(f_x);
        if next > i128::from(limit) {
            return None;
        }
        x = next as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain iteration, the slow obvious twin.
    fn plain(base: u64, limit: u64, m: usize, s: impl Fn(u64) -> i128) -> Option<u64> {
        let mut x = base;
        loop {
            let next = base as i128 + s(x).div_euclid(m as i128);
            if next > limit as i128 {
                return None;
            }
            if next as u64 == x {
                return Some(x);
            }
            x = next as u64;
        }
    }

    /// A random recurrence built from the same pieces the analyses use.
    struct Case {
        base: u64,
        terms: Vec<(u64, u64, u64, i128)>, // (offset, C, T, constant cap)
    }

    impl Case {
        fn piece(&self, x: u64) -> Piece {
            let cap = Piece::ramp(i128::from(x) - i128::from(self.base) + 1);
            self.terms
                .iter()
                .fold(Piece::constant(0), |acc, &(off, c, t, e)| {
                    let w = sawtooth(u128::from(x) + u128::from(off), c, t);
                    acc.add(w.min(Piece::constant(e)).min(cap))
                })
        }
    }

    #[test]
    fn matches_the_plain_iteration() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..3000 {
            let m = 1 + next(4) as usize;
            let base = 1 + next(30);
            let terms = (0..next(7))
                .map(|_| {
                    let t = 1 + next(40);
                    (next(50), 1 + next(t), t, next(200) as i128)
                })
                .collect();
            let case = Case { base, terms };
            let limit = base + next(400);
            let fast = least_fixed_point(base, base, limit, m, |x| case.piece(x));
            let slow = plain(base, limit, m, |x| case.piece(x).value);
            assert_eq!(fast, slow, "m={m} base={base} terms={:?}", case.terms);
        }
    }

    #[test]
    fn creeping_recurrence_is_solved_in_few_steps() {
        // S(x) = m (x - base + 1) + 0: f(x) = x + 1 forever, until the deadline.
        let mut calls = 0;
        let r = least_fixed_point(10, 10, 100_000_000, 4, |x| {
            calls += 1;
            Piece {
                value: 4 * (i128::from(x) - 9),
                slope: 4,
                len: u64::MAX,
            }
        });
        assert_eq!(r, None);
        assert!(calls < 10, "{calls} steps");
    }

    #[test]
    fn min_and_max_track_crossings() {
        let a = Piece {
            value: 3,
            slope: 1,
            len: 100,
        };
        let b = Piece::constant(10);
        assert_eq!(
            a.min(b),
            Piece {
                value: 3,
                slope: 1,
                len: 7
            }
        );
        assert_eq!(
            a.max(b),
            Piece {
                value: 10,
                slope: 0,
                len: 7
            }
        );
        assert_eq!(
            sawtooth(11, 2, 10),
            Piece {
                value: 3,
                slope: 1,
                len: 1
            }
        );
        assert_eq!(
            sawtooth(16, 2, 10),
            Piece {
                value: 4,
                slope: 0,
                len: 4
            }
        );
    }
}
