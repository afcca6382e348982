//! Jobs as the engine tracks them and policies see them.

use kairos_model::{Duration, Instant};

/// A released, unfinished job. Policies read these through [`crate::policy::View`]; only the
/// engine changes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobState {
    /// Index of the task in the workload.
    pub task: usize,
    /// Job number within its task, from 0.
    pub index: u64,
    pub release: Instant,
    pub absolute_deadline: Instant,
    /// Work left, including any overhead still to pay before real progress.
    pub remaining: Duration,
    /// The core the job runs on right now, if any.
    pub running_on: Option<usize>,
    /// The core the job last ran on, if it ever ran.
    pub last_core: Option<usize>,
    /// Overhead charged at the last switch-in that the job has not yet paid.
    pub(crate) overhead_left: Duration,
    /// When the current execution segment began (valid while running).
    pub(crate) segment_start: Instant,
}

impl JobState {
    pub(crate) fn new(
        task: usize,
        index: u64,
        release: Instant,
        deadline: Instant,
        work: Duration,
    ) -> Self {
        JobState {
            task,
            index,
            release,
            absolute_deadline: deadline,
            remaining: work,
            running_on: None,
            last_core: None,
            overhead_left: Duration::ZERO,
            segment_start: release,
        }
    }

    /// Laxity at `now`: time to the deadline minus work left (negative means a certain miss).
    pub fn laxity(&self, now: Instant) -> i128 {
        i128::from(self.absolute_deadline.as_nanos())
            - i128::from(now.as_nanos())
            - i128::from(self.remaining.as_nanos())
    }
}
