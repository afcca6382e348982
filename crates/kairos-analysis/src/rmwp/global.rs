//! G-RMWP on `m` cores: the verdict of Bertogna and Cirinei's response-time analysis for global
//! fixed priorities ("Response-time analysis for globally scheduled symmetric multiprocessor
//! platforms", RTSS 2007; `crate::global_fp::bertogna_cirinei`) in rate-monotonic order with
//! `C = m + w`, and the optional deadlines `OD_i = D_i - R_i^w` of [`super`], where `R_i^w` is
//! the least fixed point of the same recurrence with the task's own execution `w_i`:
//!
//! `R = w_i + floor((1/m) sum_{j in hp(i)} min(W_j(R), R - w_i + 1))`,
//!
//! `W_j` the slack-aware workload bound of the higher-priority task `j` (its response bound
//! `R_j` from the verdict's analysis). The `m` most important tasks never wait: `R_i^w = w_i`.
//! A given optional deadline later than `OD_i` makes the verdict negative ([`super`]).

use super::{first_unconstrained, honour_given, optional_deadline};
use crate::global_edf::fixpoint::LazySum;
use crate::global_fp::bertogna_cirinei::{self, fixed_point, rate_monotonic_order, Variant};
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;

/// The G-RMWP verdict and optional deadlines of `tasks` on `m` cores (the given ones where
/// safe).
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    if let Some(k) = first_unconstrained(tasks) {
        return Verdict::no(Some(k));
    }
    let order = rate_monotonic_order(tasks);
    let mut verdict = bertogna_cirinei::is_schedulable_with_order(tasks, m, &order, Variant::Paper);
    let mut od = vec![Duration::ZERO; tasks.len()];
    if let Some(response) = &verdict.response_times {
        let response: Vec<u64> = response.iter().map(|r| r.as_nanos()).collect();
        for (rank, &i) in order.iter().enumerate() {
            let r = match rank < m {
                true => Some(tasks[i].windup),
                false => windup_response(tasks, &response, &order[..rank], i, m)
                    .map(Duration::from_nanos),
            };
            od[i] = optional_deadline(&tasks[i], r);
        }
    }
    verdict.optional_deadlines = Some(od);
    honour_given(tasks, verdict)
}

fn windup_response(
    tasks: &[SporadicTask],
    response: &[u64],
    higher: &[usize],
    i: usize,
    m: usize,
) -> Option<u64> {
    let base = tasks[i].windup_ns();
    if base == 0 {
        return Some(0);
    }
    let mut terms = LazySum::default();
    fixed_point(
        tasks,
        response,
        higher,
        (i, base, base),
        m,
        Variant::Paper,
        &mut terms,
    )
}
