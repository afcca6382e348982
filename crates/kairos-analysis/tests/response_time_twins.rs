//! The global response-time analyses (G-EDF RTA, Bertogna-Cirinei G-FP in both variants, Guan
//! et al. G-FP) against slow obvious twins: the papers' recurrences written out with the plain
//! fixed-point iteration from `C_k`, one full sum over the interfering tasks per step, no
//! pieces, no lazy sums, no warm starts. The whole verdict must agree: schedulable or not, the
//! failing task named, and every response-time bound.
//!
//! Sets: a few tasks on 1-4 cores (time units of 1 ns, where the discrete `+ 1` matters, or
//! 1000 ns) and medium sets of up to 90 tasks on up to 16 cores, light and heavy tasks mixed,
//! implicit and constrained deadlines, total utilization up to `m`.
//!
//! Each run also counts its verdicts and requires, for every analysis, some schedulable sets and
//! failures at two different tasks at least, so that it cannot pass on one-sided sets.

use kairos_analysis::global_edf::rta;
use kairos_analysis::global_fp::{bertogna_cirinei, guan, rate_monotonic_order};
use kairos_analysis::{SporadicTask, Verdict};
use kairos_model::Duration;
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// `(C, D, T)` of a task in nanoseconds.
fn cdt(t: &SporadicTask) -> (u64, u64, u64) {
    (
        t.wcet.as_nanos(),
        t.deadline.as_nanos(),
        t.period.as_nanos(),
    )
}

fn verdict(response: Result<Vec<u64>, Option<usize>>) -> Verdict {
    match response {
        Ok(r) => {
            Verdict::yes().with_response_times(r.into_iter().map(Duration::from_nanos).collect())
        }
        Err(failing) => Verdict::no(failing),
    }
}

/// The plain iteration `x <- base + floor(S(x) / m)` from `base`; `None` above `limit`.
fn plain_fixed_point(base: u64, limit: u64, m: usize, sum: impl Fn(u64) -> u64) -> Option<u64> {
    let mut x = base;
    loop {
        let next = base + sum(x) / m as u64;
        if next > limit {
            return None;
        }
        if next == x {
            return Some(x);
        }
        x = next;
    }
}

/// `floor(s / T) C + min(C, s mod T)`.
fn workload(s: u64, c: u64, t: u64) -> u64 {
    s / t * c + c.min(s % t)
}

/// Bertogna & Cirinei RTSS 2007, G-EDF (Eqs. (8), (9)), with SchedCAT's 25 slack rounds.
fn plain_gedf_rta(tasks: &[SporadicTask], m: usize) -> Verdict {
    let n = tasks.len();
    let (mut slack, mut response) = (vec![0u64; n], vec![0u64; n]);
    let (mut updated, mut schedulable, mut round, mut failing) = (true, n == 0, 0, None);
    while updated && !schedulable && round < 25 {
        (round, schedulable, updated, failing) = (round + 1, true, false, None);
        for k in 0..n {
            let (ck, dk, _) = cdt(&tasks[k]);
            let sum = |r: u64| {
                let others = tasks.iter().enumerate().filter(|&(i, _)| i != k);
                others
                    .map(|(i, ti)| {
                        let (c, d, t) = cdt(ti);
                        let edf = dk / t * c + c.min((dk % t).saturating_sub(slack[i]));
                        let wl = workload(r + d - c - slack[i], c, t);
                        edf.min(wl).min(r - ck + 1)
                    })
                    .sum()
            };
            match plain_fixed_point(ck, dk, m, sum) {
                Some(r) => {
                    response[k] = r;
                    updated |= std::mem::replace(&mut slack[k], dk - r) != dk - r;
                }
                None => {
                    schedulable = false;
                    failing.get_or_insert(k);
                }
            }
        }
    }
    verdict(if schedulable {
        Ok(response)
    } else {
        Err(failing)
    })
}

