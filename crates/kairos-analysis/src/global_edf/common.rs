//! Pieces shared by the global tests: preconditions, time-scale normalization and the two
//! interference bounds of Bertogna, Cirinei and Lipari.
//!
//! All arithmetic is on integers: task parameters are `u64` nanoseconds, products and sums are
//! `u128`. Callers check preconditions first, so every period and deadline here is non-zero and
//! `C <= D`, `C <= T`.

use super::exact::FractionSum;
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;
use std::borrow::Cow;
use std::cmp::Ordering;

/// SchedCAT's preconditions (`TaskSet::has_only_feasible_tasks`, `is_not_overutilized`,
/// `has_only_constrained_deadlines`): every task has `0 < C <= D <= T`; total utilization
/// `sum C_i / T_i <= m` (exact); at least one core. An empty set is
/// schedulable. Returns the verdict to give when a precondition fails.
pub(crate) fn check_preconditions(tasks: &[SporadicTask], m: usize) -> Result<(), Verdict> {
    if tasks.is_empty() {
        return Ok(());
    }
    if m == 0 {
        return Err(Verdict::no(None));
    }
    for (i, t) in tasks.iter().enumerate() {
        if !(!t.wcet.is_zero() && t.wcet <= t.deadline && t.deadline <= t.period) {
            return Err(Verdict::no(Some(i)));
        }
    }
    let mut utilization = FractionSum::new();
    for t in tasks {
        utilization.add(u128::from(t.wcet_ns()), t.period_ns());
    }
    if utilization.cmp_int(m as u128) == Ordering::Greater {
        return Err(Verdict::no(None));
    }
    Ok(())
}

/// The same task set with every parameter divided by the gcd of all parameters. Tests whose
/// conditions are homogeneous in time (GFB, BAK, BCL and the utilization check) give the same
/// verdict on it; their products then usually fit in 64 bits, which keeps divisions cheap.
pub(crate) fn normalized(tasks: &[SporadicTask]) -> Cow<'_, [SporadicTask]> {
    let g = tasks
        .iter()
        .flat_map(|t| [t.wcet_ns(), t.deadline_ns(), t.period_ns()])
        .fold(0, gcd);
    if g <= 1 {
        return Cow::Borrowed(tasks);
    }
    Cow::Owned(
        tasks
            .iter()
            .map(|t| {
                let scaled = |d: Duration| Duration::from_nanos(d.as_nanos() / g);
                SporadicTask::new(scaled(t.wcet), scaled(t.deadline), scaled(t.period))
            })
            .collect(),
    )
}

pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// EDF interference bound of `ti` on a job of a task with deadline `window` (BCL TPDS 2009,
/// Eq. (17); Bertogna & Cirinei RTSS 2007, Eq. (9)): the jobs of `ti` with deadlines inside the
/// window, the first one finishing at least `slack_i` before its deadline:
/// `N C_i + min(C_i, max(0, window - N T_i - s_i))`, `N = floor(window / T_i)`.
pub(crate) fn edf_interference(ti: &SporadicTask, window: u64, slack_i: u64) -> u128 {
    // window - N T_i; most windows are shorter than the period, and then no division is needed.
    let (jobs, rest) = if window < ti.period_ns() {
        (0, window)
    } else {
        (window / ti.period_ns(), window % ti.period_ns())
    };
    u128::from(jobs) * u128::from(ti.wcet_ns())
        + u128::from(ti.wcet_ns().min(rest.saturating_sub(slack_i)))
}

/// Workload of `ti` in any window of `length` under any work-conserving scheduler (BCL TPDS
/// 2009, Eqs. (14)-(15); Bertogna & Cirinei RTSS 2007, Eq. (8)), the carried-in job finishing at
/// least `slack_i` before its deadline: with `L' = length + D_i - C_i - s_i`,
/// `floor(L' / T_i) C_i + min(C_i, L' mod T_i)`. Requires `slack_i <= D_i - C_i`.
pub(crate) fn window_workload(ti: &SporadicTask, length: u64, slack_i: u64) -> u128 {
    let span = u128::from(length) + u128::from(ti.deadline_ns() - ti.wcet_ns() - slack_i);
    let period = u128::from(ti.period_ns());
    (span / period) * u128::from(ti.wcet_ns()) + u128::from(ti.wcet_ns()).min(span % period)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    #[test]
    fn preconditions_follow_schedcat() {
        let ok = [task_ns(1, 4, 4), task_ns(2, 4, 8)];
        assert!(check_preconditions(&ok, 1).is_ok());
        let zero = [task_ns(0, 4, 4)];
        assert_eq!(check_preconditions(&zero, 2), Err(Verdict::no(Some(0))));
        let late = [task_ns(1, 4, 4), task_ns(1, 5, 4)];
        assert_eq!(check_preconditions(&late, 2), Err(Verdict::no(Some(1))));
        let full = [task_ns(2, 3, 3), task_ns(2, 3, 3)];
        assert!(check_preconditions(&full, 1).is_err());
        assert!(check_preconditions(&full, 0).is_err());
        assert!(check_preconditions(&[], 0).is_ok());
    }

    #[test]
    fn workload_bounds_by_hand() {
        let t = task_ns(2, 5, 10);
        // Window 13: one full job (N = 1), then min(2, 3) of the carried-in one.
        assert_eq!(edf_interference(&t, 13, 0), 4);
        assert_eq!(edf_interference(&t, 13, 2), 3);
        assert_eq!(edf_interference(&t, 10, 0), 2);
        // L' = 13 + 5 - 2 = 16: one job + min(2, 6).
        assert_eq!(window_workload(&t, 13, 0), 4);
        // L' = 4 + 3 - 3 = 4 with slack 3.
        assert_eq!(window_workload(&t, 4, 3), 2);
        assert_eq!(window_workload(&t, 0, 3), 0);
    }

    #[test]
    fn normalization_divides_by_the_common_factor() {
        let tasks = [task_ns(2000, 10000, 10000), task_ns(3000, 9000, 12000)];
        assert_eq!(normalized(&tasks)[1], task_ns(3, 9, 12));
    }
}
