//! `kairos simulate FILE --policy P`: a discrete-event simulation with metrics, a Gantt chart
//! and a Perfetto trace.
//!
//! A mixed-criticality system (a kairos file with `dags`, or MC-DAG XML) runs under the `table`
//! policy instead: its scheduling tables executed as G-RES / G-MCRES do (seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5-6), with injected overruns and mode changes.

pub(crate) use super::pictures::gantt_view;
use crate::args::{duration_arg, window_arg, CommandResult, Failure};
use kairos_lab::simulate::budget::{TraceScope, DEFAULT_MAX_TRACE_EVENTS};
use kairos_lab::simulate::pictures::{write_trace_files, TraceOutputs};
use kairos_lab::simulate::{simulate, OverheadRequest, Request};
use kairos_model::input::{InputKind, LoadOptions};
use kairos_model::{Duration, Instant, Overheads};
use kairos_policy::PriorityOrder;
use kairos_sim::table::Overrun;
use kairos_sim::ExecutionTimeModel;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// A workload (.toml or .json), a SimSo configuration (.xml), a mixed-criticality DAG system
    /// (kairos file or MC-DAG framework .xml) or a VM system (`kairos check` says which).
    pub file: PathBuf,
    /// The scheduling policy. Default: the input's (table for an MC-DAG system, grmwp for a
    /// workload with imprecise tasks, SimSo's for a SimSo configuration, pfp otherwise); a VM
    /// system runs its own `[vmm]` and guests.
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
    /// Overheads from the `[overheads]` table of this file (the workload's own are replaced), such
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
    /// The most events the recorded trace may hold, estimated before the run: past it a
    /// --trace is refused and a --gantt without --gantt-window draws the run's first part.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TRACE_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_events: u64,
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
    let name = args.file.display().to_string();
    let workload = matches!(taken.input, kairos_model::input::Input::Workload(_));
    let request = request(args, workload)?;
    let spinner = crate::progress::spinner(&format!("simulating {name}"), args.json);
    let simulation = simulate(
        &name,
        taken.input,
        taken.simso.as_ref(),
        &request,
        &mut crate::args::to_stderr,
    )?;
    drop(spinner);
    if args.json {
        crate::args::print_json(&simulation.metrics_json());
    } else {
        print!("{}", simulation.text());
    }
    let outputs = TraceOutputs {
        gantt: args.gantt.as_ref(),
        view: gantt_view(args.gantt_window, args.gantt_by),
        trace: args.trace.as_ref(),
    };
    let title = simulation.title(&args.file);
    for written in write_trace_files(simulation.trace(), title, &outputs)? {
        eprintln!("wrote {written}");
    }
    let missed = simulation.deadline_misses() > 0;
    Ok(if args.fail_on_miss && missed {
        crate::exit::NO
    } else {
        0
    })
}

/// The flags as the library's request; an overhead profile is read for a periodic workload
/// only (another kind refuses the flag, unread).
fn request(args: &SimulateArgs, workload: bool) -> Result<Request, Failure> {
    let profile = match (&args.overheads, workload) {
        (Some(path), true) => Some(crate::input::load_overheads(path)?),
        (Some(_), false) => Some(Overheads::default()),
        (None, _) => None,
    };
    Ok(Request {
        policy: args.policy.clone(),
        cores: args.cores,
        duration: args.duration,
        seed: args.seed,
        execution_times: execution_model(&args.execution_times),
        priorities: priority_order(&args.priorities),
        abort_on_miss: args.abort_on_miss,
        record_trace: args.gantt.is_some() || args.trace.is_some(),
        trace_scope: trace_scope(args),
        max_events: args.max_events,
        overheads: OverheadRequest {
            profile,
            scheduling: args.overhead_scheduling,
            context_switch: args.overhead_context_switch,
            migration: args.overhead_migration,
        },
        tables: args.tables.clone(),
        overruns: args.overrun.clone(),
        overrun_probability: args.overrun_probability,
    })
}

/// What of the trace the outputs draw: a Perfetto trace needs all of it, a Gantt chart its
/// window (the whole run's, sampled past the cap, when none is given).
fn trace_scope(args: &SimulateArgs) -> TraceScope {
    match (args.trace.is_some(), args.gantt_window) {
        (true, _) => TraceScope::Whole,
        (false, Some((from, to))) => TraceScope::Window(from, to),
        (false, None) => TraceScope::Sampled,
    }
}

pub fn priority_order(name: &str) -> PriorityOrder {
    match name {
        "rm" => PriorityOrder::RateMonotonic,
        "dm" => PriorityOrder::DeadlineMonotonic,
        "explicit" => PriorityOrder::Explicit,
        _ => PriorityOrder::Auto,
    }
}

pub fn execution_model(name: &str) -> ExecutionTimeModel {
    match name {
        "uniform" => ExecutionTimeModel::Uniform,
        _ => ExecutionTimeModel::Wcet,
    }
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
