//! EDZL, Earliest Deadline until Zero Laxity (Lee, "Earliest deadline scheduling with zero
//! laxity", 1994; Cirinei & Baker, "EDZL scheduling analysis", ECRTS 2007): jobs are ordered by
//! EDF until a waiting job's laxity reaches zero; from then on it outranks every job with
//! positive laxity.
//!
//! Laxity is taken against the job's budget left (WCET minus execution received), what a real
//! scheduler knows, never against the execution time a simulation drew: with shorter actual
//! execution times the simulated and the real EDZL then make the same decisions. A waiting
//! job's laxity shrinks with time while a running job's stays constant, so the order can change
//! with no job event: the policy asks to be woken when the first job it leaves waiting reaches
//! zero laxity. Ties, within zero-laxity jobs and within the others: earliest deadline, then
//! earlier release, then lower task index.

use super::order::{JobOrder, Precedence};
use crate::job::JobView;
use kairos_model::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct Edzl;

impl JobOrder for Edzl {
    fn name(&self) -> &'static str {
        "edzl"
    }

    fn precedence(&self, job: &JobView, now: Instant) -> Precedence {
        let positive_laxity = u64::from(job.laxity(now) > 0);
        Precedence::new([
            positive_laxity,
            job.absolute_deadline.as_nanos(),
            job.release.as_nanos(),
            job.id.task as u64,
        ])
    }

    fn reorder_at(
        &self,
        now: Instant,
        waiting: &mut dyn Iterator<Item = &JobView>,
    ) -> Option<Instant> {
        waiting
            .filter(|job| job.laxity(now) > 0)
            .map(JobView::zero_laxity_at)
            .min()
    }
}
