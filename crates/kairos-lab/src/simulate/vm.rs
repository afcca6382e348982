//! A VM system's two-level simulation: RT-Xen 2.0's schedulers (the file's `[vmm]`) over its
//! domains' guest schedulers, on the VCPUs the compositional analysis computes for
//! `vcpus = "auto"` domains.

use super::periodic::resolve_duration;
use super::{Request, Simulation};
use crate::error::refuse;
use crate::vm::{prepare, Prepared};
use crate::{Failure, Notify};
use kairos_model::VmSystem;
use kairos_policy::PriorityOrder;
use kairos_sim::vm::simulate_vm;
use kairos_sim::SimConfig;

pub(super) fn run(
    system: &VmSystem,
    request: &Request,
    notify: Notify,
) -> Result<Simulation, Failure> {
    let given = [
        (request.policy.is_some(), "--policy"),
        (request.cores.is_some(), "--cores"),
        (request.priorities != PriorityOrder::Auto, "--priorities"),
        (request.tables.is_some(), "--tables"),
        (!request.overruns.is_empty(), "--overrun"),
        (request.overrun_probability > 0.0, "--overrun-probability"),
    ];
    let belongs =
        "does not apply to a VM file: its schedulers and cores are the file's [vmm] and cores";
    refuse(&given, belongs)?;
    refuse(&request.overheads.given(), belongs)?;
    let Prepared { system, plan, .. } = prepare(system).map_err(Failure::bad_input)?;
    let config = SimConfig {
        duration: resolve_duration(&plan.workload, request.duration, notify)?,
        execution_times: request.execution_times,
        seed: request.seed,
        abort_on_miss: request.abort_on_miss,
        record_trace: request.record_trace,
        overheads: Default::default(),
    };
    let (outcome, metrics) =
        simulate_vm(&plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(Simulation::Vm {
        system,
        plan,
        outcome,
        metrics,
    })
}
