//! Jobs as a policy sees them: a stable identity and what a real scheduler can know.

use kairos_model::{Duration, Instant, Part};

/// The `number`-th job (from 0) of task `task` (an index into the workload's tasks).
///
/// The same job has the same id in the simulator, in the runtime and in traces, so a measured run
/// and its simulation can be compared job by job. It is never an index into a list that shrinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobId {
    pub task: usize,
    pub number: u64,
}

/// A released, unfinished job, as a scheduler running on a real machine knows it.
///
/// It holds the job's budget (its WCET in the current mode) and the execution it received, never the execution time
/// the engine drew for it: a policy that used the true remaining work could not run anywhere
/// but in a simulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobView {
    pub id: JobId,
    pub release: Instant,
    pub absolute_deadline: Instant,
    /// The part executing. Always [`Part::Mandatory`] for a plain task, and for every task
    /// under a policy that does not run parts ([`crate::Policy::runs_parts`]).
    pub part: Part,
    /// What the current part may execute: its task's WCET in the current criticality mode (the
    /// only WCET of a single-criticality task; `m + w` for an imprecise task under a policy
    /// that does not run parts), or the part's WCET when parts run (the optional part's: what
    /// it asks for).
    pub budget: Duration,
    /// Execution the current part received so far, overheads excluded.
    pub executed: Duration,
    /// The core the job runs on right now, if any.
    pub running_on: Option<usize>,
    /// The core the job last ran on, if it ever ran.
    pub last_core: Option<usize>,
}

impl JobView {
    /// Budget not yet used (zero once the job ran its whole budget).
    pub fn budget_left(&self) -> Duration {
        self.budget.saturating_sub(self.executed)
    }

    /// Laxity at `now` against the budget left: the time the job can still wait and, running its
    /// whole budget, finish by its deadline. Negative: it cannot.
    pub fn laxity(&self, now: Instant) -> i128 {
        i128::from(self.absolute_deadline.as_nanos())
            - i128::from(now.as_nanos())
            - i128::from(self.budget_left().as_nanos())
    }

    /// The instant at which the laxity of this job, left waiting, reaches zero (the origin if
    /// its budget is longer than its deadline is far).
    pub fn zero_laxity_at(&self) -> Instant {
        let at = (self.absolute_deadline.as_nanos()).saturating_sub(self.budget_left().as_nanos());
        Instant::from_nanos(at)
    }
}
