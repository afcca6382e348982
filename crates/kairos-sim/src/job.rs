//! Jobs as the engine tracks them: the [`JobView`] a policy sees, and beside it what only the
//! engine knows (the drawn execution time left, overhead not yet paid).

use kairos_model::{Duration, Instant};
use kairos_policy::{JobId, JobView};

/// The engine's side of a released, unfinished job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobWork {
    /// Work left, including any overhead still to pay before real progress.
    pub remaining: Duration,
    /// Overhead charged at the last switch-in that the job has not yet paid.
    pub overhead_left: Duration,
    /// When the current execution segment began (valid while running).
    pub segment_start: Instant,
    /// The policy stopped it (budget enforcement): it may not run again.
    pub stopped: bool,
    /// Its budget ran out with work left, and the policy was told.
    pub exhausted: bool,
}

/// A new job's view: nothing executed, on no core.
pub(crate) fn released(
    id: JobId,
    release: Instant,
    deadline: Instant,
    budget: Duration,
) -> JobView {
    JobView {
        id,
        release,
        absolute_deadline: deadline,
        budget,
        executed: Duration::ZERO,
        running_on: None,
        last_core: None,
    }
}
