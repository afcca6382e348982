//! A sufficient schedulability test for global EDZL (earliest deadline until zero laxity).
//!
//! Derived from M. Cirinei and T. P. Baker, "EDZL scheduling analysis", ECRTS 2007, pp. 9-18,
//! and T. P. Baker, M. Cirinei and M. Bertogna, "EDZL scheduling analysis", Real-Time Systems
//! 40(3):264-289, 2008: a miss under EDZL needs `m + 1` jobs at zero laxity at once, so it is
//! enough to show that at most `m` tasks can ever reach zero laxity, with BCL-style interference
//! bounds refined by slack (Bertogna, Cirinei, Lipari, IEEE TPDS 20(4), 2009). No public
//! implementation of the published test was found; the theorem below is stated and proved here
//! and backed by simulation (`tests/global_soundness/`).
//!
//! **Theorem 1 (implemented by [`is_schedulable_by_zero_laxity`]).** Let `U` be a set of at
//! most `m` tasks and `s_i >= 0` slacks (`s_i = 0` for `i` in `U`). With the EDF interference
//! bound `E_i^k(s) = N C_i + min(C_i, max(0, D_k - N T_i - s))`, `N = floor(D_k / T_i)`, and the
//! work-conserving workload bound `W_i^k = floor(L / T_i) C_i + min(C_i, L mod T_i)`,
//! `L = D_k + D_i - C_i`, let
//!
//! `J_i^k = E_i^k(s_i)` for `i` not in `U`, `J_i^k = min(W_i^k, E_i^k(0) + C_i)` for `i` in `U`,
//! `S_k = sum_{i != k} min(J_i^k, D_k - C_k)`.
//!
//! If every task `k` not in `U` has `S_k < m (D_k - C_k)` and `s_k <= D_k - C_k - floor(S_k / m)`,
//! the set is schedulable by global EDZL, and no job of a task outside `U` ever reaches zero
//! laxity.
//!
//! *Proof.* Time is discrete. Take the first instant `t` at which a job `J` of a task `k` not in
//! `U` reaches zero laxity or is still pending `D_k - s_k` after its release. Before `t` only
//! jobs of `U` ever have zero laxity; EDZL runs zero-laxity jobs first, and there are at most `m`
//! of them, so none waits at zero laxity and no deadline is missed before `t` (at most one
//! pending job per task, as `D <= T`). `J` has waited `w` units in `[r, t)` with
//! `w = D_k - C_k` or `w = D_k - C_k - s_k + 1`; in each, `m` other jobs ran, each either at zero
//! laxity (a task of `U`) or with a deadline no later than `J`'s. A task outside `U` thus
//! interferes only through jobs with deadlines in `J`'s window, at most `E_i^k(s_i)` (its
//! carried-in job ends `s_i` before its deadline, as `t` is the first violation); a task of `U`
//! through those plus one later-deadline job, at most `E_i^k(0) + C_i`, and never more than its
//! workload `W_i^k` in a window of length `D_k`. Summing, `m w <= sum_i min(J_i^k, w)
//! <= S_k` (as `w <= D_k - C_k`), which contradicts `S_k < m (D_k - C_k)` for the first kind of
//! `w` and `S_k < m (floor(S_k / m) + 1) <= m w` for the second. So no such instant exists; at
//! every instant at most `|U| <= m` jobs have zero laxity, and a miss needs a zero-laxity job
//! that waits, i.e. `m + 1` of them. QED.
//!
//! The search: start with `U` empty and zero slacks; iterate slacks as in BCL iterative (tasks in
//! input order, slacks updated in place, only ever growing, which keeps them consistent); when a
//! round changes nothing and some tasks outside `U` still fail, move them into `U`, reset the
//! slacks and start over; give up once `|U| > m`.
//!
//! **Theorem 2 (dominance).** EDZL schedules every job set that global EDF schedules
//! (S. Park et al., "Comparison of deadline-based scheduling algorithms for periodic real-time
//! tasks on multiprocessor", IEICE Trans. Inf. & Syst. E88-D(3), 2005; restated by Cirinei &
//! Baker 2007). So [`is_schedulable`] also accepts any set that one of the G-EDF tests of
//! [`crate::global_edf`] accepts.
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1`.
//! 3. Preemptive global EDZL on `m` identical cores, no overheads, jobs independent; any tie
//!    breaking among equal deadlines and among zero-laxity jobs.
//! 4. Discrete time: releases at integer nanoseconds.
//!
//! Cost: O(K R n^2) for the zero-laxity iteration, K <= m + 1 the rounds that grow `U` and R
//! the slack rounds in each; when it fails, plus that of the G-EDF tests it falls back on.

use crate::global_edf::common::{check_preconditions, edf_interference, window_workload};
use crate::global_edf::GlobalEdfTest;
use crate::{SporadicTask, Verdict};

/// Global EDZL on `m` cores: Theorem 1, or any G-EDF test by Theorem 2. A failure names the
/// first task that Theorem 1 could not keep from reaching zero laxity when the `m + 1`-th such
/// task appeared.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    let verdict = is_schedulable_by_zero_laxity(tasks, m);
    if verdict.schedulable || check_preconditions(tasks, m).is_err() {
        return verdict;
    }
    match is_schedulable_by_edf_dominance(tasks, m) {
        dominated if dominated.schedulable => dominated,
        _ => verdict,
    }
}

/// Theorem 2 alone: some G-EDF test of [`crate::global_edf`] accepts; a failure is the first
/// test's (G-EDF's own failing task).
pub fn is_schedulable_by_edf_dominance(tasks: &[SporadicTask], m: usize) -> Verdict {
    let mut verdicts = GlobalEdfTest::ALL
        .into_iter()
        .map(|test| test.run(tasks, m));
    let first = verdicts.next().expect("G-EDF has tests");
    match first.schedulable || verdicts.any(|v| v.schedulable) {
        true => Verdict::yes(),
        false => first,
    }
}

/// Theorem 1 alone (see the module documentation).
pub fn is_schedulable_by_zero_laxity(tasks: &[SporadicTask], m: usize) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    let n = tasks.len();
    let mut in_u = vec![false; n];
    let mut u_size = 0;
    loop {
        let failing = failing_tasks(tasks, m, &in_u);
        if failing.is_empty() {
            return Verdict::yes();
        }
        u_size += failing.len();
        if u_size > m {
            return Verdict::no(failing.first().copied());
        }
        for k in failing {
            in_u[k] = true;
        }
    }
}

/// Runs the slack iteration for a fixed `U`; returns the tasks outside `U` that still fail when
/// no slack changes any more (empty if all pass).
fn failing_tasks(tasks: &[SporadicTask], m: usize, in_u: &[bool]) -> Vec<usize> {
    let n = tasks.len();
    let mut slack = vec![0u64; n];
    loop {
        let mut failing = Vec::new();
        let mut updated = false;
        for k in (0..n).filter(|&k| !in_u[k]) {
            let tk = &tasks[k];
            let laxity = u128::from(tk.deadline_ns() - tk.wcet_ns());
            let interference: u128 = tasks
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != k)
                .map(|(i, ti)| bound(ti, tk, in_u[i], slack[i]).min(laxity))
                .sum();
            if interference < (m as u128).saturating_mul(laxity) {
                let s = (laxity - interference / m as u128) as u64; // <= D_k - C_k
                if s > slack[k] {
                    slack[k] = s;
                    updated = true;
                }
            } else {
                failing.push(k);
            }
        }
        if failing.is_empty() || !updated {
            return failing;
        }
    }
}

/// `J_i^k` of Theorem 1.
fn bound(ti: &SporadicTask, tk: &SporadicTask, in_u: bool, slack_i: u64) -> u128 {
    if in_u {
        let edf = edf_interference(ti, tk.deadline_ns(), 0) + u128::from(ti.wcet_ns());
        window_workload(ti, tk.deadline_ns(), 0).min(edf)
    } else {
        edf_interference(ti, tk.deadline_ns(), slack_i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn up_to_m_zero_laxity_tasks_are_fine() {
        // C = D: always at zero laxity. m of them fit, m + 1 do not.
        let m_tasks = [t(5, 5, 10), t(5, 5, 10), t(1, 20, 20)];
        assert!(is_schedulable_by_zero_laxity(&m_tasks, 2).schedulable);
        let too_many = [t(5, 5, 10), t(5, 5, 10), t(5, 5, 10)];
        assert!(!is_schedulable(&too_many, 2).schedulable);
    }

    #[test]
    fn beats_global_edf_tests_on_a_classic_set() {
        // Dhall-like: m light tasks and a heavy one. G-EDF misses (the heavy job starts at 2 and
        // ends at 12 > 11), so no G-EDF test may accept; EDZL runs it from its zero-laxity
        // instant 1 and meets every deadline.
        let tasks = [t(2, 10, 10), t(2, 10, 10), t(10, 11, 11)];
        assert!(GlobalEdfTest::ALL
            .iter()
            .all(|g| !g.run(&tasks, 2).schedulable));
        assert!(is_schedulable_by_zero_laxity(&tasks, 2).schedulable);
    }

    #[test]
    fn rejects_bad_input_without_panicking() {
        assert_eq!(is_schedulable(&[t(2, 1, 4)], 2), Verdict::no(Some(0)));
        assert!(!is_schedulable(&[t(1, 1, 1)], 0).schedulable);
        assert!(is_schedulable(&[], 0).schedulable);
    }
}
