//! Exact EDF test on one processor: the processor-demand criterion, searched with QPA.
//!
//! F. Zhang and A. Burns, "Schedulability analysis for real-time systems with EDF scheduling",
//! IEEE Transactions on Computers 58(9), 2009: the processor-demand criterion with its two
//! upper bounds on the interval to check, and the Quick Processor-demand Analysis (QPA). The
//! demand bound function is that of S. Baruah, L. Rosier and R. Howell, "Algorithms and
//! complexity concerning the preemptive scheduling of periodic, real-time tasks on one
//! processor", Real-Time Systems 2(4), 1990. The labels (h), (La), (Lb), (QPA) are ours:
//!
//! ```text
//! (h)   h(t) = sum_{D_i <= t} (floor((t - D_i) / T_i) + 1) C_i
//! ```
//!
//! A sporadic task set is EDF-schedulable iff U <= 1 and h(t) <= t at every absolute deadline
//! t < L, with L = min(L_a, L_b) when U < 1 and L = L_b when U = 1:
//!
//! ```text
//! (La)  L_a = max{ D_1 - T_1, ..., D_n - T_n, sum_i (T_i - D_i) U_i / (1 - U) }
//! (Lb)  L_b = least w > 0 with w = sum_i ceil(w / T_i) C_i   (synchronous busy period)
//! ```
//!
//! QPA visits only some deadlines, from the largest below L downwards (d_min = min_i D_i):
//!
//! ```text
//! (QPA) t <- max{ d_i | d_i < L }
//!       while h(t) <= t and h(t) > d_min:
//!           if h(t) < t: t <- h(t) else: t <- max{ d_i | d_i < t }
//!       schedulable iff h(t) <= d_min
//! ```
//!
//! Assumptions and choices:
//! 1. One processor, preemptive EDF, no blocking, no overheads; exact for sporadic and for
//!    synchronous periodic sets.
//! 2. U <= 1 is decided exactly ([`super::utilization`]); U <= 1 with every D_i >= T_i is
//!    schedulable at once (h(t) <= U t).
//! 3. L_a is rounded *up* (numerator rounded up, 1 - U rounded down in 64-bit fixed point);
//!    any upper bound on L keeps the test exact. L_b is computed exactly, but only while it is
//!    below L_a and for a bounded number of steps when L_a exists (then L = L_a).
//! 4. Time runs in `u128`; a demand that overflows it is reported as "not schedulable" (it
//!    cannot fit any 64-bit window). T_i = 0 or C_i > D_i fails at once with `failing_task`;
//!    otherwise an EDF verdict names no single failing task.

use super::utilization::utilization_at_most_one;
use crate::{SporadicTask, Verdict};

/// The exact EDF test (processor demand, QPA). No response times.
pub fn is_schedulable(tasks: &[SporadicTask]) -> Verdict {
    if let Some(v) = trivial_verdict(tasks) {
        return v;
    }
    let Some(l) = upper_bound(tasks) else {
        return Verdict::no(None);
    };
    let d_min = tasks
        .iter()
        .map(|t| u128::from(t.deadline_ns()))
        .min()
        .unwrap_or(0);
    let Some(mut t) = last_deadline_before(tasks, l) else {
        return Verdict::yes(); // no deadline below L: nothing to check
    };
    loop {
        let Some(h) = demand(tasks, t) else {
            return Verdict::no(None);
        };
        if h > t {
            return Verdict::no(None);
        }
        if h <= d_min {
            return Verdict::yes();
        }
        t = if h < t {
            h
        } else {
            match last_deadline_before(tasks, t) {
                Some(d) => d,
                None => return Verdict::yes(),
            }
        };
    }
}

/// The brute-force twin of [`is_schedulable`], for tests: checks h(t) <= t at *every* absolute
/// deadline t <= H + max D_i (H the hyper-period; Baruah, Rosier & Howell 1990: for t >= max D_i,
/// h(t + H) = h(t) + U H, so with U <= 1 no later deadline can fail first),
/// after the exact U <= 1 check. Uses neither L_a, L_b nor QPA's jumps. Cost grows with H: meant
/// for small test sets. If H overflows `u128` it falls back to the synchronous busy period L_b.
pub fn dbf_check_all_deadlines(tasks: &[SporadicTask]) -> Verdict {
    if let Some(v) = trivial_verdict_without_shortcut(tasks) {
        return v;
    }
    let d_max = tasks
        .iter()
        .map(|t| u128::from(t.deadline_ns()))
        .max()
        .unwrap_or(0);
    let hyper = tasks.iter().try_fold(1u128, |h, t| {
        let p = u128::from(t.period_ns());
        (h / gcd(h, p)).checked_mul(p)
    });
    let Some(bound) = hyper
        .and_then(|h| h.checked_add(d_max))
        .or_else(|| busy_period(tasks, None))
    else {
        return Verdict::no(None);
    };
    for task in tasks {
        let (d, p) = (u128::from(task.deadline_ns()), u128::from(task.period_ns()));
        let mut at = d;
        while at <= bound {
            match demand(tasks, at) {
                Some(h) if h <= at => {}
                _ => return Verdict::no(None),
            }
            at += p;
        }
    }
    Verdict::yes()
}

/// Verdicts that need no search: invalid or overloaded sets, and U <= 1 with all D_i >= T_i.
fn trivial_verdict(tasks: &[SporadicTask]) -> Option<Verdict> {
    if let Some(v) = trivial_verdict_without_shortcut(tasks) {
        return Some(v);
    }
    tasks
        .iter()
        .all(|t| t.deadline >= t.period)
        .then(Verdict::yes)
}

