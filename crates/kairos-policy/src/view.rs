//! The read-only picture of the system a policy decides from.

use crate::job::{JobId, JobView};
use crate::server::ServerView;
use kairos_model::{Instant, Task};

/// What a policy sees at a scheduling point.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub now: Instant,
    /// Cores `0..cores`.
    pub cores: usize,
    /// The system's criticality mode (an index into its levels; always 0 for a workload of
    /// one criticality level). Budgets in `jobs` are those of this mode.
    pub mode: usize,
    /// Every released, unfinished job, in no particular order.
    pub jobs: &'a [JobView],
    /// The workload's tasks: `JobId::task` indexes this.
    pub tasks: &'a [Task],
    /// The servers the policy declared ([`crate::Policy::servers`]), indexed by
    /// [`crate::ServerId`]; empty for a policy without servers.
    pub servers: &'a [ServerView],
}

impl View<'_> {
    /// The job with this id, if it is released and unfinished.
    pub fn job(&self, id: JobId) -> Option<&JobView> {
        self.jobs.iter().find(|j| j.id == id)
    }
}
