//! Response-time analysis for global fixed-priority scheduling.
//!
//! M. Bertogna and M. Cirinei, "Response-time analysis for globally scheduled symmetric
//! multiprocessor platforms", RTSS 2007, pp. 149-160: the slack-aware workload bound (Eq. (8),
//! which is Eq. (4) with the carried-in job finishing `s_i` before its deadline) and the
//! fixed-priority response-time recurrence (Theorem for FP, Sec. 4). Tasks are analysed from
//! the most important down; for task `k` with higher-priority set `hp(k)` and slacks
//! `s_i = D_i - R_i` of the tasks already analysed:
//!
//! `W_i(x) = floor(L / T_i) C_i + min(C_i, L - floor(L / T_i) T_i)`, `L = x + D_i - C_i - s_i`;
//! `R_k = C_k + floor((1/m) sum_{i in hp(k)} min(W_i(R_k), R_k - C_k + 1))`,
//!
//! the least fixed point from `R_k = C_k`; task `k` fails once it exceeds `D_k`. The `m` most
//! important tasks have `R_k = C_k` (fewer than `m` tasks can never delay them).
//!
//! [`Variant::Paper`] is the recurrence above. [`Variant::SchedCat`] drops the cap
//! `R_k - C_k + 1` on each term, as SchedCAT's Python `fp/bertogna.py` does (the verdict its
//! `BCL_FP_RM` oracle key records). Without the cap each term can only be larger, so the
//! SchedCAT variant accepts a subset of what the paper's test accepts; both are sound. Which
//! oracle sets the cap changes is listed in `docs/analysis-oracle.md`.
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1` (no set above it is schedulable anyway).
//! 3. Preemptive global fixed-priority scheduling on `m` identical cores, one distinct priority
//!    per task given by `order` (most important first), no overheads; jobs independent.
//! 4. Discrete time: all releases happen at integer nanoseconds (the `+ 1` relies on it).
//!
//! Cost: O(F n^2) for n tasks in the worst case: one fixed point of F steps per task
//! (pseudo-polynomial, see `least_fixed_point`), each step a sum over its higher-priority
//! tasks. Each search starts from the largest wait `R_j - C_j` of a higher-priority task with
//! `C_j <= C_k`, a lower bound of the fixed point (`super::warm_start`), so F is usually one
//! or two steps; a step re-evaluates only the terms whose piece ended (`LazySum`).

use super::warm_start::WarmStart;
use crate::global_edf::common::check_preconditions;
use crate::global_edf::fixpoint::{
    least_fixed_point, sawtooth, workload_lower_bound, LazySum, Piece,
};
use crate::{SporadicTask, Verdict};

/// Whether each interference term is capped at `R_k - C_k + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Bertogna & Cirinei RTSS 2007 as published: terms capped at `R_k - C_k + 1`.
    Paper,
    /// SchedCAT's `fp/bertogna.py`: no cap (more pessimistic, still sound).
    SchedCat,
}

/// Rate-monotonic order: task indices by increasing period, ties by input index (the order
/// SchedCAT's stable sort by period gives).
pub fn rate_monotonic_order(tasks: &[SporadicTask]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| (tasks[i].period, i));
    order
}

/// The published test in rate-monotonic order. When schedulable, the verdict carries the
/// response-time bounds (input order); otherwise it names the first task (by priority) that
/// failed.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    is_schedulable_with_order(tasks, m, &rate_monotonic_order(tasks), Variant::Paper)
}

/// SchedCAT's variant (no cap) in rate-monotonic order: the `BCL_FP_RM` oracle key.
pub fn is_schedulable_schedcat_rm(tasks: &[SporadicTask], m: usize) -> Verdict {
    is_schedulable_with_order(tasks, m, &rate_monotonic_order(tasks), Variant::SchedCat)
}

/// The test for an explicit priority `order` (task indices, most important first; it must be a
/// permutation of `0..tasks.len()`, else "not schedulable" naming no task).
pub fn is_schedulable_with_order(
    tasks: &[SporadicTask],
    m: usize,
    order: &[usize],
    variant: Variant,
) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    if !super::is_permutation(order, tasks.len()) {
        return Verdict::no(None);
    }
    let mut response = vec![0u64; tasks.len()];
    let mut warm = WarmStart::new(tasks);
    let mut terms = LazySum::default();
    let (ordered, ranks) = super::by_priority(tasks, order);
    let mut ordered_response = vec![0u64; tasks.len()];
    for (rank, &k) in order.iter().enumerate() {
        let tk = &tasks[k];
        let start = tk.wcet_ns().saturating_add(warm.wait_below(tk.wcet_ns()));
        let r = if rank < m {
            Some(tk.wcet_ns())
        } else if start > tk.deadline_ns() {
            None
        } else {
            let (higher, search) = (&ranks[..rank], (rank, tk.wcet_ns(), start));
            fixed_point(
                &ordered,
                &ordered_response,
                higher,
                search,
                m,
                variant,
                &mut terms,
            )
        };
        match r {
            Some(r) => {
                (response[k], ordered_response[rank]) = (r, r);
                warm.record(tk.wcet_ns(), r - tk.wcet_ns());
            }
            None => return Verdict::no(Some(k)),
        }
    }
    Verdict::yes().with_response_times(crate::durations(response))
}

