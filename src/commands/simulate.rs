//! `kairos simulate FILE --policy P`: a discrete-event simulation with metrics, a Gantt chart
//! and a Perfetto trace.
//!
//! A mixed-criticality system (a kairos file with `dags`, or MC-DAG XML) runs under the `table`
//! policy instead: its scheduling tables executed as G-RES / G-MCRES do (seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5-6), with injected overruns and mode changes.

pub(crate) use super::pictures::{gantt_view, write_pictures, write_trace_files, TraceOutputs};
use super::simulate_tables::run_tables;
pub(crate) use super::simulate_tables::{override_mc_cores, table_summary, tables_for};
use crate::args::{duration_arg, window_arg, CommandResult, Failure};
use crate::report;
use kairos_model::input::{Input, InputKind, LoadOptions, SimsoRun};
use kairos_model::{Cost, Duration, Format, Instant, Overheads, Workload};
use kairos_policy::PriorityOrder;
use kairos_policy::{registry, PolicyKind};
use kairos_sim::table::Overrun;
use kairos_sim::{simulate, ExecutionTimeModel, SimConfig, SimOutcome};
use std::path::PathBuf;

/// Simulated time when neither `--duration` nor a usable hyper-period says otherwise.
pub const DEFAULT_DURATION_CAP: Duration = Duration::from_secs(10);

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// A workload (.toml or .json), a SimSo configuration (.xml), a mixed-criticality DAG system
    /// (kairos file or MC-DAG framework .xml) or a VM system (`kairos check` says which).
    pub file: PathBuf,
    /// The scheduling policy. Default: the input's (table for an MC-DAG system, grmwp for a
    /// workload with imprecise tasks, SimSo's for a SimSo configuration, pfp otherwise); a VM
    /// system runs its own [vmm] and guests.
    #[arg(long, value_parser = crate::args::policy_values(true, &[]))]
    pub policy: Option<String>,
    /// Override the number of cores of the file.
    #[arg(long)]
    pub cores: Option<usize>,
    /// Simulated time (default: the hyper-period, or max offset + 2 hyper-periods with offsets;
    /// capped at 10s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg)]
    pub duration: Option<Duration>,
    /// Seed of every random choice (execution times, sporadic arrivals).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Execution time of each job: its WCET, or uniform between bcet and wcet.
    #[arg(long = "exec", value_name = "MODEL", value_parser = ["wcet", "uniform"], default_value = "wcet")]
    pub execution_times: String,
    /// Fixed-priority order for gfp/pfp: explicit if every task has a priority, else RM.
    #[arg(long, value_parser = ["auto", "rm", "dm", "explicit"], default_value = "auto")]
    pub priorities: String,
    /// Remove a job unfinished at its deadline instead of letting it finish late.
    #[arg(long)]
    pub abort_on_miss: bool,
    /// Exit with code 1 if any deadline is missed.
    #[arg(long)]
    pub fail_on_miss: bool,
    /// Overheads from the [overheads] table of this file (the workload's own are replaced), such
    /// as the measured distributions `kairos bench overheads --out` writes; the --overhead-*
    /// flags still override one by one.
    #[arg(long, value_name = "FILE.toml")]
    pub overheads: Option<PathBuf>,
    /// Scheduling-decision cost per job switch-in (overrides the file).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg)]
    pub overhead_scheduling: Option<Duration>,
    /// Context-switch cost per job switch-in (overrides the file).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg)]
    pub overhead_context_switch: Option<Duration>,
    /// Extra cost when a job resumes on another core (overrides the file).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg)]
    pub overhead_migration: Option<Duration>,
    /// Print the metrics as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write a Gantt chart (SVG) of the schedule.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::args::svg_path_arg)]
    pub gantt: Option<PathBuf>,
    /// Only draw this part of the schedule in the Gantt chart, e.g. 0ms..200ms.
    #[arg(long, allow_hyphen_values = true, value_parser = window_arg, value_name = "START..END", requires = "gantt")]
    pub gantt_window: Option<(Instant, Instant)>,
    /// Rows of the Gantt chart: core (who runs where) or task (when each task runs, with
    /// release and deadline arrows).
    #[arg(long, value_name = "core|task", value_parser = crate::args::rows_arg, default_value = "core", requires = "gantt")]
    pub gantt_by: kairos_trace::gantt::RowsBy,
    /// Write a Chrome trace-event JSON file (open it in ui.perfetto.dev).
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// MC systems: the table file to run (from `kairos synth --out`); synthesized with
    /// GMH-MC-DAG (G-EDZL) when absent.
    #[arg(long, value_name = "TABLES.json")]
    pub tables: Option<PathBuf>,
    /// MC systems: make job JOB (counted from 0 since time 0) of TASK (dag/task) need its WCET at
    /// its own level, at LEVEL, or exactly DURATION. Repeatable.
    #[arg(long, value_name = "TASK@JOB[:LEVEL|=DURATION]", value_parser = overrun_arg)]
    pub overrun: Vec<Overrun>,
    /// MC systems: each job of a task above the lowest level overruns with this probability, to
    /// its WCET at a level drawn uniformly from 1 to its own (seeded by --seed).
    #[arg(long, value_name = "P", default_value_t = 0.0, value_parser = probability_arg)]
    pub overrun_probability: f64,
    /// MC systems in MC-DAG XML: the length of one time unit (the format has none).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
}

