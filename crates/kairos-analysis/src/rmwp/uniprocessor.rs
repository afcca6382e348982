//! RMWP on one core: the verdict of exact rate-monotonic response-time analysis with
//! `C = m + w` (Joseph and Pandya 1986; `crate::uniprocessor::fp_rta`), and the optional
//! deadlines `OD_i = D_i - R_i^w` of [`super`], where `R_i^w` is the least fixed point of
//!
//! `R = w_i + sum_{j in hp(i)} ceil(R / T_j) (m_j + w_j)`,
//!
//! iterated from `R = w_i` until it is fixed or exceeds `D_i`. Constrained deadlines
//! (`D <= T`), rate-monotonic priorities (shorter period first, ties to the lower index, as the
//! policy ranks them). A given optional deadline later than `OD_i` makes the verdict negative
//! ([`super`]).

use super::{first_unconstrained, honour_given, optional_deadline};
use crate::uniprocessor::fp_rta;
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;

/// The RMWP verdict and optional deadlines of `tasks` on one core (the given ones where safe).
pub fn is_schedulable(tasks: &[SporadicTask]) -> Verdict {
    if let Some(k) = first_unconstrained(tasks) {
        return Verdict::no(Some(k));
    }
    let mut verdict = fp_rta::rate_monotonic(tasks);
    verdict.optional_deadlines = Some(optional_deadlines(tasks));
    honour_given(tasks, verdict)
}

/// `OD_i` of every task as computed (the safe bound), input order.
pub fn optional_deadlines(tasks: &[SporadicTask]) -> Vec<Duration> {
    let order = fp_rta::rate_monotonic_order(tasks);
    let mut od = vec![Duration::ZERO; tasks.len()];
    for (rank, &i) in order.iter().enumerate() {
        let r = windup_response(tasks, &order[..rank], i);
        od[i] = optional_deadline(&tasks[i], r);
    }
    od
}

/// `R_i^w`, `None` once above `D_i`.
pub fn windup_response(tasks: &[SporadicTask], higher: &[usize], i: usize) -> Option<Duration> {
    let (w, deadline) = (
        u128::from(tasks[i].windup_ns()),
        u128::from(tasks[i].deadline_ns()),
    );
    let mut r = w;
    loop {
        let mut next = w;
        for &j in higher {
            let (c, t) = (
                u128::from(tasks[j].wcet_ns()),
                u128::from(tasks[j].period_ns()),
            );
            next = next.checked_add(r.div_ceil(t).checked_mul(c)?)?;
        }
        if next > deadline {
            return None;
        }
        if next == r {
            return u64::try_from(r).ok().map(Duration::from_nanos);
        }
        r = next;
    }
}
