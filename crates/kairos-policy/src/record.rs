//! What an engine can record of a run, one [`Step`] per decision: the events it reported, the
//! view it decided from and the decision it applied. The runtime's dispatcher records its steps;
//! replaying them against a fresh policy object (`kairos_sim::replay`) must give the same
//! decisions, which shows a real run made its decisions exactly as the contract says.

use crate::decision::TimerId;
use crate::job::{JobId, JobView};
use kairos_model::{Instant, Part};

/// One event an engine reported to the policy, at its nominal instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reported {
    Completed(JobId, Instant),
    Released(JobId, Instant),
    Timer(TimerId, Instant),
    /// The job's part (the one named) executed all its work; the job is in its next part.
    PartCompleted(JobId, Part, Instant),
}

/// One decision and what led to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The view's `now`.
    pub at: Instant,
    /// The events reported since the previous decision, in the order reported.
    pub events: Vec<Reported>,
    /// The jobs of the view the decision was made from, in view order.
    pub jobs: Vec<JobView>,
    /// The job each core ran from then on.
    pub decision: Vec<Option<JobId>>,
}