/// Rate-monotonic G-FP: `wait(k, higher, response, x)` is the total interference on task `k`
/// at `x`; the `m` most important tasks have `R = C`.
fn plain_gfp(
    tasks: &[SporadicTask],
    m: usize,
    wait: impl Fn(usize, &[usize], &[u64], u64) -> u64,
) -> Verdict {
    let order = rate_monotonic_order(tasks);
    let mut response = vec![0u64; tasks.len()];
    for (rank, &k) in order.iter().enumerate() {
        let (ck, dk, _) = cdt(&tasks[k]);
        let r = if rank < m {
            Some(ck)
        } else {
            plain_fixed_point(ck, dk, m, |x| wait(k, &order[..rank], &response, x))
        };
        match r {
            Some(r) => response[k] = r,
            None => return verdict(Err(Some(k))),
        }
    }
    verdict(Ok(response))
}

/// Bertogna & Cirinei RTSS 2007, G-FP: `W_i` with `L = x + R_i - C_i`, capped or not.
fn plain_gfp_bc(tasks: &[SporadicTask], m: usize, cap: bool) -> Verdict {
    plain_gfp(tasks, m, |k, higher, response, x| {
        let ck = tasks[k].wcet.as_nanos();
        higher
            .iter()
            .map(|&i| {
                let (c, _, t) = cdt(&tasks[i]);
                let wl = workload(x + response[i] - c, c, t);
                if cap {
                    wl.min(x - ck + 1)
                } else {
                    wl
                }
            })
            .sum()
    })
}

/// Guan, Stigge, Yi, Yu RTSS 2009, Eqs. (5)-(9), (12): the non-carry-in interference plus the
/// `m - 1` largest positive carry-in surpluses.
fn plain_gfp_guan(tasks: &[SporadicTask], m: usize) -> Verdict {
    plain_gfp(tasks, m, |k, higher, response, x| {
        let cap = x - tasks[k].wcet.as_nanos() + 1;
        let mut surplus = Vec::new();
        let mut total = 0;
        for &i in higher {
            let (c, _, t) = cdt(&tasks[i]);
            let nc = workload(x, c, t).min(cap);
            let y = x.saturating_sub(c);
            let alpha = (y % t).saturating_sub(t - response[i]).min(c - 1);
            let ci = (y / t * c + c + alpha).min(cap);
            total += nc;
            surplus.push(ci.saturating_sub(nc));
        }
        surplus.sort_unstable_by(|a, b| b.cmp(a));
        total + surplus.iter().take(m - 1).sum::<u64>()
    })
}

