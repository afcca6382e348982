//! EDF and fixed-priority (DM) components on one periodic resource.
//!
//! Shin and Lee, "Periodic resource model for compositional real-time guarantees" (RTSS 2003),
//! section 5: a task set under EDF is schedulable on Γ iff `dbf(t) <= sbf_Γ(t)` for every t;
//! under fixed priorities, task i is iff some `t` in `(0, D_i]` has
//! `rbf_i(t) = C_i + Σ_{hp(i)} ⌈t / T_k⌉ C_k <= sbf_Γ(t)`.
//!
//! Where to check (kairos' reasoning): `dbf` is a step function rising at absolute deadlines
//! and `sbf` never decreases, so the deadlines are the only points where `dbf` can overtake.
//! Beyond `t*` solving `U t + Σ (T_i - D_i) U_i = lsbf(t)` the demand's linear upper bound is
//! below the supply's linear lower bound, so the deadlines up to `t*` suffice (the bound needs
//! `U` below the bandwidth). `rbf_i` is constant on each `(j T_k, (j+1) T_k]`, so its right
//! ends and `D_i` are the only candidates.

use super::supply::Supply;
use crate::SporadicTask;
use kairos_model::Duration;

/// Deadline points a check may visit before it gives up as inconclusive ("not shown").
const MAX_POINTS: u64 = 20_000_000;

/// Whether EDF schedules `tasks` on the one-processor resource `supply` (exact; `false` also
/// when the check would take more than 20 million deadline points).
pub fn edf_fits<S: Supply + ?Sized>(tasks: &[SporadicTask], supply: &S) -> bool {
    let Some(horizon) = horizon(tasks, supply) else {
        return false;
    };
    let points: u64 = tasks.iter().map(|t| horizon / t.period_ns() + 1).sum();
    if points > MAX_POINTS {
        return false;
    }
    tasks.iter().all(|task| {
        (0..)
            .map(|j| j * task.period_ns() + task.deadline_ns())
            .take_while(|&t| t <= horizon)
            .all(|t| dbf_ns(tasks, t) <= sbf_ns(supply, t))
    })
}

/// Total demand of jobs released and due within any window of length `t`.
pub fn dbf(tasks: &[SporadicTask], t: Duration) -> Duration {
    Duration::from_nanos(dbf_ns(tasks, t.as_nanos()))
}

fn dbf_ns(tasks: &[SporadicTask], t: u64) -> u64 {
    tasks
        .iter()
        .filter(|task| t >= task.deadline_ns())
        .map(|task| ((t - task.deadline_ns()) / task.period_ns() + 1) * task.wcet_ns())
        .sum()
}

/// `supply`'s sbf on nanoseconds, for the integer checks.
fn sbf_ns<S: Supply + ?Sized>(supply: &S, t: u64) -> u64 {
    supply.sbf(Duration::from_nanos(t)).as_nanos()
}

/// The last instant where the demand could exceed the supply; `None` when the utilization
/// is not below the bandwidth (then some long window always lacks supply, unless the
/// resource is a whole processor and the set fits exactly, which this test does not try).
fn horizon<S: Supply + ?Sized>(tasks: &[SporadicTask], supply: &S) -> Option<u64> {
    if tasks.is_empty() {
        return Some(0);
    }
    let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
    let slack = supply.bandwidth() - utilization;
    if slack <= 1e-12 {
        return None;
    }
    let carry: f64 = tasks
        .iter()
        .map(|t| (t.period_ns().saturating_sub(t.deadline_ns())) as f64 * t.utilization())
        .sum();
    let crossing = (carry + supply.bandwidth() * supply.linear_intercept()) / slack;
    let longest = tasks.iter().map(|t| t.deadline_ns()).max().unwrap_or(0);
    Some((crossing.ceil() as u64).max(longest))
}

