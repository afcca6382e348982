//! Earliest Deadline First (Liu & Layland, JACM 1973): the job with the earliest absolute
//! deadline runs first. Ties: earlier release (FIFO, so equal deadlines never preempt each
//! other), then lower task index, then earlier job.

use super::{JobOrder, OrderKey};
use crate::job::JobState;
use kairos_model::Instant;

#[derive(Clone, Copy, Debug, Default)]
pub struct Edf;

impl JobOrder for Edf {
    fn name(&self) -> &'static str {
        "edf"
    }
    fn key(&self, job: &JobState, _now: Instant) -> OrderKey {
        (
            job.absolute_deadline.as_nanos(),
            job.release.as_nanos(),
            job.task as u64,
            job.index,
        )
    }
}