/// Whether `sum C_i / T_i <= m`, exactly (the analyses' precondition; the twins assume it).
fn utilization_at_most(tasks: &[SporadicTask], m: usize) -> bool {
    // Periods are drawn below 2^16 and sets stay under 100 tasks: the products fit in u128.
    let hyper = tasks
        .iter()
        .map(|t| u128::from(t.period.as_nanos()))
        .fold(1u128, |a, b| a / gcd(a, b) * b);
    let work: u128 = tasks
        .iter()
        .map(|t| u128::from(t.wcet.as_nanos()) * (hyper / u128::from(t.period.as_nanos())))
        .sum();
    work <= m as u128 * hyper
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A set on `m` cores: each task a period in `periods` (times `unit` ns), a share of the total
/// utilization `load` percent of `m`, and a deadline between `C` and `T` (implicit for half).
fn arb_set(
    cores: std::ops::RangeInclusive<usize>,
    tasks: std::ops::RangeInclusive<usize>,
    periods: &'static [u64],
    units: &'static [u64],
) -> impl Strategy<Value = (usize, Vec<SporadicTask>)> {
    let task = (prop::sample::select(periods), 1u64..=100, 0u64..=200);
    (
        cores,
        prop::collection::vec(task, tasks),
        20u64..=100,
        prop::sample::select(units),
    )
        .prop_map(|(m, raw, load, unit)| {
            let weights: u64 = raw.iter().map(|&(_, w, _)| w * w).sum();
            let set = raw
                .iter()
                .map(|&(p, w, d_pct)| {
                    let period = p * unit;
                    // Utilization share w^2 / sum w^2 of load% of m: a few heavy tasks.
                    let share =
                        u128::from(period) * u128::from(w * w) * m as u128 * u128::from(load);
                    let wcet = ((share / (u128::from(weights) * 100)) as u64).clamp(1, period);
                    let deadline = if d_pct > 100 {
                        period
                    } else {
                        wcet + (period - wcet) * d_pct / 100
                    };
                    let ns = Duration::from_nanos;
                    SporadicTask::new(ns(wcet), ns(deadline), ns(period))
                })
                .collect();
            (m, set)
        })
}

/// How the sets of one run were judged by the four analyses: a run whose sets are all
/// schedulable, or all fail at the same task, would let a wrong search pass unnoticed.
#[derive(Default)]
struct Tally {
    schedulable: [usize; 4],
    failing_at: [BTreeSet<usize>; 4],
}

impl Tally {
    fn count(&mut self, verdicts: [&Verdict; 4]) {
        for (test, verdict) in verdicts.into_iter().enumerate() {
            if verdict.schedulable {
                self.schedulable[test] += 1;
            } else if let Some(k) = verdict.failing_task {
                self.failing_at[test].insert(k);
            }
        }
    }

    /// Every analysis showed some sets schedulable and failed others at two tasks at least.
    fn assert_both_verdicts(&self) {
        for test in 0..4 {
            assert!(
                self.schedulable[test] > 0,
                "analysis {test}: no schedulable set"
            );
            let failing = &self.failing_at[test];
            assert!(
                failing.len() >= 2,
                "analysis {test}: failures at {failing:?}"
            );
        }
    }
}

fn check(m: usize, tasks: &[SporadicTask], tally: &RefCell<Tally>) -> Result<(), TestCaseError> {
    prop_assume!(utilization_at_most(tasks, m));
    let gedf = rta::is_schedulable(tasks, m);
    prop_assert_eq!(&gedf, &plain_gedf_rta(tasks, m), "G-EDF RTA");
    let paper = bertogna_cirinei::is_schedulable(tasks, m);
    prop_assert_eq!(&paper, &plain_gfp_bc(tasks, m, true), "G-FP BC");
    let schedcat = bertogna_cirinei::is_schedulable_schedcat_rm(tasks, m);
    prop_assert_eq!(
        &schedcat,
        &plain_gfp_bc(tasks, m, false),
        "G-FP BC (SchedCAT)"
    );
    let guan = guan::is_schedulable(tasks, m);
    prop_assert_eq!(&guan, &plain_gfp_guan(tasks, m), "G-FP Guan");
    tally.borrow_mut().count([&gedf, &paper, &schedcat, &guan]);
    Ok(())
}

/// Runs `cases` sets from `sets` through [`check`], then checks the verdicts were mixed.
fn run(cases: u32, seed: u64, sets: impl Strategy<Value = (usize, Vec<SporadicTask>)>) {
    let config = ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let tally = RefCell::new(Tally::default());
    let result = TestRunner::new(config).run(&sets, |(m, tasks)| check(m, &tasks, &tally));
    if let Err(failure) = result {
        panic!("{failure}");
    }
    tally.borrow().assert_both_verdicts();
}

/// Periods whose lcm stays small, and a wider spread for the medium sets.
const SMALL_PERIODS: &[u64] = &[3, 4, 5, 6, 8, 10, 12, 15, 20, 24];
const MEDIUM_PERIODS: &[u64] = &[20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 240, 300];

#[test]
fn small_sets_match_the_plain_twins() {
    run(3000, 21, arb_set(1..=4, 2..=8, SMALL_PERIODS, &[1, 1000]));
}

#[test]
fn medium_sets_match_the_plain_twins() {
    run(300, 22, arb_set(2..=16, 20..=90, MEDIUM_PERIODS, &[1, 7]));
}
