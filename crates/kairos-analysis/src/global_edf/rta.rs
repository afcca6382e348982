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
//! Cost: O(R F n^2) for n tasks in the worst case: at most R = 25 rounds, each solving n fixed
//! points of F steps (pseudo-polynomial: F grows with D_k / min T_i, far fewer with
//! `least_fixed_point`), each step a sum over every other task. In practice a fixed point
//! costs one workload evaluation per other task to start, a few additions per task while a
//! lower bound is searched for, and then workload evaluations only for the tasks whose
//! workload may still bind, mostly once each (see `fixed_point`): on 10,000 tasks on 64
//! cores, two rounds, about 6 s per round on the 2-vCPU development machine.
//!
//! The fixed points of a round are solved one after the other, not in parallel: each reads the
//! slacks its predecessors in the round just set, and a round in which every task passes
//! returns its bounds as they stand. Solving a round from the previous round's slacks alone
//! (Jacobi style) gives larger or equal intermediate bounds, so it can change the reported
//! bounds and, under the round limit, the verdict. The passes over all tasks before a search,
//! which could run in parallel, are a small part of a fixed point's cost (measured: no gain).

use super::common::{check_preconditions, edf_interference};
use super::fixpoint::{
    least_fixed_point, sawtooth, workload_lower_bound, CappedLevels, LazySum, Piece,
};
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
    let mut scratch = Scratch::default();
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
            match fixed_point(tasks, &slack, k, m, &mut scratch) {
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

/// Buffers reused from one fixed point to the next.
#[derive(Default)]
struct Scratch {
    /// The `I_i^k`, which do not depend on `R`.
    edf_bound: Vec<u128>,
    /// The terms whose workload may still bind, the others, and the lower bounds of the
    /// former (see [`fixed_point`]).
    terms: LazySum,
    levels: CappedLevels,
    lower: CappedLevels,
}

/// The least fixed point of the recurrence for task `k`, `None` if it exceeds `D_k`. The fixed
/// point is the one SchedCAT's plain iteration from `C_k` reaches (with minimum step 0), found
/// in fewer steps by [`least_fixed_point`].
///
/// Workloads never decrease, so for `R >= C_k` each term is at least
/// `min(v_i, R - C_k + 1)` with `v_i = min(W_i(C_k), I_i^k)`, exactly that when
/// `W_i(C_k) >= I_i^k` (most tasks). The recurrence with those lower terms is summed without
/// evaluating any workload ([`CappedLevels`]) and its least fixed point, at most the true one,
/// is where the search proper starts: past the stretch where every term is still capped, so
/// that each remaining term is evaluated about once ([`LazySum`]).
fn fixed_point(
    tasks: &[SporadicTask],
    slack: &[u64],
    k: usize,
    m: usize,
    scratch: &mut Scratch,
) -> Option<u64> {
    let tk = &tasks[k];
    let (ck, dk) = (tk.wcet_ns(), tk.deadline_ns());
    let Scratch {
        edf_bound,
        terms,
        levels,
        lower,
    } = scratch;
    edf_bound.clear();
    edf_bound.extend(
        tasks
            .iter()
            .zip(slack)
            .map(|(ti, &s_i)| edf_interference(ti, dk, s_i)),
    );
    let edf_bound = &*edf_bound;
    let span = |r: u64, i: usize| {
        let ti = &tasks[i];
        u128::from(r) + u128::from(ti.deadline_ns() - ti.wcet_ns() - slack[i])
    };
    // min(W_i(R), I_i^k, R - C_k + 1) as a piece.
    let term = |i: usize, r: u64| {
        let cap = Piece::ramp(i128::from(r - ck) + 1);
        let workload = sawtooth(span(r, i), tasks[i].wcet_ns(), tasks[i].period_ns());
        let edf = Piece::constant(edf_bound[i] as i128);
        if workload.value >= edf.value {
            // The workload never falls back below `I_i^k`: the term is min(I_i^k, cap) for
            // good (skipping the general minimum's branches).
            return edf.min(cap);
        }
        workload.min_rising(edf).min_rising(cap)
    };
    levels.reset(ck);
    lower.reset(ck);
    let workload_may_bind = |&i: &usize| {
        let start = sawtooth(span(ck, i), tasks[i].wcet_ns(), tasks[i].period_ns()).value;
        if start >= edf_bound[i] as i128 {
            levels.push(edf_bound[i]);
            return false;
        }
        lower.push(start as u128);
        true
    };
    let others = (0..tasks.len()).filter(|&i| i != k);
    terms.reset(others.filter(workload_may_bind), dk);
    let below = |r: u64| levels.at(r).add(lower.at(r));
    let start = least_fixed_point(ck, ck, dk, m, below, |_, _, _| 0)?;
    let piece = |r: u64| terms.at(r, &term).add(levels.at(r));
    let bound = |from: u64, to: u64, at: u64| {
        let cap = i128::from(at - ck) + 1;
        (0..tasks.len())
            .filter(|&i| i != k)
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
    least_fixed_point(ck, start, dk, m, piece, bound)
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