fn trivial_verdict_without_shortcut(tasks: &[SporadicTask]) -> Option<Verdict> {
    if let Some(i) = tasks
        .iter()
        .position(|t| t.period.is_zero() || t.wcet > t.deadline)
    {
        return Some(Verdict::no(Some(i)));
    }
    if !utilization_at_most_one(tasks) {
        return Some(Verdict::no(None));
    }
    None
}

/// L = min(L_a, L_b) (L_b alone when L_a is undefined, i.e. U = 1 or not representable).
fn upper_bound(tasks: &[SporadicTask]) -> Option<u128> {
    let l_a = l_a_rounded_up(tasks);
    match (l_a, busy_period(tasks, l_a)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// An upper rounding of L_a (La), `None` when U is too close to 1 for 64-bit fixed point.
/// Called after the exact U <= 1 check, so every C_i <= T_i.
fn l_a_rounded_up(tasks: &[SporadicTask]) -> Option<u128> {
    const ONE: u128 = 1 << 64;
    // U rounded up in fixed point: sum ceil(C_i 2^64 / T_i); C_i <= T_i so each term <= 2^64.
    let u_up = tasks.iter().try_fold(0u128, |acc, t| {
        acc.checked_add((u128::from(t.wcet_ns()) << 64).div_ceil(u128::from(t.period_ns())))
    })?;
    let one_minus_u = ONE.checked_sub(u_up).filter(|&x| x > 0)?;
    // sum (T_i - D_i) U_i, rounded up; the negative terms (D_i > T_i) are dropped (upper bound).
    let numerator = tasks
        .iter()
        .filter(|t| t.deadline < t.period)
        .try_fold(0u128, |acc, t| {
            let slack = u128::from(t.period_ns() - t.deadline_ns());
            acc.checked_add((slack * u128::from(t.wcet_ns())).div_ceil(u128::from(t.period_ns())))
        })?;
    let ratio = match numerator.checked_mul(ONE) {
        Some(scaled) => scaled.div_ceil(one_minus_u),
        None => numerator.div_ceil(one_minus_u).checked_mul(ONE)?,
    };
    let max_d_minus_t = tasks
        .iter()
        .map(|t| u128::from(t.deadline_ns().saturating_sub(t.period_ns())))
        .max()
        .unwrap_or(0);
    Some(ratio.max(max_d_minus_t))
}

/// Fixed-point steps spent on L_b when L_a is known. Near U = 1 the iteration creeps up by
/// about sum C_i per step; past this budget L_a (also a valid bound) is used alone. The
/// budget is a step count, so the verdict never depends on machine speed (and not on the
/// budget either: any upper bound keeps the test exact).
const BUSY_PERIOD_STEPS: u32 = 1_000;

/// L_b (Lb): iterate w <- sum ceil(w / T_i) C_i from sum C_i. With a `cap` (L_a) it gives up
/// (`None`) once w exceeds it or after [`BUSY_PERIOD_STEPS`]; without one it runs to the fixed
/// point, which exists since U <= 1. `None` also on overflow.
fn busy_period(tasks: &[SporadicTask], cap: Option<u128>) -> Option<u128> {
    let mut w = tasks.iter().map(|t| u128::from(t.wcet_ns())).sum::<u128>();
    if w == 0 {
        return Some(0);
    }
    let mut steps = 0u32;
    loop {
        if cap.is_some_and(|c| w > c || steps >= BUSY_PERIOD_STEPS) {
            return None;
        }
        steps = steps.saturating_add(1);
        let next = tasks.iter().try_fold(0u128, |acc, t| {
            let p = u128::from(t.period_ns());
            acc.checked_add(w.div_ceil(p).checked_mul(u128::from(t.wcet_ns()))?)
        })?;
        if next == w {
            return Some(w);
        }
        w = next;
    }
}

/// h(t) (h); `None` on overflow.
fn demand(tasks: &[SporadicTask], t: u128) -> Option<u128> {
    tasks
        .iter()
        .filter(|task| u128::from(task.deadline_ns()) <= t)
        .try_fold(0u128, |acc, task| {
            let jobs = jobs_until(t - u128::from(task.deadline_ns()), task.period_ns()) + 1;
            acc.checked_add(jobs.checked_mul(u128::from(task.wcet_ns()))?)
        })
}

/// max{ d_i | d_i < t } over all absolute deadlines d = k T_i + D_i, if any.
fn last_deadline_before(tasks: &[SporadicTask], t: u128) -> Option<u128> {
    tasks
        .iter()
        .filter(|task| u128::from(task.deadline_ns()) < t)
        .map(|task| {
            let k = jobs_until(t - u128::from(task.deadline_ns()) - 1, task.period_ns());
            k * u128::from(task.period_ns()) + u128::from(task.deadline_ns())
        })
        .max()
}

/// floor(x / p), `p > 0`, in 64-bit division when x fits (several times faster than 128-bit
/// division, which dominates QPA's inner loop).
fn jobs_until(x: u128, p: u64) -> u128 {
    match u64::try_from(x) {
        Ok(x) => u128::from(x / p),
        Err(_) => x / u128::from(p),
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    #[test]
    fn huge_and_degenerate_values_do_not_panic() {
        let m = u64::MAX;
        for set in [
            vec![task_ns(m, m, m)],
            vec![task_ns(m / 2, m / 2, m), task_ns(m / 2, m / 2, m)],
            vec![task_ns(m / 2, m / 2 + 1, m), task_ns(m / 3, m / 2, m)],
            vec![task_ns(0, 0, 0)],
            vec![task_ns(0, 0, 1), task_ns(1, 1, 2)],
            vec![],
        ] {
            assert_eq!(
                is_schedulable(&set).schedulable,
                dbf_check_all_deadlines(&set).schedulable,
                "{set:?}"
            );
        }
    }
}
