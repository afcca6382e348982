//! A managed system: one real-time task beside best-effort programs on a multicore Linux, with
//! the temporal partition of every core, as the resource-management model of the OS-latency
//! study (a model of intra- and inter-core interference and OS-induced latencies in Linux
//! PREEMPT_RT for mixed time-criticality), sections III and IV: the RT task is the tuple
//! (A, D, W) (section III-A); every core's enforcing period P is split into S_RT, S_BE and the
//! idle time S_I (equations 1-2); the RT job runs to completion (free execution, figure 1a) or
//! gets S_RT per P and may span periods (constrained execution, figure 1b, equation 6).
//! Files: [`crate::managed_load`]; the manager itself: `kairos manage`.

use crate::time::Duration;
use crate::workload::CoreId;
use serde::Serialize;

/// The whole system `kairos manage` runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ManagedSystem {
    pub name: Option<String>,
    pub cores: usize,
    pub manager: Manager,
    pub rt: RtTask,
    /// One allocation per core, indexed by core.
    pub allocations: Vec<Allocation>,
    pub best_effort: Vec<BestEffort>,
}

/// How the manager enforces and adapts the partition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Manager {
    pub execution: Execution,
    /// The enforcing period P, the same on every core (equation 2).
    pub period: Duration,
    /// The manager keeps the predicted T_RT within the deadline minus this.
    pub margin: Duration,
    /// The least time between two allocation changes (the study: changing allocations costs).
    pub hold: Duration,
    /// After this long without a change, the manager raises a share to measure what it costs
    /// (zero: never).
    pub probe: Duration,
    /// Results of `kairos platform interference` (`interference.json`), the model's prior.
    pub interference: Option<String>,
}

/// The two resource-management controls of the study's figure 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Execution {
    /// The RT job runs to completion; P is the RT inter-arrival period.
    Free,
    /// The RT task gets S_RT per P; a job may span periods.
    Constrained,
}

/// The real-time task τ_RT = (A, D, W) and the work its jobs do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RtTask {
    pub name: String,
    pub core: CoreId,
    /// A: the inter-arrival period.
    pub period: Duration,
    /// D: the relative deadline.
    pub deadline: Duration,
    /// W: the WCET in isolation; `None`: measured at start-up.
    pub wcet: Option<Duration>,
    /// What one job calls again and again: an OS-latency service (`proc`, `mmap`, ...) or
    /// `memory`.
    pub work: String,
    pub size: JobSize,
}

/// How much work one job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobSize {
    /// As many calls as take this long in isolation (calibrated at start-up).
    Length(Duration),
    Calls(u64),
}

/// One core's share of the enforcing period: S_RT + S_BE + S_I = P (equation 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Allocation {
    /// S_RT: the RT reservation (the RT core only).
    pub rt: Duration,
    /// S_BE: the best-effort budget; on the RT core and under management, the most allowed.
    pub be: Duration,
}

impl Allocation {
    /// S_I = P - S_RT - S_BE, `None` when the allocation exceeds the period.
    pub fn idle(&self, period: Duration) -> Option<Duration> {
        period.checked_sub(self.rt)?.checked_sub(self.be)
    }
}

/// A best-effort program on one core.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BestEffort {
    pub name: String,
    pub core: CoreId,
    pub work: BestEffortWork,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BestEffortWork {
    /// A command, restarted whenever it ends; a work unit is one completed run.
    Command(Vec<String>),
    /// stress-ng stressors (`fork,mmap`); a work unit is one bogo operation.
    Stress(Vec<String>),
}

/// The smallest CFS bandwidth period and quota the kernel accepts.
pub const MIN_CFS: Duration = Duration::from_millis(1);
/// The largest CFS bandwidth period the kernel accepts.
pub const MAX_CFS_PERIOD: Duration = Duration::from_secs(1);

impl ManagedSystem {
    /// The manager's target for T_RT: D minus the margin.
    pub fn target(&self) -> Duration {
        self.rt.deadline.saturating_sub(self.manager.margin)
    }

    /// Periods of P in one deadline (a constrained job's supply is S_RT times this).
    pub fn periods_per_deadline(&self) -> u64 {
        self.rt.deadline.as_nanos() / self.manager.period.as_nanos().max(1)
    }
}

/// What a job's calls can be: the one-process services of the study's suite, or `memory`, a
/// cache-sensitive pointer chase (shared-cache interference, the study's section IV-A).
pub const JOB_WORKS: [&str; 8] = [
    "syscall", "sem", "fcntl", "signal", "mmap", "proc", "fs", "memory",
];

/// The stressors kairos drives: stress-ng's kernel-heavy ones of the study (section V), a plain
/// CPU load and memory bandwidth (`stream`), and kairos's own [`KAIROS_STRESSORS`].
pub const STRESSORS: [&str; 8] = [
    "cpu",
    "fork",
    "mmap",
    "vm",
    "syscall",
    "switch",
    "stream",
    "static-key",
];

/// The stressors kairos runs itself instead of stress-ng: `static-key` flips a kernel static
/// key, and every flip's code patching interrupts every other core.
pub const KAIROS_STRESSORS: [&str; 1] = ["static-key"];
