//! BCL iterative: the slack-refined interference test for global EDF.
//!
//! M. Bertogna, M. Cirinei and G. Lipari, "Schedulability analysis of global scheduling
//! algorithms on multiprocessor platforms", IEEE Transactions on Parallel and Distributed
//! Systems 20(4):553-566, 2009, Sec. 5 (iterative slack refinement), with the EDF interference
//! bound of Eq. (17) and the slack update of Eq. (18) (equation numbers as cited by SchedCAT),
//! as implemented by SchedCAT's `BCLIterativeGedf` (native/src/edf/bcl_iterative.cpp, no round
//! limit). Every task starts with slack `s_i = 0`; rounds visit the tasks in input order and
//! update slacks in place:
//!
//! `I_i^k = N C_i + min(C_i, max(0, D_k - N T_i - s_i))`, `N = floor(D_k / T_i)`;
//! `s_k' = D_k - C_k - floor((1/m) sum_{i != k} min(I_i^k, D_k - C_k + 1))`.
//!
//! Task `k` passes a round if `s_k' >= 0`; its slack becomes `s_k'` when that is larger. The set
//! is schedulable as soon as every task passes in one round; it is not when a round changes no
//! slack and some task still fails. Slacks only grow and are bounded by `D`, so this ends.
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1` (SchedCAT's preconditions).
//! 3. Preemptive global EDF on `m` identical cores, no overheads; jobs independent.
//! 4. Discrete time: all releases happen at integer nanoseconds (the `+ 1` above relies on it).
//!
//! Response times: when schedulable, `D_k - s_k` bounds the response time of task `k` (the
//! final slacks are consistent: recomputing any of them gives at least the stored value).
//!
//! Cost: O(R n^2) for n tasks, R the rounds until no slack changes (each round recomputes
//! every slack from a sum over every task).

use super::common::{check_preconditions, edf_interference};
use crate::{SporadicTask, Verdict};

/// BCL iterative test for global EDF on `m` cores. When schedulable, the verdict carries the
/// response-time bounds `D_k - s_k`; otherwise it names the first task that failed the last
/// round.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    let n = tasks.len();
    let mut slack = vec![0u64; n];
    let mut updated = true;
    let mut schedulable = n == 0;
    let mut failing = None;
    while updated && !schedulable {
        schedulable = true;
        updated = false;
        failing = None;
        for k in 0..n {
            match new_slack(tasks, &slack, k, m) {
                Some(s) => {
                    if s > slack[k] {
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
    if !schedulable {
        return Verdict::no(failing);
    }
    let response: Vec<u64> = tasks
        .iter()
        .zip(&slack)
        .map(|(t, s)| t.deadline_ns() - s)
        .collect();
    Verdict::yes().with_response_times(crate::durations(response))
}

/// Eq. (18): the slack task `k` would have, `None` if negative.
fn new_slack(tasks: &[SporadicTask], slack: &[u64], k: usize, m: usize) -> Option<u64> {
    let tk = &tasks[k];
    let cap = u128::from(tk.deadline_ns() - tk.wcet_ns()) + 1;
    let other_work: u128 = tasks
        .iter()
        .zip(slack)
        .enumerate()
        .filter(|&(i, _)| i != k)
        .map(|(_, (ti, &s_i))| edf_interference(ti, tk.deadline_ns(), s_i).min(cap))
        .sum();
    let delay = other_work / m as u128;
    u128::from(tk.deadline_ns() - tk.wcet_ns())
        .checked_sub(delay)
        .map(|s| s as u64) // below D_k, fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn tpds_2009_example_1_passes() {
        // BCL TPDS 2009, Example 1: density test fails, the EDF interference test passes.
        let tasks = [t(20, 30, 30), t(20, 30, 30), t(5, 30, 30)];
        let verdict = is_schedulable(&tasks, 2);
        assert!(verdict.schedulable);
        let r = verdict.response_times.unwrap();
        assert!(r
            .iter()
            .zip(&tasks)
            .all(|(r, t)| *r >= t.wcet && *r <= t.deadline));
    }

    #[test]
    fn overloaded_window_fails() {
        let tasks = [t(2, 3, 3), t(2, 3, 3), t(2, 3, 3)];
        assert_eq!(is_schedulable(&tasks, 2).failing_task, Some(0));
    }
}
