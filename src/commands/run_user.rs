//! `kairos run FILE --policy P --dispatch user`: the workload runs on real cores under kairos's
//! own dispatcher ([`kairos_rt::dispatcher`]), which hosts the very policy object `kairos
//! simulate` runs, so a measured run and its simulation make their decisions the same way.

use super::run::{check_duration, platform_failure, real_run, run_failure, Args};
use super::run_report::report;
use crate::args::{CommandResult, Failure};
use kairos_lab::compare::simulate_same;
use kairos_model::Workload;
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::PolicyKind;
use kairos_rt::dispatcher::{measured_overheads, run_user, UserRun, UserRunConfig};
use kairos_rt::watchdog::RunControl;

pub fn run(args: &Args, kind: PolicyKind, mut workload: Workload) -> CommandResult {
    check_duration(args.duration)?;
    if !args.commands.is_empty() {
        return Err(Failure::bad_input(
            "--command runs under --dispatch kernel only: the user-space dispatcher stops and resumes busy work, which a shell command cannot do",
        ));
    }
    if let Some(cores) = args.cores {
        kairos_lab::simulate::override_cores(&mut workload, cores, &mut crate::args::to_stderr)?;
    }
    let priorities = crate::commands::simulate::priority_order(&args.priorities);
    let prepared = crate::imprecise::prepare_with_margin(
        kind,
        &workload,
        args.od_margin,
        &mut crate::args::to_stderr,
    )?;
    let run = run_on_dispatcher(args, &prepared, kind.build(priorities))?;
    let simulated = if args.compares() {
        let overheads = measured_overheads(&run.result);
        // The prepared workload: its optional deadlines (with the margin) and partition are
        // the run's, which the simulation keeps.
        Some(simulate_same(
            &prepared,
            kind,
            priorities,
            real_run(&run.result),
            overheads,
            args.draws(),
            &mut crate::args::to_stderr,
        )?)
    } else {
        None
    };
    report(args, &workload, &run.result, simulated.as_ref())
}

/// Runs `workload` under `policy` on the user-space dispatcher with the run's options
/// (duration, lead, draws), SIGINT and SIGTERM stopping it cleanly.
pub(super) fn run_on_dispatcher(
    args: &Args,
    workload: &kairos_model::Workload,
    policy: Box<dyn kairos_policy::Policy + Send>,
) -> Result<UserRun, Failure> {
    let mut config = UserRunConfig::new(args.duration.as_nanos());
    config.control = Some(RunControl::new());
    config.lead_ns = args.lead.as_nanos();
    (config.execution_times, config.seed) = args.draws();
    privilege::require_rt().map_err(platform_failure)?;
    let signals = StopSignals::install();
    let run = run_user(workload, policy, &config);
    drop(signals);
    run.map_err(run_failure)
}
