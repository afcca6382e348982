//! Servers: budgets every period on allowed cores, the VCPUs of hierarchical scheduling.
//!
//! A policy that schedules through servers declares them once ([`crate::Policy::servers`]);
//! the engine owns their budgets from then on, identically in the simulator and at run time:
//! it replenishes every server at each multiple of its period (from 0), charges budget while a
//! server is placed on a core (a [`ServerKind::Deferrable`] server only while its core runs a
//! job, a [`ServerKind::Periodic`] one whether it runs a job or idles), reports the replenishment
//! and the exhaustion of a placed server, and refuses a decision that places a server without
//! budget, off its cores, or a job on a core whose server may not run it. Budget left at a
//! period's end is lost.

use kairos_model::{Duration, Instant};

pub use kairos_model::ServerKind;

/// A server, by its index in the policy's [`crate::Policy::servers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerId(pub usize);

/// What a server is, as its policy declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    pub name: String,
    pub budget: Duration,
    pub period: Duration,
    /// Cores it may run on, ascending.
    pub cpus: Vec<usize>,
    pub kind: ServerKind,
    /// Tasks (indices into the workload's tasks) whose jobs it may run, ascending.
    pub tasks: Vec<usize>,
}

impl ServerSpec {
    /// Whether the server may run a job of `task`.
    pub fn runs(&self, task: usize) -> bool {
        self.tasks.binary_search(&task).is_ok()
    }

    /// Whether the server may run on `core`.
    pub fn allows(&self, core: usize) -> bool {
        self.cpus.binary_search(&core).is_ok()
    }
}

/// A server as the policy sees it at a scheduling point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerView {
    pub id: ServerId,
    /// Start of its current period (its last replenishment).
    pub replenished_at: Instant,
    /// End of its current period: its next replenishment, and its deadline under EDF.
    pub deadline: Instant,
    /// Budget left in the current period.
    pub budget_left: Duration,
    /// The core it is placed on right now, if any.
    pub running_on: Option<usize>,
    /// The core it was last placed on, if ever.
    pub last_core: Option<usize>,
}
