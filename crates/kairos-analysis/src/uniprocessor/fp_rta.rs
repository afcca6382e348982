//! Fixed-priority response-time analysis on one processor.
//!
//! M. Joseph and P. Pandya, "Finding response times in a real-time system", The Computer
//! Journal 29(5), 1986; N. Audsley, A. Burns, M. Richardson, K. Tindell and A. Wellings,
//! "Applying new scheduling theory to static priority pre-emptive scheduling", Software
//! Engineering Journal 8(5), 1993. The response time of task k is the least fixed point of
//! (the labels (R), (W) are ours)
//!
//! ```text
//! (R)  R_k = C_k + sum_{i in hp(k)} ceil(R_k / T_i) C_i
//! ```
//!
//! found by iterating from R_k = C_k until a fixed point or R_k > D_k. For deadlines beyond
//! periods (D_k > T_k) several jobs of task k can be pending; the level-k busy period analysis
//! of J. Lehoczky, "Fixed priority scheduling of periodic task sets with arbitrary deadlines",
//! RTSS 1990, in the iterative form of K. Tindell, A. Burns and A. Wellings, "An extendible
//! approach for analyzing fixed priority hard real-time tasks", Real-Time Systems 6(2), 1994,
//! examines the jobs q = 0, 1, ... of the busy period:
//!
//! ```text
//! (W)  w_k(q) = (q + 1) C_k + sum_{i in hp(k)} ceil(w_k(q) / T_i) C_i
//!      R_k(q) = w_k(q) - q T_k,   R_k = max_q R_k(q),
//!      stop at the first q with w_k(q) <= (q + 1) T_k (the busy period ends)
//! ```
//!
//! Assumptions:
//! 1. One processor, preemptive fixed priorities, distinct priorities given by an order; jobs of
//!    one task run in release order (as in the simulator).
//! 2. No blocking, no release jitter, no overheads.
//! 3. The verdict and the response times are exact for synchronous periodic task sets (the
//!    critical instant), and sufficient and necessary for sporadic ones.
//!
//! Integer arithmetic in `u128` with checked operations; a demand that does not fit 128 bits is
//! far beyond any 64-bit deadline and is reported as "not schedulable". A task with T = 0 is not
//! a sporadic task and is reported as failing. Before iterating, the utilization of hep(k) is
//! compared with 1 exactly: if it exceeds 1 while every higher-priority task passed, the backlog
//! of task k grows without bound, so task k fails (the iteration would find R_k > D_k too, but
//! possibly only after very many steps). With U(hep(k)) <= 1 the fixed points exist and the
//! level-k busy period is finite, so the analysis terminates. Its cost is pseudo-polynomial: the
//! number of steps grows with D_k / min T_i, with 1 / (1 - U(hep(k))), and, for D_k > T_k, with
//! the number of hp releases in the level-k busy period: runs of jobs of task k that complete
//! between two hp releases are skipped in one step (an exact acceleration, see `stretch`).

use super::utilization::utilization_at_most_one;
use crate::{SporadicTask, Verdict};
use kairos_model::Priority;
use std::cmp::Ordering;

/// Response-time analysis for the priority order `priority_order` (task indices, most important
/// first; it must list every task exactly once, otherwise the verdict is "not schedulable" with
/// no failing task). Tasks are examined in priority order; `failing_task` is the most important
/// task whose response time exceeds its deadline. When schedulable, `response_times` holds R_k
/// in input order.
pub fn response_times(tasks: &[SporadicTask], priority_order: &[usize]) -> Verdict {
    if !is_permutation(priority_order, tasks.len()) {
        return Verdict::no(None);
    }
    let by_priority: Vec<SporadicTask> = priority_order.iter().map(|&i| tasks[i]).collect();
    let overloaded_from = first_overloaded_prefix(&by_priority);
    let mut r = vec![0u64; tasks.len()];
    for (rank, &k) in priority_order.iter().enumerate() {
        if overloaded_from == Some(rank) {
            return Verdict::no(Some(k));
        }
        match response_time(tasks, &priority_order[..rank], k, 0) {
            Some((r_k, _)) => r[k] = r_k,
            None => return Verdict::no(Some(k)),
        }
    }
    Verdict::yes().with_response_times(crate::durations(r))
}

/// RTA under rate-monotonic priorities (Liu & Layland 1973).
pub fn rate_monotonic(tasks: &[SporadicTask]) -> Verdict {
    response_times(tasks, &rate_monotonic_order(tasks))
}

/// RTA under deadline-monotonic priorities (Leung & Whitehead 1982).
pub fn deadline_monotonic(tasks: &[SporadicTask]) -> Verdict {
    response_times(tasks, &deadline_monotonic_order(tasks))
}

