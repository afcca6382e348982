//! A run's result built by hand for the reports' and the attribution's tests: the jobs and
//! segments of `log` on `cpus`, with the host's `lost` time, under a policy named `policy`.

use kairos_rt::calibrate::Calibration;
use kairos_rt::measure::{RunInputs, RunResult, ThreadLog};
use kairos_rt::stalls::LostTime;

/// A run of `duration_ns` that ran whole, its tasks named `task_names`.
pub fn built(
    (policy, task_names): (&str, &[&str]),
    cpus: Vec<usize>,
    duration_ns: u64,
    log: ThreadLog,
    lost: LostTime,
) -> RunResult {
    RunResult::build(RunInputs {
        policy: policy.into(),
        task_names: task_names.iter().map(|t| t.to_string()).collect(),
        cpus,
        duration_ns,
        ran_ns: duration_ns,
        origin_ns: 0,
        stopped_by: None,
        dma_latency_held: true,
        calibration: Calibration {
            per_core: Vec::new(),
            spread: 0.0,
            took_ns: 0,
            policy: "SCHED_FIFO 1".into(),
        },
        logs: vec![log],
        extra_events: Vec::new(),
        levels: Vec::new(),
        notes: Vec::new(),
        optional: Vec::new(),
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
        lost,
        timer_core: None,
        core_order: None,
    })
}
