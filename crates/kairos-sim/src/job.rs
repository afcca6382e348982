//! What the engine keeps of a job beside what the contract keeps
//! ([`kairos_policy::contract::Jobs`]): the drawn execution time left and the overhead not yet
//! paid, which no policy sees, and where its current execution segment began.

use kairos_model::{Duration, Instant};

/// The engine's side of a released, unfinished job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobWork {
    /// Work left in the current part (the whole job's, for a job not run by parts), including
    /// any overhead still to pay before real progress.
    pub remaining: Duration,
    /// Overhead charged at the last switch-in that the job has not yet paid.
    pub overhead_left: Duration,
    /// When the current execution segment began (valid while running).
    pub segment_start: Instant,
    /// When the job was last placed on a core.
    pub placed_at: Instant,
    /// Until when the job stands still wherever it is placed: it was moved off a core in an
    /// outage that took it, whose end it waits for ([`crate::outages`]).
    pub held_until: Instant,
}

impl JobWork {
    /// A job released at `at` with `remaining` to execute in its first part.
    pub(crate) fn new(at: Instant, remaining: Duration) -> JobWork {
        JobWork {
            remaining,
            overhead_left: Duration::ZERO,
            segment_start: at,
            placed_at: at,
            held_until: Instant::ZERO,
        }
    }
}
