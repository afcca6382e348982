//! A periodic workload under one policy of `kairos_policy::registry`, for the feasibility
//! interval or a given duration, with overheads charged as the request says.

use super::{budget, checked_duration, Request, Simulation};
use crate::error::refuse;
use crate::{Failure, Notify};
use kairos_model::input::{InputKind, SimsoRun};
use kairos_model::{Cost, Duration, Overheads, Workload};
use kairos_policy::{registry, PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig, SimOutcome};

/// How much a simulation without a duration covers at most: the feasibility interval is
/// simulated when it is shorter.
pub const DEFAULT_DURATION_CAP: Duration = Duration::from_secs(10);

pub(super) fn run(
    name: &str,
    mut workload: Workload,
    simso: Option<&SimsoRun>,
    request: &Request,
    notify: Notify,
) -> Result<Simulation, Failure> {
    let given = [
        (request.tables.is_some(), "--tables"),
        (!request.overruns.is_empty(), "--overrun"),
        (request.overrun_probability > 0.0, "--overrun-probability"),
    ];
    let only = "applies to mixed-criticality systems only (files with `dags`, or MC-DAG .xml)";
    refuse(&given, only)?;
    if let Some(cores) = request.cores {
        override_cores(&mut workload, cores, notify)?;
    }
    let from_simso = (simso.and_then(|run| run.policy)).filter(|_| request.policy.is_none());
    if let (Some(run), Some(policy)) = (simso, from_simso) {
        let (scheduler, duration) = (&run.scheduler, run.duration);
        notify(&format!(
            "SimSo's run: {policy} (its scheduler {scheduler}) for {duration}"
        ));
    }
    let kind = policy(name, &workload, request.policy.as_deref().or(from_simso))?;
    let simso_duration = simso
        .map(|run| run.duration)
        .filter(|_| request.policy.is_none());
    let duration = resolve_duration(&workload, request.duration.or(simso_duration), notify)?;
    let periods = || workload.tasks.iter().map(|t| t.period);
    let estimate = |span| budget::estimate_events(span, periods(), []);
    let config = SimConfig {
        duration,
        execution_times: request.execution_times,
        seed: request.seed,
        abort_on_miss: request.abort_on_miss,
        record_trace: request.record_trace,
        trace_bounds: super::bounds(request, duration, estimate, notify)?,
        overheads: overheads(&workload, request),
        // A host's outages are replayed only in a real run's twin.
        outages: Default::default(),
    };
    let mut outcome = run_policy(&workload, kind, request.priorities, &config, notify)?;
    budget::end_sample(
        request.trace_scope,
        config.trace_bounds,
        outcome.trace.as_mut(),
    );
    Ok(Simulation::Periodic { workload, outcome })
}

/// The policy named, or the workload's default; `table` is for MC systems.
fn policy(name: &str, workload: &Workload, named: Option<&str>) -> Result<PolicyKind, Failure> {
    let default = registry::default_for(InputKind::Workload, Some(workload));
    match named.or(default) {
        None => unreachable!("a workload has a default policy"),
        Some("table") => Err(Failure::bad_input(format!(
            "--policy table runs mixed-criticality systems (files with `dags`, or MC-DAG .xml); {name} is a periodic workload"
        ))),
        Some(policy) => registry::of_tasks(policy).map_err(Failure::bad_input),
    }
}

/// `workload` on `cores` instead of its own; tasks bound to a core beyond are refused.
pub fn override_cores(
    workload: &mut Workload,
    cores: usize,
    notify: Notify,
) -> Result<(), Failure> {
    let max = kairos_model::decode::MAX_CORES;
    if cores == 0 || cores > max {
        return Err(Failure::bad_input(format!(
            "--cores must be between 1 and {max}"
        )));
    }
    let bound_beyond = (workload.tasks.iter()).find(|t| t.core.is_some_and(|c| c.0 >= cores));
    if let Some(task) = bound_beyond {
        return Err(Failure::bad_input(format!(
            "task `{}` is bound to core {} but --cores {cores} leaves cores 0 to {}",
            task.name,
            task.core.map_or(0, |c| c.0),
            cores - 1
        )));
    }
    workload.cores = cores;
    let utilization = workload.total_utilization();
    if utilization > cores as f64 {
        notify(&format!(
            "warning: total utilization {utilization:.3} exceeds the {cores} core(s): deadlines will be missed under any policy"
        ));
    }
    Ok(())
}

/// `workload` simulated under `kind` (imprecise tasks planned first, `kairos_lab::imprecise`).
pub fn run_policy(
    workload: &Workload,
    kind: PolicyKind,
    priorities: PriorityOrder,
    config: &SimConfig,
    notify: Notify,
) -> Result<SimOutcome, Failure> {
    let fixed_priority = matches!(kind, PolicyKind::GlobalFp | PolicyKind::PartitionedFp);
    let tasks = workload.tasks.len();
    let with_priority = (workload.tasks.iter())
        .filter(|t| t.priority.is_some())
        .count();
    let partly = with_priority > 0 && with_priority < tasks;
    if fixed_priority && priorities == PriorityOrder::Auto && partly {
        notify(&format!(
            "notice: only {with_priority} of {tasks} tasks have a priority; using rate-monotonic order (--priorities explicit ranks the others last)"
        ));
    }
    let workload = &*crate::imprecise::prepare(kind, workload, notify)?;
    let mut policy = kind.build(priorities);
    let outcome = simulate(workload, policy.as_mut(), config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    for notice in policy.notices(workload) {
        notify(&format!("notice: {notice}"));
    }
    Ok(outcome)
}

/// The duration asked for, or the feasibility interval capped at [`DEFAULT_DURATION_CAP`].
pub fn resolve_duration(
    workload: &Workload,
    requested: Option<Duration>,
    notify: Notify,
) -> Result<Duration, Failure> {
    if let Some(d) = checked_duration(requested)? {
        return Ok(d);
    }
    let cap = DEFAULT_DURATION_CAP;
    match workload.feasibility_interval() {
        Some(d) if d <= cap => return Ok(d),
        Some(d) => notify(&format!("notice: the feasibility interval (hyper-period, or max offset + 2 hyper-periods) is {d}; simulating the first {cap} (use --duration to change)")),
        None => notify(&format!("notice: the hyper-period overflows 64-bit nanoseconds; simulating the first {cap} (use --duration to change)")),
    }
    Ok(cap)
}

fn overheads(workload: &Workload, request: &Request) -> Overheads {
    let asked = &request.overheads;
    let base = asked.profile.unwrap_or(workload.overheads);
    let or = |given: Option<Duration>, cost: Cost| given.map_or(cost, Cost::Fixed);
    Overheads {
        scheduling: or(asked.scheduling, base.scheduling),
        context_switch: or(asked.context_switch, base.context_switch),
        migration: or(asked.migration, base.migration),
        ..base
    }
}