/// The kinds `kairos simulate` takes.
const TAKES: [InputKind; 5] = [
    InputKind::Workload,
    InputKind::SimsoXml,
    InputKind::McDag,
    InputKind::McDagXml,
    InputKind::Vm,
];

pub fn run(args: &SimulateArgs) -> CommandResult {
    let options = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    let taken = crate::input::load_for(&args.file, "simulate", &TAKES, &options)?;
    match taken.input {
        Input::Mc(system) => run_tables(args, system),
        Input::Vm(system) => super::simulate_vm::run(args, &system),
        Input::Workload(workload) => periodic(args, workload, taken.simso.as_ref()),
        _ => unreachable!("simulate takes workloads, MC and VM systems"),
    }
}

/// A periodic workload (or a SimSo configuration, whose run gives the default policy and
/// duration).
fn periodic(
    args: &SimulateArgs,
    mut workload: Workload,
    simso: Option<&SimsoRun>,
) -> CommandResult {
    refuse_mc_options(args)?;
    if let Some(cores) = args.cores {
        override_cores(&mut workload, cores)?;
    }
    let from_simso = simso
        .and_then(|run| run.policy)
        .filter(|_| args.policy.is_none());
    if let (Some(run), Some(policy)) = (simso, from_simso) {
        eprintln!(
            "SimSo's run: {policy} (its scheduler {}) for {}",
            run.scheduler, run.duration
        );
    }
    let default = registry::default_for(InputKind::Workload, Some(&workload));
    let policy = match args.policy.as_deref().or(from_simso).or(default) {
        None => unreachable!("a workload has a default policy"),
        Some("table") => Err(Failure::bad_input(format!(
            "--policy table runs mixed-criticality systems (files with `dags`, or MC-DAG .xml); {} is a periodic workload",
            args.file.display()
        ))),
        Some(policy) => Ok(policy),
    }?;
    let kind =
        PolicyKind::from_cli_name(policy).ok_or_else(|| Failure::bad_input("unknown policy"))?;
    let simso_duration = simso
        .map(|run| run.duration)
        .filter(|_| args.policy.is_none());
    let config = SimConfig {
        duration: resolve_duration(&workload, args.duration.or(simso_duration))?,
        execution_times: execution_model(&args.execution_times),
        seed: args.seed,
        abort_on_miss: args.abort_on_miss,
        record_trace: args.gantt.is_some() || args.trace.is_some(),
        overheads: overheads(&workload, args)?,
    };
    let outcome = run_policy(&workload, kind, priority_order(&args.priorities), &config)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&outcome.metrics).expect("metrics serialize")
        );
    } else {
        print!("{}", report::metrics_table(&workload, &outcome.metrics));
    }
    for written in write_pictures(
        &outcome,
        args.gantt.as_ref(),
        gantt_view(args.gantt_window, args.gantt_by),
        args.trace.as_ref(),
        &workload,
    )? {
        eprintln!("wrote {written}");
    }
    let missed = outcome.metrics.deadline_misses > 0;
    Ok(if args.fail_on_miss && missed {
        crate::exit::NO
    } else {
        0
    })
}

/// `--cores`: the same rules as `kairos check` applies to the file's `cores`.
pub(crate) fn override_cores(workload: &mut Workload, cores: usize) -> Result<(), Failure> {
    let max = kairos_model::decode::MAX_CORES;
    if cores == 0 || cores > max {
        return Err(Failure::bad_input(format!(
            "--cores must be between 1 and {max}"
        )));
    }
    if let Some(task) = workload
        .tasks
        .iter()
        .find(|t| t.core.is_some_and(|c| c.0 >= cores))
    {
        return Err(Failure::bad_input(format!(
            "task `{}` is bound to core {} but --cores {cores} leaves cores 0 to {}",
            task.name,
            task.core.map_or(0, |c| c.0),
            cores - 1
        )));
    }
    workload.cores = cores;
    if workload.total_utilization() > cores as f64 {
        eprintln!(
            "warning: total utilization {:.3} exceeds the {cores} core(s): deadlines will be missed under any policy",
            workload.total_utilization()
        );
    }
    Ok(())
}

pub fn priority_order(name: &str) -> PriorityOrder {
    match name {
        "rm" => PriorityOrder::RateMonotonic,
        "dm" => PriorityOrder::DeadlineMonotonic,
        "explicit" => PriorityOrder::Explicit,
        _ => PriorityOrder::Auto,
    }
}

