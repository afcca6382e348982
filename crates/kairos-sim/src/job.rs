//! Jobs as the engine tracks them: the [`JobView`] a policy sees, and beside it what only the
//! engine knows (the drawn execution time left, overhead not yet paid).

use kairos_model::{Duration, Instant, Part};
use kairos_policy::{JobId, JobView, PartWork};

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
    /// The drawn work of each part, for an imprecise job run by parts; `remaining` is then the
    /// current part's.
    pub parts: Option<PartWork>,
    /// When the current part began.
    pub part_began: Instant,
}

impl JobWork {
    /// A job released at `at` with `remaining` to execute in its first part.
    pub(crate) fn new(at: Instant, remaining: Duration, parts: Option<PartWork>) -> JobWork {
        JobWork {
            remaining,
            overhead_left: Duration::ZERO,
            segment_start: at,
            stopped: false,
            exhausted: false,
            parts,
            part_began: at,
        }
    }

    /// Whether the current part is the job's last: its end completes the job.
    pub(crate) fn in_last_part(&self, view: &JobView) -> bool {
        self.parts.is_none() || view.part == Part::Windup
    }
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
        part: Part::Mandatory,
        budget,
        executed: Duration::ZERO,
        running_on: None,
        last_core: None,
    }
}