/// Whether fixed priorities schedule `tasks` on the one-processor resource `supply` (exact).
/// The priorities are the order of `order`: task indices, most important first.
pub fn fp_fits<S: Supply + ?Sized>(tasks: &[SporadicTask], order: &[usize], supply: &S) -> bool {
    (0..order.len()).all(|rank| {
        let task = &tasks[order[rank]];
        let higher: Vec<&SporadicTask> = order[..rank].iter().map(|&k| &tasks[k]).collect();
        let rbf = |t: u64| -> u64 {
            task.wcet_ns()
                + higher
                    .iter()
                    .map(|h| t.div_ceil(h.period_ns()) * h.wcet_ns())
                    .sum::<u64>()
        };
        let candidates = higher
            .iter()
            .flat_map(|h| (1..=task.deadline_ns() / h.period_ns()).map(move |j| j * h.period_ns()))
            .chain(std::iter::once(task.deadline_ns()));
        candidates.into_iter().any(|t| rbf(t) <= sbf_ns(supply, t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csa::supply::Prm;
    use crate::{task_ns, test_rng};

    fn random_set(next: &mut impl FnMut(u64) -> u64) -> Vec<SporadicTask> {
        (0..1 + next(3))
            .map(|_| {
                let period = 2 + next(9);
                let deadline = 1 + next(period);
                let wcet = 1 + next(deadline.min(3));
                task_ns(wcet, deadline, period)
            })
            .collect()
    }

    /// Every integer window up to two hyper-periods past the longest deadline.
    fn edf_brute(tasks: &[SporadicTask], supply: &Prm) -> bool {
        let h = tasks.iter().fold(1, |h, t| lcm(h, t.period_ns())) * supply.period.as_nanos();
        let longest = tasks.iter().map(|t| t.deadline_ns()).max().unwrap();
        (1..=2 * h + longest).all(|t| dbf_ns(tasks, t) <= sbf_ns(supply, t))
    }

    fn fp_brute(tasks: &[SporadicTask], order: &[usize], supply: &Prm) -> bool {
        (0..order.len()).all(|rank| {
            let task = &tasks[order[rank]];
            (1..=task.deadline_ns()).any(|t| {
                let hp: u64 = order[..rank]
                    .iter()
                    .map(|&k| t.div_ceil(tasks[k].period_ns()) * tasks[k].wcet_ns())
                    .sum();
                task.wcet_ns() + hp <= sbf_ns(supply, t)
            })
        })
    }

    fn lcm(a: u64, b: u64) -> u64 {
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        a / gcd(a, b) * b
    }

    #[test]
    fn edf_and_fp_components_agree_with_every_window() {
        let mut next = test_rng(0x05ee_dc5a);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..3000 {
            let tasks = random_set(&mut next);
            let period = 1 + next(6);
            let budget = 1 + next(period);
            let supply =
                Prm::new(Duration::from_nanos(period), Duration::from_nanos(budget)).unwrap();
            let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
            let edf = edf_fits(&tasks, &supply);
            // Equal utilization and bandwidth is refused as not shown: compare elsewhere.
            if utilization < supply.bandwidth() - 1e-12 {
                assert_eq!(edf, edf_brute(&tasks, &supply), "{tasks:?} on {supply:?}");
            } else {
                assert!(!edf || edf_brute(&tasks, &supply));
            }
            let order = crate::uniprocessor::fp_rta::deadline_monotonic_order(&tasks);
            let fp = fp_fits(&tasks, &order, &supply);
            assert_eq!(
                fp,
                fp_brute(&tasks, &order, &supply),
                "{tasks:?} on {supply:?}"
            );
            if edf {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 300 && no > 300, "{yes} schedulable, {no} not");
    }

    #[test]
    fn a_whole_processor_is_the_plain_demand_test() {
        let tasks = [task_ns(2, 4, 5), task_ns(3, 9, 10)];
        let whole = Prm::new(Duration::from_nanos(1), Duration::from_nanos(1)).unwrap();
        assert!(edf_fits(&tasks, &whole));
        let qpa = crate::uniprocessor::edf_qpa::is_schedulable(&tasks).schedulable;
        assert!(qpa);
        let half = Prm::new(Duration::from_nanos(2), Duration::from_nanos(1)).unwrap();
        assert!(!edf_fits(&tasks, &half), "utilization 0.7 on bandwidth 0.5");
    }
}
