//! BCL: the interference test of Bertogna, Cirinei and Lipari for global EDF.
//!
//! M. Bertogna, M. Cirinei and G. Lipari, "Improved schedulability analysis of EDF on
//! multiprocessor platforms", ECRTS 2005, pp. 209-218, Theorem 7 (Eq. (8)), as implemented by
//! SchedCAT's `BCLGedf` (native/src/edf/bcl.cpp). With `lambda_k = C_k / D_k`, the number of
//! jobs of `i` with deadline inside a window of length `D_k` that ends at a deadline,
//! `N_i^k = floor((D_k - D_i) / T_i) + 1` if `D_i <= D_k` and 0 otherwise, and
//!
//! `beta_i^k = (N_i^k C_i + min(C_i, max(0, D_k - N_i^k T_i))) / D_k`,
//!
//! a task set is schedulable if for every task `k`
//!
//! `sum_{i != k} min(beta_i^k, 1 - lambda_k) < m (1 - lambda_k)`, or the sum equals
//! `m (1 - lambda_k)` and some `i != k` has `0 < beta_i^k <= 1 - lambda_k`.
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1` (SchedCAT's preconditions).
//! 3. Preemptive global EDF on `m` identical cores, no overheads; jobs independent.
//!
//! Exact: multiplied by `D_k` every quantity is an integer (`u128`), so the comparisons are
//! exact integer comparisons.
//!
//! Cost: O(n^2) for n tasks (each task's condition sums over every task).

use super::common::check_preconditions;
use crate::{SporadicTask, Verdict};

/// BCL (ECRTS 2005) test for global EDF on `m` cores; a failure names the first task `k`
/// whose condition does not hold.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    match (0..tasks.len()).find(|&k| !task_condition_holds(tasks, k, m)) {
        Some(k) => Verdict::no(Some(k)),
        None => Verdict::yes(),
    }
}

/// `D_k beta_i^k`: the interference bound of BCL 2005 in time units.
fn interference(ti: &SporadicTask, tk: &SporadicTask) -> u128 {
    if ti.deadline_ns() > tk.deadline_ns() {
        // No job of i lies entirely in the window; only a carried-in part, at most C_i.
        return u128::from(ti.wcet_ns().min(tk.deadline_ns()));
    }
    let jobs = u128::from((tk.deadline_ns() - ti.deadline_ns()) / ti.period_ns()) + 1;
    let covered = jobs * u128::from(ti.period_ns());
    let rest = u128::from(tk.deadline_ns()).saturating_sub(covered);
    jobs * u128::from(ti.wcet_ns()) + rest.min(u128::from(ti.wcet_ns()))
}

fn task_condition_holds(tasks: &[SporadicTask], k: usize, m: usize) -> bool {
    let tk = &tasks[k];
    let laxity = u128::from(tk.deadline_ns() - tk.wcet_ns()); // D_k (1 - lambda_k)
    let mut sum: u128 = 0;
    let mut small_beta_exists = false;
    for (i, ti) in tasks.iter().enumerate() {
        if i == k {
            continue;
        }
        let beta = interference(ti, tk);
        sum += beta.min(laxity);
        small_beta_exists |= 0 < beta && beta <= laxity;
    }
    // n terms each at most 2^64: no overflow for any realistic n; m * laxity below 2^128 too.
    let bound = (m as u128).saturating_mul(laxity);
    sum < bound || (small_beta_exists && sum == bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn interference_by_hand() {
        // D_k = 25, T_i = 10, D_i = 10: N = floor(15/10) + 1 = 2 jobs, rest 5 -> 2*3 + 3.
        assert_eq!(interference(&t(3, 10, 10), &t(1, 25, 25)), 9);
        // D_i > D_k: only min(C_i, D_k).
        assert_eq!(interference(&t(7, 30, 30), &t(1, 5, 5)), 5);
    }

    #[test]
    fn equality_needs_a_small_beta() {
        // m = 1 (uniprocessor corner): k = 0, laxity 1; other task beta = 1 -> sum = 1 = bound,
        // and 0 < 1 <= 1, so accepted.
        let tasks = [t(1, 2, 2), t(1, 2, 2)];
        assert!(is_schedulable(&tasks, 1).schedulable);
        // Three tasks of density 2/3 on 2 cores: laxity 1, each beta = 2 > 1 -> sum 2 = bound
        // but no small beta: rejected.
        let heavy = [t(2, 3, 3), t(2, 3, 3), t(2, 3, 3)];
        assert_eq!(is_schedulable(&heavy, 2), Verdict::no(Some(0)));
    }
}
