//! Where an engine's jobs come from: what each job of a task must execute, when the task's next
//! job arrives, the budget a policy sees in each criticality mode, and the run's framing.
//!
//! An engine is the same for every kind of system; a source is what differs between a periodic
//! or sporadic workload ([`WorkloadJobs`]) and a mixed-criticality table run
//! ([`crate::table::TableJobs`], whose jobs are drawn with overruns and live inside
//! hyper-periods). Sources live beside the contract so that the simulator and the runtime draw
//! the same jobs.

use crate::draws::{ExecutionTimeModel, JobDraws};
use kairos_model::{Duration, Task};

/// The jobs of a run, drawn per `(task, job)`. Time is exact: only the work is hidden from
/// policies, everything else here is what a real scheduler knows as well.
pub trait JobSource {
    /// The work of job `number` of task `task` (index) in ns: what it executes before it
    /// completes. Called once per job, in release order.
    fn work(&mut self, task: usize, spec: &Task, number: u64) -> Duration;

    /// The gap between the release of job `number` of `task` and the next one.
    fn inter_arrival(&mut self, task: usize, spec: &Task, number: u64) -> Duration;

    /// Names of the criticality levels, lowest first (one unnamed level for a plain workload).
    fn levels(&self) -> Vec<String> {
        Vec::new()
    }

    /// The budget of a job of `task` in criticality mode `mode`: what the policy's view shows.
    fn budget(&self, _task: usize, spec: &Task, _mode: usize) -> Duration {
        spec.wcet
    }

    /// The length of a frame, if jobs never outlive the frame they are released in (a
    /// hyper-period of a table run). At each frame boundary, after the instant's misses are
    /// recorded, the engine forgets the previous frame's unfinished jobs: each of them has
    /// already missed its deadline, which is at most the boundary.
    fn frame(&self) -> Option<Duration> {
        None
    }

    /// Whether a release at the end instant of the run happens: `true` for the closed window
    /// `[0, D]` (SimSo's convention), `false` for `[0, D)` (a table run of one hyper-period
    /// releases nothing of the next).
    fn releases_at_end(&self) -> bool {
        true
    }
}

/// Jobs of a periodic or sporadic workload, drawn from the run's seed ([`crate::draws`]).
pub struct WorkloadJobs(JobDraws);

impl WorkloadJobs {
    pub fn new(seed: u64, model: ExecutionTimeModel) -> Self {
        WorkloadJobs(JobDraws::new(seed, model))
    }
}

impl JobSource for WorkloadJobs {
    fn work(&mut self, task: usize, spec: &Task, number: u64) -> Duration {
        self.0.execution_time(task, spec, number)
    }

    fn inter_arrival(&mut self, task: usize, spec: &Task, number: u64) -> Duration {
        self.0.inter_arrival(task, spec, number)
    }
}
