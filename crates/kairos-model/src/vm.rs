//! Virtual machines on a multicore host, as RT-Xen 2.0 schedules them (Xi, Xu, Lu, Phan,
//! Gill, Sokolsky, Lee, "Real-Time Multi-Core Virtual Machine Scheduling in Xen",
//! EMSOFT 2014): domains with their own tasks and guest scheduler, each running on VCPUs
//! (servers: a budget every period, on a set of allowed cores), and one VMM scheduler placing
//! the VCPUs on the cores. Files: [`crate::vm_load`]; analysis: `kairos_analysis::csa`.

use crate::time::Duration;
use crate::workload::{CoreId, Task};
use serde::Serialize;

/// A host and the domains it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmSystem {
    pub name: Option<String>,
    /// Cores the VMM schedules VCPUs on.
    pub cores: usize,
    pub vmm: Vmm,
    pub domains: Vec<Domain>,
}

/// The VMM scheduler and its server semantics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vmm {
    pub scheduler: VmmScheduler,
    /// How VCPUs rank under rt-global and rt-partition.
    pub priority: ServerPriority,
    pub server: ServerKind,
    /// RT-Xen 2.0 decides every quantum (1 ms); `None`: event driven, as upstream RTDS.
    pub quantum: Option<Duration>,
    /// Period of the VCPUs `kairos interface` computes (one for all: harmonic).
    pub vcpu_period: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VmmScheduler {
    /// One run queue for every core.
    RtGlobal,
    /// One run queue per core; each VCPU on its core.
    RtPartition,
    /// Xen's proportional-share credit scheduler (weights and caps).
    Credit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerPriority {
    /// Earliest current period end first.
    Edf,
    /// Shortest period first (deadline monotonic: a VCPU's deadline is its period).
    Dm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerKind {
    /// Budget burns only while the VCPU runs work; an idle VCPU keeps it for later.
    Deferrable,
    /// Budget burns while the VCPU is scheduled, working or idle.
    Periodic,
}

/// How a guest schedules its tasks on its VCPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GuestScheduler {
    Gedf,
    Pedf,
    Gdm,
    Pdm,
}

impl GuestScheduler {
    /// Whether each task is bound to one VCPU.
    pub fn is_partitioned(self) -> bool {
        matches!(self, GuestScheduler::Pedf | GuestScheduler::Pdm)
    }
    pub fn name(self) -> &'static str {
        match self {
            GuestScheduler::Gedf => "gedf",
            GuestScheduler::Pedf => "pedf",
            GuestScheduler::Gdm => "gdm",
            GuestScheduler::Pdm => "pdm",
        }
    }
}

/// One virtual machine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Domain {
    pub name: String,
    pub guest: GuestScheduler,
    /// The guest's tasks; for a partitioned guest `core` is the index of its VCPU.
    pub tasks: Vec<Task>,
    /// Explicit VCPUs, or `None` for `vcpus = "auto"` (computed from the tasks).
    pub vcpus: Option<Vec<Vcpu>>,
    /// Credit scheduler weight (Xen's default 256).
    pub weight: u32,
    /// Credit scheduler cap in percent of one core; 0: none.
    pub cap: u32,
}

/// A VCPU: a server of `budget` every `period` on the cores of `cpus`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vcpu {
    pub name: String,
    pub budget: Duration,
    pub period: Duration,
    /// Cores the VCPU may run on; every core when `None`.
    pub cpus: Option<Vec<CoreId>>,
}

impl Vcpu {
    /// budget / period.
    pub fn bandwidth(&self) -> f64 {
        self.budget.as_nanos() as f64 / self.period.as_nanos() as f64
    }
}

/// Xen's credit defaults, and RTDS's default VCPU period, the default of `vcpu_period`.
pub const DEFAULT_WEIGHT: u32 = 256;
pub const DEFAULT_VCPU_PERIOD: Duration = Duration::from_millis(10);
