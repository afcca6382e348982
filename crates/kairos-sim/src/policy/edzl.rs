//! EDZL, Earliest Deadline until Zero Laxity (Lee, "Earliest deadline scheduling with zero
//! laxity", 1994; Cirinei & Baker, ECRTS 2007): jobs are ordered by EDF until a waiting job's
//! laxity reaches zero; from then on it outranks every job with positive laxity.
//!
//! Laxity of a waiting job shrinks with time while a running job's stays constant, so the order
//! can change without any job event: the policy asks to be woken at the earliest instant
//! `deadline - remaining` of a job it leaves waiting. Ties, within zero-laxity jobs and within the
//! others: earliest deadline, then earlier release, then lower task index (job numbers of one
//! task follow release order).

use super::{JobOrder, OrderKey, View};
use crate::job::JobState;
use kairos_model::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct Edzl;

impl JobOrder for Edzl {
    fn name(&self) -> &'static str {
        "edzl"
    }
    fn key(&self, job: &JobState, now: Instant) -> OrderKey {
        let not_zero_laxity = u64::from(job.laxity(now) > 0);
        (
            not_zero_laxity,
            job.absolute_deadline.as_nanos(),
            job.release.as_nanos(),
            job.task as u64,
        )
    }
    fn wake_at(
        &self,
        view: &View<'_>,
        waiting: &mut dyn Iterator<Item = &JobState>,
    ) -> Option<Instant> {
        waiting
            .filter(|job| job.laxity(view.now) > 0)
            .map(|job| job.absolute_deadline - job.remaining)
            .min()
    }
}
