//! What a worker of the user-space dispatcher had of its core over one segment.

use kairos_model::Duration;
use serde::Serialize;

/// The worker's thread CPU time over one segment, the work it did in it (calibrated units, at
/// the core's undisturbed speed) and the time its core's dispatcher was awake meanwhile.
/// CPU time the work does not account for is time the core ran slower than at calibration
/// while the worker held it: the host's (a busy sibling of the host's core, a lower clock) or
/// interrupts'. Wall time that is neither the worker's CPU time nor its dispatcher's is time
/// the core was taken from it: by a thread outside the run, the kernel, or the hypervisor
/// (steal accounting keeps the vCPU's absence out of the thread's CPU time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WorkerTime {
    pub on_cpu: Duration,
    pub work: Duration,
    pub dispatching: Duration,
    /// The segment ran an optional part of an imprecise job, as a best-effort thread: what it
    /// lost is no evidence (the part is cut at its optional deadline whatever it did, and
    /// shares its CPU with the machine's ordinary threads by design).
    pub optional: bool,
}

impl WorkerTime {
    /// The CPU time the work does not account for.
    pub fn slowed(&self) -> Duration {
        self.on_cpu.saturating_sub(self.work)
    }

    /// What a segment of `wall` lost besides the run's own dispatching: the CPU time without
    /// work and the wall time off the CPU that the dispatcher did not take.
    pub fn lost(&self, wall: Duration) -> Duration {
        let taken = (wall.saturating_sub(self.on_cpu)).saturating_sub(self.dispatching);
        self.slowed() + taken
    }
}
