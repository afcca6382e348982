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
//!
//! Pieces alone still creep when `S` grows a little faster than `m x` on average but is made
//! of short teeth (a capped term plus a task with `T = 10^3` and a deadline near `u64::MAX`:
//! 10^16 teeth). So when its pace is too slow ([`SKIP_EVERY`]) the search asks for a concave
//! lower bound of `S` over a window `[x, z]` ([`workload_lower_bound`]: a workload that stays in one
//! period there is exact, one that spans several is replaced by its fluid line `C s / T`).
//! Where that bound exceeds the capacity `m (y - base) + m - 1` at both ends, concavity puts it
//! above all along the window, so no fixed point lies there, and the search gallops over it.

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
            let until = per_slope(high.value - low.value, low.slope - high.slope);
            len = len.min(u64::try_from(until).unwrap_or(u64::MAX));
        }
        Piece {
            value: low.value,
            slope: low.slope,
            len,
        }
    }

    /// Pointwise minimum of two non-decreasing functions (workloads, caps): as [`Piece::min`],
    /// but the lower operand stays the minimum past the end of the higher one's piece, until it
    /// reaches the value the higher one has there, which it can never fall below afterwards.
    ///
    /// Why it matters: a cap `x - C_k + 1` far below a workload of a short-period task would
    /// otherwise end at every tooth of the workload's sawtooth, and a recurrence whose capped
    /// terms grow exactly as fast as `m x` would walk the whole deadline tooth by tooth (10^16
    /// steps for a deadline near `u64::MAX`). With this, each step jumps to where the cap meets
    /// the workload's current value, and the distance shrinks geometrically.
    pub(crate) fn min_rising(self, other: Piece) -> Piece {
        let exact = self.min(other);
        let (low, high) = if (self.value, self.slope) <= (other.value, other.slope) {
            (self, other)
        } else {
            (other, self)
        };
        if exact.len < high.len {
            // The operands cross, or the lower one ends, while the higher one is still linear.
            return exact;
        }
        // A slope of a workload or cap (0 or 1) times a length below 2^64: no overflow, and
        // no overflow-checked 128-bit multiplication on this hot path.
        let high_end = high.value + high.slope.wrapping_mul(i128::from(high.len));
        let below_until = if low.slope > 0 {
            u64::try_from(per_slope(high_end - low.value, low.slope)).unwrap_or(u64::MAX)
        } else {
            u64::MAX
        };
        Piece {
            len: low.len.min(below_until.max(exact.len)),
            ..low
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

/// `gap / slope` (truncating) for a positive `slope`: almost always 1, and a 128-bit division
/// costs more than the rest of a term's evaluation.
pub(crate) fn per_slope(gap: i128, slope: i128) -> i128 {
    if slope == 1 {
        gap
    } else {
        gap / slope
    }
}

/// `floor(span / T) C + min(C, span mod T)` at `span` and onwards as `span` grows with `x`: the
/// shape of every workload bound (rising with slope 1 for `C`, then flat until the next period).
pub(crate) fn sawtooth(span: u128, wcet: u64, period: u64) -> Piece {
    let (c, t) = (u128::from(wcet), u128::from(period));
    if c == t {
        // `W(span) = span`: one ramp, not a tooth per period.
        return Piece {
            value: span as i128,
            slope: 1,
            len: u64::MAX,
        };
    }
    let (jobs, rest) = div_rem(span, period);
    let rest = u128::from(rest);
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

/// `(a / b, a % b)` for `b > 0`. The analyses divide a window by a period millions of times,
/// mostly with a quotient of 0 or 1, where a comparison answers; a 64-bit division is several
/// times cheaper than a 128-bit one for the rest.
pub(crate) fn div_rem(a: u128, b: u64) -> (u128, u64) {
    let wide = u128::from(b);
    if a < wide {
        (0, a as u64)
    } else if a - wide < wide {
        (1, (a - wide) as u64)
    } else if let Ok(narrow) = u64::try_from(a) {
        (u128::from(narrow / b), narrow % b)
    } else {
        (a / wide, (a % wide) as u64)
    }
}

/// Every this many piece steps the search checks its pace, and tries to skip a window at once
/// if at that pace it would need more than [`SKIP_PATIENCE`] such rounds to reach the limit.
/// Recurrences that converge pay one comparison per round: skipping costs a few dozen
/// evaluations of the bound, 20 % more time on SchedCAT's m = 8 sets if tried every round.
const SKIP_EVERY: u32 = 16;
const SKIP_PATIENCE: u64 = 64;

/// The least `x >= start` with `x = base + floor(S(x) / m)`, or `None` if it exceeds `limit`.
///
/// `sum(x)` returns the [`Piece`] of `S` at `x`. Requires `S` non-decreasing, `m >= 1` and
/// `base + floor(S(start) / m) >= start` (true for `start = base` and `S >= 0`).
///
/// `bound(from, to, at)`, for `at` either end of the window `[from, to]`, is at most `E(at)`
/// for some concave `E <= S` on that window (sums of minima of [`workload_lower_bound`]s,
/// caps and constants, floored, qualify). It is what lets the search skip long stretches.
pub(crate) fn least_fixed_point(
    base: u64,
    start: u64,
    limit: u64,
    m: usize,
    mut sum: impl FnMut(u64) -> Piece,
    bound: impl Fn(u64, u64, u64) -> i128,
) -> Option<u64> {
    let m = m as i128;
    // S(y) <= capacity(y) is the same as f(y) <= y; `None` when it does not fit (then it holds).
    let capacity = |y: u64| {
        m.checked_mul(i128::from(y) - i128::from(base))
            .and_then(|c| c.checked_add(m - 1))
    };
    let mut x = start;
    let (mut steps, mut round_start) = (0u32, start);
    loop {
        let p = sum(x);
        // f(x + t) = base + floor((v + s t) / m) on t in [0, len]. Every point of [start, p*)
        // has f(y) > y, so the fixed point p* is the first y >= x with f(y) <= y, that is
        // v + s t <= m (x + t - base) + m - 1, i.e. (m - s) t >= q:
        let Some(q) = capacity(x).and_then(|c| p.value.checked_sub(c)) else {
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
        let mut next = (i128::from(x) + i128::from(p.len) + 1).max(f_x);
        steps += 1;
        if steps.is_multiple_of(SKIP_EVERY) && next <= i128::from(limit) {
            let pace = x - round_start;
            round_start = x;
            if (limit - x) / pace.max(1) > SKIP_PATIENCE {
                let above = |at: u64, z: u64| capacity(at).is_some_and(|c| bound(x, z, at) > c);
                let window_clear = |z: u64| above(x, z) && above(z, z);
                let clear_until = furthest_clear(x, next as u64, limit, window_clear);
                next = next.max(i128::from(clear_until) + 1);
            }
        }
        if next > i128::from(limit) {
            return None;
        }
        x = next as u64;
    }
}

/// The furthest `z` in `[x, limit]` found with `clear(z)`, galloping from `hint` and then
/// bisecting; `x - 1` if not even `clear(x)`. `clear` need not be monotone: every `z` it
/// accepts is a window `[x, z]` without a fixed point, whichever one is returned.
fn furthest_clear(x: u64, hint: u64, limit: u64, mut clear: impl FnMut(u64) -> bool) -> u64 {
    if !clear(x) {
        return x.saturating_sub(1);
    }
    let (mut low, mut stride) = (x, hint.saturating_sub(x).max(1));
    let mut high = loop {
        let probe = low.saturating_add(stride).min(limit);
        if probe == low {
            return low;
        }
        if !clear(probe) {
            break probe;
        }
        low = probe;
        stride = stride.saturating_mul(2);
    };
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if clear(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

/// A concave lower bound of the workload `W(s) = floor(s / T) C + min(C, s mod T)` on the
/// window of spans `[from, to]`, at `at` in it.
///
/// Within one period `W` is a ramp then flat, concave itself, so it is used exactly. Over
/// several periods the best concave bound is the fluid line `C s / T` (`W` touches it at every
/// multiple of `T`): `min(C, r) >= C r / T` for `r < T`.
pub(crate) fn workload_lower_bound(from: u128, to: u128, at: u128, wcet: u64, period: u64) -> i128 {
    let (c, t) = (u128::from(wcet), u128::from(period));
    let job = from / t;
    let period_start = job * t;
    if to - period_start < t {
        (job * c + (at - period_start).min(c)) as i128
    } else {
        // floor(C at / T) without overflowing u128.
        ((at / t) * c + (at % t) * c / t) as i128
    }
}

mod lazy;

pub(crate) use lazy::{CachedPiece, CappedLevels, LazySum};

#[cfg(test)]
mod tests;
