//! The RT-Xen study on real cores (`execution = "real"`): the scaled-down counterpart of the
//! paper's 60 s runs on real hardware. Each configuration of each set runs for `duration` on
//! kairos's user-space dispatcher — the very VMM and guest policy objects the simulator runs,
//! VCPU budgets accounted and enforced by the dispatcher, guest tasks as real worker threads —
//! and is then simulated over the time it ran with the overheads it measured (as `kairos run
//! --compare` does), so every run-dependent figure comes twice: measured and simulated.
//!
//! Runs go one after the other (each uses every core of the study); the CPUs are calibrated
//! once for the whole study. A SIGINT or SIGTERM stops the current run cleanly and the study
//! with it; finished points are kept and a new invocation resumes after them.

use super::set::{simulate, Counts, Setup};
use crate::Failure;
use kairos_os::signals;
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_rt::calibrate::Calibration;
use kairos_rt::dispatcher::{measured_overheads, run_user, UserRunConfig};
use kairos_rt::watchdog::RunControl;
use kairos_sim::vm::vm_policy;
use kairos_sim::SimConfig;

/// What running on real cores needs, prepared once per study.
pub struct Real {
    calibration: Calibration,
}

impl Real {
    /// Checks the privilege and the machine's CPUs, and calibrates the `cores` first online CPUs
    /// (the ones every run uses).
    pub fn prepare(cores: usize) -> Result<Real, Failure> {
        Ok(Real {
            calibration: crate::experiment::realtime::calibrated_cores(cores)?,
        })
    }

    /// Runs `plan` for `setup.duration` on real cores, then simulates it over the time it ran
    /// with its measured overheads: `(measured, simulated)`.
    pub fn run(&self, plan: &VmPlan, setup: &Setup) -> Result<(Counts, Counts), String> {
        let policy = vm_policy(plan).map_err(|r| r.0)?;
        let mut config = UserRunConfig::new(setup.duration.as_nanos());
        config.calibration = Some(self.calibration.clone());
        config.control = Some(RunControl::new());
        config.seed = setup.seed;
        let run = run_user(&plan.workload, policy, &config).map_err(|e| e.to_string())?;
        if let Some(signal) = signals::received() {
            return Err(format!(
                "stopped by {}; the points finished before it are kept and the study resumes after them",
                signals::signal_name(signal)
            ));
        }
        let tasks = &run.result.tasks;
        let measured = Counts {
            released: tasks.iter().map(|t| t.jobs_released).sum(),
            misses: tasks.iter().map(|t| t.deadline_misses).sum(),
            back_to_back: run.servers.iter().map(|s| s.back_to_back).sum(),
            replenishments: run.servers.iter().map(|s| s.replenishments).sum(),
        };
        let twin = SimConfig {
            duration: kairos_model::Duration::from_nanos(run.result.ran_ns.max(1)),
            seed: setup.seed,
            overheads: measured_overheads(&run.result),
            ..SimConfig::default()
        };
        Ok((measured, simulate(plan, &twin)?))
    }
}
