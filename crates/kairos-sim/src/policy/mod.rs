//! The policy contract shared by the simulator and (later) the runtime, and the policies.
//!
//! The engine owns time, jobs and cores. At every scheduling point (after all releases,
//! completions and aborts of an instant were applied, or at a time the policy asked to be woken)
//! it calls [`Policy::schedule`] with a read-only [`View`]; the policy returns a [`Dispatch`],
//! the job each core should run from now on. The engine applies it, counts preemptions,
//! migrations and context switches, and rejects impossible decisions with
//! [`crate::SimError::InvalidDispatch`].
//!
//! Policies: [`global::Global`] and [`partitioned::Partitioned`] combined with a job order
//! ([`edf::Edf`], [`fixed_priority::FixedPriority`], [`edzl::Edzl`]).

pub mod edf;
pub mod edzl;
pub mod fixed_priority;
pub mod global;
pub mod partitioned;
mod placement;

use crate::job::JobState;
use crate::SimError;
use kairos_model::{Instant, Task, Workload};

/// What a policy sees at a scheduling point.
pub struct View<'a> {
    pub now: Instant,
    pub cores: usize,
    /// Every released, unfinished job, in no particular order.
    pub jobs: &'a [JobState],
    pub tasks: &'a [Task],
}

/// A policy's decision: for each core, the index (into [`View::jobs`]) of the job to run.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub cores: Vec<Option<usize>>,
    /// Call the policy again at this instant even if no job event happens (EDZL's zero-laxity
    /// instants, later: budgets and table boundaries).
    pub wake_at: Option<Instant>,
}

/// A scheduling policy.
pub trait Policy {
    /// Short name used in reports (`gedf`, `pfp`, ...).
    fn name(&self) -> &'static str;

    /// Called once before the run; may refuse the workload (e.g. a task without a core).
    fn prepare(&mut self, _workload: &Workload) -> Result<(), SimError> {
        Ok(())
    }

    /// Called at every scheduling point; returns the job for each core.
    fn schedule(&mut self, view: &View<'_>) -> Dispatch;

    /// Things the user should know about how the policy set itself up (after `prepare`).
    fn notices(&self, _workload: &Workload) -> Vec<String> {
        Vec::new()
    }
}

/// A job's position in a policy's order: compared lexicographically, smaller runs first.
pub type OrderKey = (u64, u64, u64, u64);

/// Orders jobs by importance: a smaller key runs first. Keys must be total (no ties between
/// distinct jobs) so every run is deterministic; see `docs/simulate.md`.
pub trait JobOrder {
    fn name(&self) -> &'static str;

    /// Called once before the run.
    fn prepare(&mut self, _workload: &Workload) {}

    /// The key of `job` at `now`.
    fn key(&self, job: &JobState, now: Instant) -> OrderKey;

    /// An instant at which the order of waiting jobs may change without any job event.
    fn wake_at(
        &self,
        _view: &View<'_>,
        _waiting: &mut dyn Iterator<Item = &JobState>,
    ) -> Option<Instant> {
        None
    }
}

/// The policies the CLI offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    GlobalEdf,
    PartitionedEdf,
    GlobalFp,
    PartitionedFp,
    GlobalEdzl,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 5] = [
        PolicyKind::GlobalEdf,
        PolicyKind::PartitionedEdf,
        PolicyKind::GlobalFp,
        PolicyKind::PartitionedFp,
        PolicyKind::GlobalEdzl,
    ];

    /// The CLI name.
    pub fn cli_name(self) -> &'static str {
        match self {
            PolicyKind::GlobalEdf => "gedf",
            PolicyKind::PartitionedEdf => "pedf",
            PolicyKind::GlobalFp => "gfp",
            PolicyKind::PartitionedFp => "pfp",
            PolicyKind::GlobalEdzl => "edzl",
        }
    }

    pub fn from_cli_name(name: &str) -> Option<PolicyKind> {
        PolicyKind::ALL.into_iter().find(|k| k.cli_name() == name)
    }

    /// A fresh policy object; fixed-priority policies use `priorities`.
    pub fn build(self, priorities: fixed_priority::PriorityOrder) -> Box<dyn Policy> {
        use fixed_priority::FixedPriority;
        match self {
            PolicyKind::GlobalEdf => Box::new(global::Global::new("gedf", edf::Edf)),
            PolicyKind::PartitionedEdf => Box::new(partitioned::Partitioned::new("pedf", edf::Edf)),
            PolicyKind::GlobalFp => {
                Box::new(global::Global::new("gfp", FixedPriority::new(priorities)))
            }
            PolicyKind::PartitionedFp => Box::new(partitioned::Partitioned::new(
                "pfp",
                FixedPriority::new(priorities),
            )),
            PolicyKind::GlobalEdzl => Box::new(global::Global::new("edzl", edzl::Edzl)),
        }
    }
}
