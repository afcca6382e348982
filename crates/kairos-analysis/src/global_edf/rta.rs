//! Response-time analysis for global EDF.
//!
//! M. Bertogna and M. Cirinei, "Response-time analysis for globally scheduled symmetric
//! multiprocessor platforms", RTSS 2007, pp. 149-160: the workload bound of Eqs. (4) and (8),
//! the EDF interference bound of Eqs. (5) and (9), the response-time recurrence (Theorem for
//! EDF, Sec. 5) and the slack iteration (Sec. 6), as implemented by SchedCAT's `RTAGedf`
//! (native/src/edf/rta.cpp) with its defaults: minimum fixpoint step 0 and at most 25 rounds.
//!
//! For task `k` with slacks `s_i` (initially 0) and window `R`:
//!
//! `W_i(R) = floor(L / T_i) C_i + min(C_i, L mod T_i)`, `L = R + D_i - C_i - s_i` (Eq. (8));
//! `I_i^k = N C_i + min(C_i, max(0, D_k - N T_i - s_i))`, `N = floor(D_k / T_i)` (Eq. (9));
//! `R_k = C_k + floor((1/m) sum_{i != k} min(W_i(R_k), I_i^k, R_k - C_k + 1))`,
//!
//! the least fixed point from `R_k = C_k`, failing once it exceeds `D_k`. A round computes the
//! fixed point of every task in input order; a task that passes sets `s_k = D_k - R_k` at once
//! (later tasks of the same round see it). Rounds stop when every task passes (schedulable),
//! when a round changes no slack, or after the round limit (not schedulable).
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1` (SchedCAT's preconditions).
//! 3. Preemptive global EDF on `m` identical cores, no overheads; jobs independent.
//! 4. Discrete time: all releases happen at integer nanoseconds (the `+ 1` relies on it).
//!
//! The round limit is a count of rounds, not a time budget: the verdict never depends on
//! machine speed.
//!
//! Cost: O(R F n^2) for n tasks: at most R = 25 rounds, each solving n fixed points of F
//! steps (pseudo-polynomial: F grows with D_k / min T_i, far fewer with [`least_fixed_point`]),
//! each step a sum over every other task.

use super::common::{check_preconditions, edf_interference};
use super::fixpoint::{least_fixed_point, sawtooth, workload_lower_bound, Piece};
use crate::{SporadicTask, Verdict};

/// SchedCAT's default round limit for `RTAGedf`.
pub const DEFAULT_MAX_ROUNDS: u32 = 25;

/// G-EDF response-time analysis on `m` cores with SchedCAT's defaults (at most 25 rounds).
/// When schedulable, the verdict carries the response-time bounds `R_k`.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    is_schedulable_with_rounds(tasks, m, DEFAULT_MAX_ROUNDS)
}

/// As [`is_schedulable`] with another round limit; 0 means no limit (slacks only grow, so the
/// iteration still ends).
pub fn is_schedulable_with_rounds(tasks: &[SporadicTask], m: usize, max_rounds: u32) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    let n = tasks.len();
    let mut slack = vec![0u64; n];
    let mut response = vec![0u64; n];
    let mut edf_bound = vec![0u128; n];
    let mut round = 0u32;
    let mut updated = true;
    let mut schedulable = n == 0;
    let mut failing = None;
    while updated && !schedulable && (max_rounds == 0 || round < max_rounds) {
        round += 1;
        schedulable = true;
        updated = false;
        failing = None;
        for k in 0..n {
            match fixed_point(tasks, &slack, k, m, &mut edf_bound) {
                Some(r) => {
                    response[k] = r;
                    let s = tasks[k].deadline_ns() - r;
                    if s != slack[k] {
                        slack[k] = s;
                        updated = true;
                    }
                }
                None => {
                    schedulable = false;
                    failing.get_or_insert(k);
                }
            }
        }
    }
    if schedulable {
        Verdict::yes().with_response_times(crate::durations(response))
    } else {
        Verdict::no(failing)
    }
}

/// The least fixed point of the recurrence for task `k`, `None` if it exceeds `D_k`.
/// `edf_bound` is scratch space for the `I_i^k`, which do not depend on `R`. The fixed point is
/// the one SchedCAT's plain iteration from `C_k` reaches (with minimum step 0), found in fewer
/// steps by [`least_fixed_point`].
fn fixed_point(
    tasks: &[SporadicTask],
    slack: &[u64],
    k: usize,
    m: usize,
    edf_bound: &mut [u128],
) -> Option<u64> {
    let tk = &tasks[k];
    for (i, ti) in tasks.iter().enumerate() {
        edf_bound[i] = edf_interference(ti, tk.deadline_ns(), slack[i]);
    }
    let span = |r: u64, i: usize| {
        let ti = &tasks[i];
        u128::from(r) + u128::from(ti.deadline_ns() - ti.wcet_ns() - slack[i])
    };
    let edf_bound = &*edf_bound;
    let others = || (0..tasks.len()).filter(move |&i| i != k);
    let piece = |r: u64| {
        let cap = Piece::ramp(i128::from(r - tk.wcet_ns()) + 1);
        others().fold(Piece::constant(0), |sum, i| {
            let workload = sawtooth(span(r, i), tasks[i].wcet_ns(), tasks[i].period_ns());
            let edf = Piece::constant(edf_bound[i] as i128);
            sum.add(workload.min_rising(edf).min_rising(cap))
        })
    };
    let bound = |from: u64, to: u64, at: u64| {
        let cap = i128::from(at - tk.wcet_ns()) + 1;
        others()
            .map(|i| {
                let (ti, window) = (&tasks[i], (span(from, i), span(to, i)));
                let workload = workload_lower_bound(
                    window.0,
                    window.1,
                    span(at, i),
                    ti.wcet_ns(),
                    ti.period_ns(),
                );
                workload.min(edf_bound[i] as i128).min(cap)
            })
            .sum()
    };
    least_fixed_point(
        tk.wcet_ns(),
        tk.wcet_ns(),
        tk.deadline_ns(),
        m,
        piece,
        bound,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn two_heavy_tasks_and_a_light_one() {
        let tasks = [t(20, 30, 30), t(20, 30, 30), t(5, 30, 30)];
        let verdict = is_schedulable(&tasks, 2);
        assert!(verdict.schedulable);
        // Task 2 waits for at most 20 (both heavy jobs), so its bound is at least 25.
        let r = verdict.response_times.unwrap();
        assert!((25..=30).contains(&r[2].as_nanos()), "{r:?}");
        assert!(r[0].as_nanos() >= 20);
    }

    #[test]
    fn rounds_are_counted_not_timed() {
        let tasks = [t(2, 3, 3), t(2, 3, 3), t(2, 3, 3)];
        assert!(!is_schedulable_with_rounds(&tasks, 2, 0).schedulable);
        assert!(!is_schedulable_with_rounds(&tasks, 2, 1).schedulable);
    }
}
