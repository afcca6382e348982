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
            let until = (high.value - low.value) / (low.slope - high.slope);
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
        let high_end = high.value + high.slope * i128::from(high.len);
        let below_until = if low.slope > 0 {
            u64::try_from((high_end - low.value) / low.slope).unwrap_or(u64::MAX)
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
                    acc.add(w.min_rising(Piece::constant(e)).min_rising(cap))
                })
        }

        fn bound(&self, from: u64, to: u64, at: u64) -> i128 {
            let cap = i128::from(at) - i128::from(self.base) + 1;
            let span = |x: u64, off: u64| u128::from(x) + u128::from(off);
            self.terms
                .iter()
                .map(|&(off, c, t, e)| {
                    workload_lower_bound(span(from, off), span(to, off), span(at, off), c, t)
                        .min(e)
                        .min(cap)
                })
                .sum()
        }
    }

    /// Random recurrences with `cases` draws, periods up to `max_period` and horizons up to
    /// `max_horizon`, solved both ways.
    fn compare_with_plain(seed: u64, cases: usize, max_period: u64, max_horizon: u64) {
        let mut next = crate::test_rng(seed);
        for _ in 0..cases {
            let m = 1 + next(4) as usize;
            let base = 1 + next(30 + max_period);
            let terms = (0..next(7))
                .map(|_| {
                    let t = 1 + next(max_period);
                    let cap = next(5 * max_horizon) as i128;
                    (next(50 + max_period), 1 + next(t), t, cap)
                })
                .collect();
            let case = Case { base, terms };
            let limit = base + next(max_horizon);
            let fast = least_fixed_point(
                base,
                base,
                limit,
                m,
                |x| case.piece(x),
                |a, b, at| case.bound(a, b, at),
            );
            let slow = plain(base, limit, m, |x| case.piece(x).value);
            assert_eq!(fast, slow, "m={m} base={base} terms={:?}", case.terms);
        }
    }

    #[test]
    fn matches_the_plain_iteration() {
        compare_with_plain(0x2545f4914f6cdd1d, 3000, 40, 400);
    }

    #[test]
    fn matches_the_plain_iteration_over_long_horizons() {
        // Long enough for the fluid skips to be tried many times per recurrence.
        compare_with_plain(0x5deece66d, 400, 3000, 200_000);
    }

    #[test]
    fn creeping_recurrence_is_solved_in_few_steps() {
        // S(x) = m (x - base + 1) + 0: f(x) = x + 1 forever, until the deadline.
        let mut calls = 0;
        let r = least_fixed_point(
            10,
            10,
            100_000_000,
            4,
            |x| {
                calls += 1;
                Piece {
                    value: 4 * (i128::from(x) - 9),
                    slope: 4,
                    len: u64::MAX,
                }
            },
            |_, _, at| 4 * (i128::from(at) - 9),
        );
        assert_eq!(r, None);
        assert!(calls < 10, "{calls} steps");
    }

    #[test]
    fn cap_far_below_a_short_period_workload_is_not_walked_tooth_by_tooth() {
        // One core, C_k near 8e18, an interferer with T = 763 whose workload is far above the
        // cap: S(x) = cap(x) + 2 grows exactly as fast as x until the cap meets the workload.
        let (base, limit) = (8_014_378_577_447_747_813u64, 15_284_113_907_182_861_079u64);
        let sum = |x: u64| {
            let cap = Piece::ramp(i128::from(x - base) + 1);
            let w = sawtooth(u128::from(x) + 473, 236, 763);
            w.min_rising(cap).add(Piece::constant(2))
        };
        let bound = |from: u64, to: u64, at: u64| {
            let cap = i128::from(at - base) + 1;
            let span = |x: u64| u128::from(x) + 473;
            workload_lower_bound(span(from), span(to), span(at), 236, 763).min(cap) + 2
        };
        // The cap meets the workload before the deadline.
        solve_on_one_core(base, limit, 1000, sum, bound);
    }

    /// Solves `x = base + S(x)` on one core, checks that it took fewer than `max_steps`
    /// evaluations of `S` and found the least fixed point below `limit`.
    fn solve_on_one_core(
        base: u64,
        limit: u64,
        max_steps: usize,
        piece: impl Fn(u64) -> Piece,
        bound: impl Fn(u64, u64, u64) -> i128,
    ) {
        let mut steps = 0;
        let counted = |x: u64| {
            steps += 1;
            piece(x)
        };
        let r = least_fixed_point(base, base, limit, 1, counted, bound);
        assert!(steps < max_steps, "{steps} steps");
        let r = r.expect("a fixed point below the limit");
        let f = |x: u64| i128::from(base) + piece(x).value;
        assert_eq!(f(r), i128::from(r));
        assert!(f(r - 1) > i128::from(r - 1));
    }

    #[test]
    fn min_rising_equals_the_pointwise_minimum_of_rising_functions() {
        let mut next = crate::test_rng(0x9e3779b97f4a7c15);
        for _ in 0..5000 {
            let (c1, t1) = (1 + next(20), 21 + next(20));
            let (off1, cap_at) = (next(100), next(60) as i128);
            let x = next(100);
            let f = |y: u64| sawtooth(u128::from(y + off1), c1, t1);
            let g = |y: u64| Piece::ramp(i128::from(y) - cap_at).min_rising(Piece::constant(40));
            let p = f(x).min_rising(g(x));
            for t in 0..=p.len.min(300) {
                let exact = f(x + t).value.min(g(x + t).value);
                assert_eq!(
                    p.value + p.slope * i128::from(t),
                    exact,
                    "x={x} t={t} {p:?}"
                );
            }
        }
    }

    #[test]
    fn slow_creep_over_many_short_teeth_is_skipped() {
        // One core: a cap that a long-period task's first job keeps binding (S >= m (x - base)
        // + 1 all along) plus two light tasks of period ~10^12, for ~1.6e19 ns: ~10^7 teeth to
        // walk without skipping.
        let (base, limit) = (556u64, u64::MAX - 2);
        let light = [(2u64, 1_225_759_432_035u64), (3, 2_063_956_826_667)];
        let (big_c, big_t, big_off) = (15_855_249_785_243_453_335u64, u64::MAX - 1, 1_000u64);
        let piece = |x: u64| {
            let cap = Piece::ramp(i128::from(x - base) + 1);
            let big = sawtooth(u128::from(x) + u128::from(big_off), big_c, big_t);
            light.iter().fold(big.min_rising(cap), |sum, &(c, t)| {
                sum.add(sawtooth(u128::from(x), c, t))
            })
        };
        let bound = |from: u64, to: u64, at: u64| {
            let cap = i128::from(at - base) + 1;
            let span = |x: u64| u128::from(x) + u128::from(big_off);
            let big = workload_lower_bound(span(from), span(to), span(at), big_c, big_t);
            let light_sum: i128 = light
                .iter()
                .map(|&(c, t)| workload_lower_bound(from.into(), to.into(), at.into(), c, t))
                .sum();
            big.min(cap) + light_sum
        };
        // The cap meets the long task's first job before the limit.
        solve_on_one_core(base, limit, 10_000, piece, bound);
    }

    #[test]
    fn workload_lower_bound_is_concave_and_below_the_workload() {
        let mut next = crate::test_rng(0x853c49e6748fea9b);
        for _ in 0..2000 {
            let t = 1 + next(50);
            let c = 1 + next(t);
            let from = u128::from(next(200));
            let to = from + u128::from(next(120));
            let at = |s: u128| workload_lower_bound(from, to, s, c, t);
            for s in from..=to {
                assert!(
                    at(s) <= sawtooth(s, c, t).value,
                    "C={c} T={t} [{from}, {to}] at {s}"
                );
                if s > from && s < to {
                    // Concave up to the floor: the middle is at least the mean of its neighbours.
                    assert!(2 * at(s) + 1 >= at(s - 1) + at(s + 1), "C={c} T={t} at {s}");
                }
            }
        }
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
