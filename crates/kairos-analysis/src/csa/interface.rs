//! Interfaces: the least resource under which a domain's guest scheduler meets every deadline,
//! and the VCPUs that supply it.
//!
//! - One VCPU (partitioned guests, per VCPU): the smallest Θ for the given Π such that the
//!   EDF or DM component test passes on the PRM (Π, Θ) (Shin and Lee, RTSS 2003, section 6).
//! - A gEDF guest: the MPR ⟨Π, Θ, m'⟩ with the smallest m' from ⌈U⌉ upward, then the smallest
//!   Θ in `[(m'-1)Π, m'Π]` that passes (Easwaran, Shin and Lee, RTS 2009, section 6), as m'
//!   VCPUs of period Π whose budgets are ⌊Θ/m'⌋ or ⌊Θ/m'⌋+1 and sum to Θ (section 7); the unit
//!   tests check on small integers that those VCPUs' worst-case supplies add up to at least
//!   the MPR's.
//!
//! Every budget is found by bisection and returned only after the test passed on it, so it is
//! safe even where the test is not monotonic in Θ; it is the least one when it is (the unit
//! tests compare with a scan of every Θ), on a grid of Π / 10,000 (1 us for a 10 ms period,
//! 1 for periods under 10,000 units): a test must look as far as its slack is thin (the
//! last instant that can fail grows as 1 / (Θ/Π - U)), so budgets a few nanoseconds above a
//! domain's utilization cost seconds each, for bandwidth below 10^-4 per VCPU.

use super::edf::{edf_fits, fp_fits};
use super::gedf::gedf_fits;
use super::supply::{Mpr, Prm};
use crate::uniprocessor::fp_rta::deadline_monotonic_order;
use crate::SporadicTask;
use kairos_model::Duration;

/// Which component test a one-VCPU interface answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniGuest {
    Edf,
    Dm,
}

/// The least PRM of period `period` under which `guest` schedules `tasks`, if any.
pub fn prm_interface(tasks: &[SporadicTask], guest: UniGuest, period: Duration) -> Option<Prm> {
    let prm = |budget: u64| Prm::new(period, Duration::from_nanos(budget));
    let fits = |budget: u64| {
        let supply = prm(budget).expect("budget within the period");
        match guest {
            UniGuest::Edf => edf_fits(tasks, &supply),
            UniGuest::Dm => fp_fits(tasks, &deadline_monotonic_order(tasks), &supply),
        }
    };
    let pi = period.as_nanos();
    least_budget(0, pi, grain(pi), fits).and_then(prm)
}

/// The least MPR of period `period` and parallelism at most `max_parallelism` under which
/// gEDF schedules `tasks`, if any.
pub fn mpr_interface(
    tasks: &[SporadicTask],
    period: Duration,
    max_parallelism: u64,
) -> Option<Mpr> {
    let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
    let first = (utilization.ceil() as u64).max(1);
    let pi = period.as_nanos();
    (first..=max_parallelism).find_map(|m| {
        let mpr = |budget: u64| Mpr::new(period, Duration::from_nanos(budget), m);
        let fits = |budget: u64| gedf_fits(tasks, &mpr(budget).expect("at most m Π"));
        let range = ((m - 1) * pi, m * pi);
        least_budget(range.0, range.1, grain(pi), fits).and_then(mpr)
    })
}

/// The budgets of the m' VCPUs that realize `mpr`: ⌊Θ/m'⌋+1 for the first Θ mod m', ⌊Θ/m'⌋
/// for the others.
pub fn vcpu_budgets(mpr: &Mpr) -> Vec<Duration> {
    let m = mpr.parallelism;
    let theta = mpr.budget.as_nanos();
    let (base, extra) = (theta / m, theta % m);
    (0..m)
        .map(|j| Duration::from_nanos(base + u64::from(j < extra)))
        .collect()
}

/// The budgets' grid for a period: Π / 10,000, at least 1 (see the module documentation).
fn grain(period: u64) -> u64 {
    (period / 10_000).max(1)
}