/// Rate-monotonic order: shorter period first, ties by lower index (as the simulator).
pub fn rate_monotonic_order(tasks: &[SporadicTask]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| (tasks[i].period, i));
    order
}

/// Deadline-monotonic order: shorter relative deadline first, ties by lower index (as the
/// simulator).
pub fn deadline_monotonic_order(tasks: &[SporadicTask]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| (tasks[i].deadline, i));
    order
}

/// The order of explicit priorities, one per task (`None`: below every task that has one),
/// ties by lower index, as the simulator's `PriorityOrder::Explicit`.
pub fn explicit_order(priorities: &[Option<Priority>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..priorities.len()).collect();
    order.sort_by(|&a, &b| {
        let by_priority = match (priorities[a], priorities[b]) {
            (Some(pa), Some(pb)) if pa.is_higher_than(pb) => Ordering::Less,
            (Some(pa), Some(pb)) if pb.is_higher_than(pa) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            _ => Ordering::Equal,
        };
        by_priority.then(a.cmp(&b))
    });
    order
}

fn is_permutation(order: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n
        && order
            .iter()
            .all(|&i| i < n && !std::mem::replace(&mut seen[i], true))
}

/// The first rank r with U(by_priority[..=r]) > 1, by binary search (prefix sums only grow).
fn first_overloaded_prefix(by_priority: &[SporadicTask]) -> Option<usize> {
    if utilization_at_most_one(by_priority) {
        return None;
    }
    // Invariant: the prefix ..=hi is overloaded; every prefix ending before lo is not.
    let (mut lo, mut hi) = (0, by_priority.len() - 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if utilization_at_most_one(&by_priority[..=mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// R_k given that U(hep(k)) <= 1, or `None` when R_k > D_k (or the demand is unbounded or not
/// representable); with it, w_k(0), the first job's completion in the busy period.
///
/// The iteration for w_k(0) starts at max(C_k, `start`), which must not exceed the least fixed
/// point: 0 always qualifies, and so does w_k(0) of task k under a subset of `hp` (its
/// interference is no larger at any w, so its least fixed point is no larger; iterating a
/// monotone function upwards from below the least fixed point still reaches it). That is what
/// lets a core re-check its tasks after taking one more, from where their analysis stood.
pub(crate) fn response_time(
    tasks: &[SporadicTask],
    hp: &[usize],
    k: usize,
    start: u128,
) -> Option<(u64, u128)> {
    let task = tasks[k];
    if task.period.is_zero() {
        return None;
    }
    let (c_k, d_k, t_k) = (
        u128::from(task.wcet_ns()),
        u128::from(task.deadline_ns()),
        u128::from(task.period_ns()),
    );
    let mut r_k: u128 = 0;
    let mut q: u128 = 0;
    // w_k(0) starts at C_k (or later, see above); w_k(q + 1) starts at w_k(q) + C_k, which is
    // below its least fixed point, so the iteration still converges to the least one.
    let mut w = c_k.max(start);
    let mut first = None;
    loop {
        let base = q.checked_add(1)?.checked_mul(c_k)?;
        let release = q.checked_mul(t_k)?;
        loop {
            let next = base.checked_add(interference(tasks, hp, w)?)?;
            if next.saturating_sub(release) > d_k {
                return None;
            }
            if next == w {
                break;
            }
            w = next;
        }
        let w_0 = *first.get_or_insert(w);
        r_k = r_k.max(w - release);
        if w <= release.checked_add(t_k)? {
            // r_k <= D_k, a u64.
            return Some((u64::try_from(r_k).ok()?, w_0));
        }
        // Here C_k > 0 and C_k < T_k (C_k = 0 or C_k = T_k, which forces zero hp load under
        // U(hep(k)) <= 1, end the busy period at q = 0). Skip the stretch of jobs that complete
        // before the next hp release: see `stretch`.
        let (skipped, ends) = stretch(tasks, hp, w, w - release, c_k, t_k);
        if ends {
            return Some((u64::try_from(r_k).ok()?, w_0));
        }
        q = q.checked_add(skipped)?;
        w = w.checked_add(skipped.checked_mul(c_k)?)?;
    }
}

/// Acceleration of the busy-period walk (exact; not in the papers, proved here). The
/// interference I(x) = sum_{i in hp} ceil(x / T_i) C_i is constant for x in [w, B] with B the
/// first release of an hp task (C_i > 0) at or after w = w_k(q). So every x = w + j C_k <= B
/// solves job (q + j)'s equation, and it is the least solution (w_k(q + j) >= w_k(q) + j C_k):
/// w_k(q + j) = w + j C_k for j <= J = floor((B - w) / C_k), and R_k(q + j) = R_k(q) - j (T_k -
/// C_k) only decreases, so those jobs raise neither max R_k nor a miss. The busy period ends at
/// the first j with R_k(q + j) <= T_k. Returns (J + 1, whether it ended within the stretch);
/// the walk resumes at job q + J + 1 from w + (J + 1) C_k, past B. Each step now passes at
/// least one hp release, instead of one job of task k: a low-priority task with a tiny period
/// behind hp tasks with huge WCETs no longer takes (busy period / T_k) steps.
fn stretch(
    tasks: &[SporadicTask],
    hp: &[usize],
    w: u128,
    r_q: u128,
    c_k: u128,
    t_k: u128,
) -> (u128, bool) {
    let slack = t_k.saturating_sub(c_k);
    if c_k == 0 || slack == 0 || r_q <= t_k {
        return (1, false); // not reached (see the caller): a plain one-job step
    }
    let next_release = hp
        .iter()
        .filter(|&&i| !tasks[i].wcet.is_zero())
        .map(|&i| {
            let t_i = u128::from(tasks[i].period_ns());
            w.div_ceil(t_i).saturating_mul(t_i)
        })
        .min()
        .unwrap_or(u128::MAX);
    let j_max = (next_release - w) / c_k;
    let j_end = (r_q - t_k).div_ceil(slack);
    (j_max.saturating_add(1), j_end <= j_max)
}

/// sum_{i in hp} ceil(w / T_i) C_i; `None` on overflow. Every T_i > 0 (hp tasks passed first).
pub(crate) fn interference(tasks: &[SporadicTask], hp: &[usize], w: u128) -> Option<u128> {
    // 64-bit divisions when w fits (always, below any 64-bit deadline): several times
    // cheaper than 128-bit ones, and this loop is where the analysis spends its time.
    if let Ok(w) = u64::try_from(w) {
        return hp.iter().try_fold(0u128, |acc, &i| {
            let jobs = u128::from(w.div_ceil(tasks[i].period_ns()));
            acc.checked_add(jobs * u128::from(tasks[i].wcet_ns()))
        });
    }
    hp.iter().try_fold(0u128, |acc, &i| {
        let t_i = u128::from(tasks[i].period_ns());
        acc.checked_add(
            w.div_ceil(t_i)
                .checked_mul(u128::from(tasks[i].wcet_ns()))?,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    #[test]
    fn invalid_orders_are_rejected_without_panic() {
        let ts = [task_ns(1, 4, 4), task_ns(1, 4, 4)];
        assert!(!response_times(&ts, &[0]).schedulable);
        assert!(!response_times(&ts, &[0, 0]).schedulable);
        assert!(!response_times(&ts, &[0, 2]).schedulable);
        assert!(response_times(&ts, &[1, 0]).schedulable);
    }

    #[test]
    fn huge_values_do_not_panic() {
        let ts = [
            task_ns(u64::MAX, u64::MAX, 1),
            task_ns(u64::MAX, u64::MAX, u64::MAX),
            task_ns(0, 0, 0),
        ];
        assert_eq!(response_times(&ts, &[0, 1, 2]).failing_task, Some(0));
        assert_eq!(response_times(&ts, &[2, 1, 0]).failing_task, Some(2));
        let big = [
            task_ns(1, u64::MAX, 2),
            task_ns(u64::MAX / 4, u64::MAX, u64::MAX),
        ];
        assert_eq!(response_times(&big, &[0, 1]).failing_task, None);
        // hp load exactly 1 and a long deadline: fails at once instead of iterating to D.
        let full = [task_ns(1, 1, 1), task_ns(1, u64::MAX, u64::MAX)];
        assert_eq!(response_times(&full, &[0, 1]), Verdict::no(Some(1)));
    }

    /// Level-k busy period of 10^12 jobs: hp = (C 10^12, T 10^13), k = (C 1, T 2, D 10^13).
    /// w_k(0) = 1 + 10^12 = R_k(0); then w_k(q) = w_k(0) + q until the hp release at 10^13, so
    /// R_k(q) = 10^12 + 1 - q and the busy period ends at q = 10^12 - 1 (R = 2 <= T_k).
    /// The stretch skip covers it in one step; R_k = 10^12 + 1.
    #[test]
    fn long_busy_period_is_skipped_not_walked() {
        let e12 = 1_000_000_000_000;
        let ts = [task_ns(e12, 10 * e12, 10 * e12), task_ns(1, 10 * e12, 2)];
        let v = response_times(&ts, &[0, 1]);
        assert_eq!(crate::nanos_of(&v.response_times), Some(vec![e12, e12 + 1]));
    }
}
