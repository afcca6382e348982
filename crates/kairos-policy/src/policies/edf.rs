//! Earliest Deadline First (Liu & Layland, "Scheduling algorithms for multiprogramming in a
//! hard-real-time environment", JACM 1973): the job with the earliest absolute deadline runs
//! first. Ties: earlier release (FIFO, so equal deadlines never preempt each other), then lower
//! task index, then earlier job.

use super::core_order::CoreOrder;
use super::order::{JobOrder, Precedence};
use crate::job::JobView;
use kairos_model::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct Edf;

impl JobOrder for Edf {
    fn name(&self) -> &'static str {
        "edf"
    }

    fn is_static(&self) -> bool {
        true
    }

    fn core_order(&self) -> Option<CoreOrder> {
        Some(CoreOrder::Deadline)
    }

    fn precedence(&self, job: &JobView, _now: Instant) -> Precedence {
        Precedence::new([
            job.absolute_deadline.as_nanos(),
            job.release.as_nanos(),
            job.id.task as u64,
            job.id.number,
        ])
    }
}