/// The smallest budget of `low + j grain` in `[low, high]` (or `high`) that `fits`, by
/// bisection over a predicate assumed monotonic; `None` when even `high` does not fit.
fn least_budget(low: u64, high: u64, grain: u64, fits: impl Fn(u64) -> bool) -> Option<u64> {
    if !fits(high) {
        return None;
    }
    let at = |step: u64| (low + step * grain).min(high);
    let (mut lo, mut hi) = (0, (high - low).div_ceil(grain));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(at(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(at(hi)).filter(|&b| fits(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csa::supply::Supply;
    use crate::{task_ns, test_rng};

    fn ns(t: u64) -> Duration {
        Duration::from_nanos(t)
    }

    fn random_set(next: &mut impl FnMut(u64) -> u64, n: u64) -> Vec<SporadicTask> {
        (0..n)
            .map(|_| {
                let period = 4 + next(12);
                let wcet = 1 + next(period / 3);
                task_ns(wcet, period - next(2), period)
            })
            .collect()
    }

    #[test]
    fn one_vcpu_interfaces_are_the_least_budget_that_passes() {
        let mut next = test_rng(0x0001_face);
        let mut found = 0;
        for _ in 0..400 {
            let n = 1 + next(3);
            let tasks = random_set(&mut next, n);
            let period = 2 + next(6);
            for guest in [UniGuest::Edf, UniGuest::Dm] {
                let scan = (0..=period).find(|&b| {
                    let s = Prm::new(ns(period), ns(b)).unwrap();
                    match guest {
                        UniGuest::Edf => edf_fits(&tasks, &s),
                        UniGuest::Dm => fp_fits(&tasks, &deadline_monotonic_order(&tasks), &s),
                    }
                });
                let got = prm_interface(&tasks, guest, ns(period)).map(|p| p.budget.as_nanos());
                assert_eq!(got, scan, "{guest:?} {tasks:?} Π={period}");
                found += usize::from(got.is_some());
            }
        }
        assert!(found > 200, "{found} interfaces found");
    }

    #[test]
    fn gedf_interfaces_are_the_least_parallelism_then_budget() {
        let mut next = test_rng(0x0e1e_c7ed);
        let mut found = 0;
        for _ in 0..200 {
            let n = 2 + next(3);
            let tasks = random_set(&mut next, n);
            let period = 2 + next(5);
            let scan = (1..=3).find_map(|m| {
                ((m - 1) * period..=m * period)
                    .find(|&b| gedf_fits(&tasks, &Mpr::new(ns(period), ns(b), m).unwrap()))
                    .map(|b| (m, b))
            });
            let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
            let got =
                mpr_interface(&tasks, ns(period), 3).map(|r| (r.parallelism, r.budget.as_nanos()));
            if scan.is_some_and(|(m, _)| m as f64 >= utilization.ceil()) {
                assert_eq!(got, scan, "{tasks:?} Π={period}");
            }
            found += usize::from(got.is_some());
        }
        assert!(found > 50, "{found} interfaces found");
    }

    #[test]
    fn the_vcpus_supply_at_least_the_mpr_in_every_window() {
        for period in 1..=9u64 {
            for m in 1..=3u64 {
                for budget in 1..=m * period {
                    let mpr = Mpr::new(ns(period), ns(budget), m).unwrap();
                    let budgets = vcpu_budgets(&mpr);
                    assert_eq!(budgets.iter().map(|b| b.as_nanos()).sum::<u64>(), budget);
                    for t in (0..=6 * period).map(ns) {
                        let vcpus: u64 = budgets
                            .iter()
                            .map(|&b| Prm::new(ns(period), b).unwrap().sbf(t).as_nanos())
                            .sum();
                        assert!(vcpus >= mpr.sbf(t).as_nanos(), "{mpr:?} t={t}: {vcpus}");
                    }
                }
            }
        }
    }
}