/// Runs one policy, printing its set-up notices on stderr.
pub fn run_policy(
    workload: &Workload,
    kind: PolicyKind,
    priorities: PriorityOrder,
    config: &SimConfig,
) -> Result<SimOutcome, Failure> {
    let fixed_priority = matches!(kind, PolicyKind::GlobalFp | PolicyKind::PartitionedFp);
    let with_priority = workload
        .tasks
        .iter()
        .filter(|t| t.priority.is_some())
        .count();
    if fixed_priority
        && priorities == PriorityOrder::Auto
        && with_priority > 0
        && with_priority < workload.tasks.len()
    {
        eprintln!(
            "notice: only {with_priority} of {} tasks have a priority; using rate-monotonic order (--priorities explicit ranks the others last)",
            workload.tasks.len()
        );
    }
    let workload = &*crate::imprecise::prepare(kind, workload)?;
    let mut policy = kind.build(priorities);
    let outcome = simulate(workload, policy.as_mut(), config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    for notice in policy.notices(workload) {
        eprintln!("notice: {notice}");
    }
    Ok(outcome)
}

/// `--duration`, or the feasibility interval (H, or max offset + 2H with offsets), capped with
/// a notice.
pub fn resolve_duration(
    workload: &Workload,
    requested: Option<Duration>,
) -> Result<Duration, Failure> {
    if let Some(d) = requested {
        if d.is_zero() {
            return Err(Failure::bad_input("--duration must be greater than zero"));
        }
        if d > kairos_model::decode::MAX_DURATION {
            return Err(Failure::bad_input(format!(
                "--duration exceeds the maximum {}",
                kairos_model::decode::MAX_DURATION
            )));
        }
        return Ok(d);
    }
    match workload.feasibility_interval() {
        Some(d) if d <= DEFAULT_DURATION_CAP => Ok(d),
        Some(d) => {
            eprintln!("notice: the feasibility interval (hyper-period, or max offset + 2 hyper-periods) is {d}; simulating the first {DEFAULT_DURATION_CAP} (use --duration to change)");
            Ok(DEFAULT_DURATION_CAP)
        }
        None => {
            eprintln!("notice: the hyper-period overflows 64-bit nanoseconds; simulating the first {DEFAULT_DURATION_CAP} (use --duration to change)");
            Ok(DEFAULT_DURATION_CAP)
        }
    }
}

fn overheads(workload: &Workload, args: &SimulateArgs) -> Result<Overheads, Failure> {
    let file = match &args.overheads {
        Some(path) => load_overheads(path)?,
        None => workload.overheads,
    };
    let or = |flag: Option<Duration>, cost: Cost| flag.map_or(cost, Cost::Fixed);
    Ok(Overheads {
        scheduling: or(args.overhead_scheduling, file.scheduling),
        context_switch: or(args.overhead_context_switch, file.context_switch),
        migration: or(args.overhead_migration, file.migration),
    })
}

/// `--exec NAME` (clap has checked the name: `wcet` or `uniform`).
pub fn execution_model(name: &str) -> ExecutionTimeModel {
    match name {
        "uniform" => ExecutionTimeModel::Uniform,
        _ => ExecutionTimeModel::Wcet,
    }
}

/// The `[overheads]` table of `path`, its problems printed as `kairos check` prints them.
fn load_overheads(path: &std::path::Path) -> Result<Overheads, Failure> {
    let source = crate::input::read_text(path)?;
    let format = Format::from_path(&path.to_string_lossy());
    kairos_model::overheads_from_source(&source, format).map_err(|diagnostics| {
        let name = path.display().to_string();
        for d in diagnostics.iter() {
            eprintln!("{}", d.render(&name));
        }
        Failure::bad_input(format!("{name}: no usable [overheads] table"))
    })
}

/// The first flag in `flags` that was given, as an error saying where it belongs.
pub(super) fn refuse(flags: &[(bool, &str)], belongs: &str) -> Result<(), Failure> {
    match flags.iter().find(|(given, _)| *given) {
        Some((_, flag)) => Err(Failure::bad_input(format!("{flag} {belongs}"))),
        None => Ok(()),
    }
}

fn refuse_mc_options(args: &SimulateArgs) -> Result<(), Failure> {
    let flags = [
        (args.tables.is_some(), "--tables"),
        (!args.overrun.is_empty(), "--overrun"),
        (args.overrun_probability > 0.0, "--overrun-probability"),
    ];
    refuse(
        &flags,
        "applies to mixed-criticality systems only (files with `dags`, or MC-DAG .xml)",
    )
}

fn overrun_arg(text: &str) -> Result<Overrun, String> {
    text.parse()
}

fn probability_arg(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("{text:?} is not a probability between 0 and 1")),
    }
}
