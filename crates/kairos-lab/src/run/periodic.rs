//! A periodic workload on real cores: under the kernel (SCHED_FIFO priorities, or
//! SCHED_DEADLINE for G-EDF) with calibrated busy work or shell commands as job bodies, or under
//! kairos's user-space dispatcher ([`kairos_rt::dispatcher`]), which hosts the very policy
//! object the simulator runs, so a measured run and its simulation decide the same way.

use super::twins::periodic_twins;
use super::{finish, platform_failure, run_failure, Dispatch, Extra, Request, Run};
use crate::{Failure, Notify};
use kairos_model::input::InputKind;
use kairos_model::Workload;
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::{registry, Policy, PolicyKind};
use kairos_rt::calibrate::{calibrate, JobBody};
use kairos_rt::dispatcher::{run_user, UserRun, UserRunConfig};
use kairos_rt::periodic::{plan, run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::watchdog::RunControl;

pub(super) fn run(
    name: &str,
    kind: InputKind,
    mut workload: Workload,
    request: &Request,
    notify: Notify,
) -> Result<Run, Failure> {
    let policy_name = match request.policy.as_deref() {
        Some(policy) => policy,
        None => registry::default_for(kind, Some(&workload)).expect("a workload has one"),
    };
    if policy_name == "table" {
        return Err(Failure::bad_input(format!(
            "--policy table runs mixed-criticality systems (files with `dags`, or MC-DAG .xml); {name} is a periodic workload"
        )));
    }
    let dispatched = dispatch_of(policy_name, request.dispatch)?;
    if let Some(cores) = request.cores {
        crate::simulate::override_cores(&mut workload, cores, notify)?;
    }
    match dispatched {
        Dispatched::User(kind) => user(kind, workload, request, notify),
        Dispatched::Kernel(policy) => kernel(policy, workload, request, notify),
    }
}

/// Who schedules the threads, and under which policy.
enum Dispatched {
    User(PolicyKind),
    Kernel(PeriodicPolicy),
}

/// The policy and the dispatch together (the defaults are explained in `kairos run --help`).
fn dispatch_of(policy: &str, dispatch: Option<Dispatch>) -> Result<Dispatched, Failure> {
    let kernel_default = matches!(policy, "pfp" | "gfp" | "edf");
    let user = dispatch.map_or(!kernel_default, |d| d == Dispatch::User);
    if user {
        let kind = PolicyKind::from_cli_name(policy).ok_or_else(|| {
            Failure::bad_input(format!(
                "--policy {policy} is SCHED_DEADLINE, a kernel policy; G-EDF in user space is --policy gedf"
            ))
        })?;
        return Ok(Dispatched::User(kind));
    }
    let kernel = PeriodicPolicy::of_dispatched(policy).ok_or_else(|| {
        Failure::bad_input(format!(
            "the kernel has no {policy} scheduler (Linux offers SCHED_FIFO priorities and SCHED_DEADLINE): run it with --dispatch user"
        ))
    })?;
    Ok(Dispatched::Kernel(kernel))
}

/// The kernel schedules the task threads.
fn kernel(
    policy: PeriodicPolicy,
    workload: Workload,
    request: &Request,
    notify: Notify,
) -> Result<Run, Failure> {
    let mut config = PeriodicConfig::new(policy, request.duration.as_nanos());
    config.priorities = request.priorities;
    (config.execution_times, config.seed) = (request.execution_times, request.seed);
    config.bodies = job_bodies(&workload, &request.commands)?;
    let plan = plan(&workload, &config, &kairos_os::online_cpus()).map_err(run_failure)?;
    privilege::require_rt().map_err(platform_failure)?;
    let calibration = calibrate(&plan.cpus).map_err(platform_failure)?;
    let signals = StopSignals::install();
    let result = run_periodic(&workload, &config, &calibration, RunControl::new());
    drop(signals);
    let result = result.map_err(run_failure)?;
    let twins = match request.simulate {
        true => {
            let kind = match config.policy {
                PeriodicPolicy::Pfp => PolicyKind::PartitionedFp,
                PeriodicPolicy::Gfp => PolicyKind::GlobalFp,
                PeriodicPolicy::Edf => PolicyKind::GlobalEdf,
            };
            let draws = (request.execution_times, request.seed);
            // The kernel's costs are not measured: only given overheads are charged.
            let given = request.overheads.unwrap_or_default();
            let charged = (given, request.overheads.as_ref());
            let policy = (kind, config.priorities);
            // Kernel dispatch numbers its stalls by CPU and the kernel placed the jobs: no
            // stalled twin.
            let ran = (&result, false);
            Some(periodic_twins(
                &workload, policy, ran, charged, draws, notify,
            )?)
        }
        false => None,
    };
    let extra = match (&twins, request.overheads) {
        (Some(_), Some(overheads)) => {
            let given = super::prior::Charged::given(overheads);
            Extra {
                fields: vec![("simulated_overheads", given.json())],
                text: given.line(),
            }
        }
        _ => Extra::default(),
    };
    Ok(finish(workload, result, twins, extra))
}

/// kairos's dispatcher schedules the task threads, under the simulator's policy object.
fn user(
    kind: PolicyKind,
    workload: Workload,
    request: &Request,
    notify: Notify,
) -> Result<Run, Failure> {
    if !request.commands.is_empty() {
        return Err(Failure::bad_input(
            "--command runs under --dispatch kernel only: the user-space dispatcher stops and resumes busy work, which a shell command cannot do",
        ));
    }
    let margin = request.od_margin;
    let prepared = crate::imprecise::prepare_with_margin(kind, &workload, margin, notify)?;
    let charged = match request.simulate {
        true => {
            let policy = kind.build(request.priorities);
            Some(super::prior::before(request, &prepared, policy, notify)?)
        }
        false => None,
    };
    let run = on_dispatcher(request, &prepared, kind.build(request.priorities))?;
    let (twins, extra) = match &charged {
        Some(charged) => {
            let draws = (request.execution_times, request.seed);
            // The prepared workload: its optional deadlines (with the margin) and partition
            // are the run's, which the simulation keeps.
            let policy = (kind, request.priorities);
            let overheads = (charged.overheads, Some(&charged.overheads));
            let ran = (&run.result, true);
            let twins = periodic_twins(&prepared, policy, ran, overheads, draws, notify)?;
            let extra = Extra {
                fields: vec![("simulated_overheads", charged.json())],
                text: charged.line(),
            };
            (Some(twins), extra)
        }
        None => (None, Extra::default()),
    };
    Ok(finish(workload, run.result, twins, extra))
}

/// Runs `workload` under `policy` on the user-space dispatcher with the request's duration,
/// lead and draws, SIGINT and SIGTERM stopping it cleanly.
pub(super) fn on_dispatcher(
    request: &Request,
    workload: &Workload,
    policy: Box<dyn Policy + Send>,
) -> Result<UserRun, Failure> {
    on_dispatcher_for(request, request.duration, workload, policy)
}

/// [`on_dispatcher`] for `length` instead of the request's duration.
pub(super) fn on_dispatcher_for(
    request: &Request,
    length: kairos_model::Duration,
    workload: &Workload,
    policy: Box<dyn Policy + Send>,
) -> Result<UserRun, Failure> {
    let mut config = UserRunConfig::new(length.as_nanos());
    config.control = Some(RunControl::new());
    config.lead_ns = request.lead.as_nanos();
    (config.execution_times, config.seed) = (request.execution_times, request.seed);
    privilege::require_rt().map_err(platform_failure)?;
    let signals = StopSignals::install();
    let run = run_user(workload, policy, &config);
    drop(signals);
    run.map_err(run_failure)
}

/// Each task's job body: busy work, or the `--command TASK=CMD` given for it.
fn job_bodies(workload: &Workload, commands: &[String]) -> Result<Vec<JobBody>, Failure> {
    let mut bodies = vec![JobBody::Busy; workload.tasks.len()];
    for spec in commands {
        let (task, command) = spec.split_once('=').ok_or_else(|| {
            Failure::bad_input(format!(
                "--command {spec:?}: write TASK=CMD, e.g. --command t1='sleep 0.001'"
            ))
        })?;
        let index = workload.task_index(task).ok_or_else(|| {
            let names: Vec<&str> = workload.tasks.iter().map(|t| t.name.as_str()).collect();
            Failure::bad_input(format!(
                "--command: no task named {task:?} (tasks: {})",
                names.join(", ")
            ))
        })?;
        if command.trim().is_empty() {
            return Err(Failure::bad_input(format!(
                "--command {task}=: the command is empty"
            )));
        }
        bodies[index] = JobBody::Command(command.to_string());
    }
    Ok(bodies)
}
