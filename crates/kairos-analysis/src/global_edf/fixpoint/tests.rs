//! Tests of the parent module (`fixpoint.rs`).

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
