//! A VM system's two-level simulation: RT-Xen 2.0's schedulers (the file's `[vmm]`) over its
//! domains' guest schedulers, on the VCPUs the compositional analysis computes for
//! `vcpus = "auto"` domains.

use super::periodic::resolve_duration;
use super::{budget, Request, Simulation};
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
    let duration = resolve_duration(&plan.workload, request.duration, notify)?;
    let tasks = || plan.workload.tasks.iter().map(|t| t.period);
    let estimate =
        |span| budget::estimate_events(span, tasks(), plan.servers.iter().map(|s| s.period));
    let config = SimConfig {
        duration,
        execution_times: request.execution_times,
        seed: request.seed,
        abort_on_miss: request.abort_on_miss,
        record_trace: request.record_trace,
        trace_bounds: super::bounds(request, duration, estimate, notify)?,
        overheads: Default::default(),
        // A host's outages are replayed only in a real run's twin.
        outages: Default::default(),
    };
    let (mut outcome, metrics) =
        simulate_vm(&plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    budget::end_sample(
        request.trace_scope,
        config.trace_bounds,
        outcome.trace.as_mut(),
    );
    Ok(Simulation::Vm {
        system,
        plan,
        outcome,
        metrics,
    })
}