/// The least fixed point `>= start` for task `k`, `None` once above `D_k`: the point the plain
/// iteration from `C_k` reaches when `start` is at most that point ([`super::warm_start`]),
/// found in fewer steps by [`least_fixed_point`], each step re-evaluating only the terms whose
/// piece ended ([`LazySum`], a buffer kept between searches). `base` is the execution of task
/// `k` itself: `C_k`, or only its wind-up part for the optional deadlines of G-RMWP
/// ([`crate::rmwp`]), whose recurrence is the same with `C_k` replaced by `w_k`.
pub(crate) fn fixed_point(
    tasks: &[SporadicTask],
    response: &[u64],
    higher: &[usize],
    (k, base, start): (usize, u64, u64),
    m: usize,
    variant: Variant,
    terms: &mut LazySum,
) -> Option<u64> {
    let tk = &tasks[k];
    let span = |x: u64, i: usize| {
        let ti = &tasks[i];
        let slack = ti.deadline_ns() - response[i];
        u128::from(x) + u128::from(ti.deadline_ns() - ti.wcet_ns() - slack)
    };
    // W_i(x), capped at x - base + 1 as published, as a piece.
    let term = |i: usize, x: u64| {
        let workload = sawtooth(span(x, i), tasks[i].wcet_ns(), tasks[i].period_ns());
        match variant {
            Variant::Paper => workload.min_rising(Piece::ramp(i128::from(x - base) + 1)),
            Variant::SchedCat => workload,
        }
    };
    terms.reset(higher.iter().copied(), tk.deadline_ns());
    let piece = |x: u64| terms.at(x, &term);
    let bound = |from: u64, to: u64, at: u64| {
        let cap = i128::from(at - base) + 1;
        higher
            .iter()
            .map(|&i| {
                let (ti, window) = (&tasks[i], (span(from, i), span(to, i)));
                let workload = workload_lower_bound(
                    window.0,
                    window.1,
                    span(at, i),
                    ti.wcet_ns(),
                    ti.period_ns(),
                );
                match variant {
                    Variant::Paper => workload.min(cap),
                    Variant::SchedCat => workload,
                }
            })
            .sum()
    };
    least_fixed_point(base, start, tk.deadline_ns(), m, piece, bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn top_m_tasks_run_at_once() {
        let tasks = [t(5, 10, 10), t(5, 10, 10)];
        assert_eq!(
            crate::nanos_of(&is_schedulable(&tasks, 2).response_times),
            Some(vec![5, 5])
        );
    }

    #[test]
    fn third_task_waits_for_both() {
        // m = 2, two tasks (4, 10) first; task (3, 20): x = 3 -> W = min(4, ...) each.
        let tasks = [t(4, 10, 10), t(4, 10, 10), t(3, 20, 20)];
        let paper = is_schedulable(&tasks, 2);
        let schedcat = is_schedulable_schedcat_rm(&tasks, 2);
        assert!(paper.schedulable && schedcat.schedulable);
        let (rp, rs) = (
            paper.response_times.unwrap(),
            schedcat.response_times.unwrap(),
        );
        assert!(rp[2] <= rs[2] && rp[2].as_nanos() >= 7, "{rp:?} {rs:?}");
    }

    #[test]
    fn orders_must_be_permutations() {
        let tasks = [t(1, 10, 10), t(1, 10, 10)];
        assert!(!is_schedulable_with_order(&tasks, 1, &[0, 0], Variant::Paper).schedulable);
        assert!(is_schedulable_with_order(&tasks, 1, &[1, 0], Variant::Paper).schedulable);
    }

    #[test]
    fn rate_monotonic_ties_keep_input_order() {
        let tasks = [t(1, 20, 20), t(1, 10, 10), t(1, 20, 20)];
        assert_eq!(rate_monotonic_order(&tasks), vec![1, 0, 2]);
    }
}
