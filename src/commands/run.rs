//! `kairos run FILE`: runs a workload for real on this machine's cores with real-time threads
//! (the runtime is `kairos_rt`, its safety rules are in `docs/run.md`), prints what
//! was measured, and with `--compare` the simulator's schedule of the same workload job by job.

use crate::args::{duration_arg, window_arg, write_output, CommandResult, Failure};
use kairos_lab::report::run::page;
use kairos_lab::run::{Dispatch, Request};
use kairos_lab::simulate::pictures::TraceOutputs;
use kairos_model::input::{InputKind, LoadOptions};
use kairos_model::{Duration, Instant};
use kairos_rt::measure::RunResult;
use std::path::PathBuf;

/// Exit code of a run stopped by SIGINT/SIGTERM (the shell convention 128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(clap::Args)]
pub struct Args {
    /// A workload (.toml, .json, or a SimSo .xml configuration), an MC-DAG system (kairos file
    /// or MC-DAG framework .xml) or a VM system (`kairos check` says which).
    pub file: PathBuf,
    /// The policy (the simulator's, see --dispatch; edf: the kernel's SCHED_DEADLINE, the same
    /// as gedf --dispatch kernel). Default: the input's, as `kairos simulate` chooses it (table
    /// for an MC-DAG system, grmwp for a workload with imprecise tasks, pfp otherwise).
    #[arg(long, value_parser = crate::args::policy_values(true, &[("edf", "G-EDF by the kernel's SCHED_DEADLINE (--dispatch kernel)")]))]
    pub policy: Option<String>,
    /// user: kairos's dispatcher runs the policy object the simulator runs (one dispatcher
    /// thread per core, workers resumed by futex); kernel: the kernel schedules the task
    /// threads (SCHED_FIFO priorities for pfp/gfp, SCHED_DEADLINE for gedf/edf). Default:
    /// kernel where the kernel has the policy (pfp, gfp, edf: no dispatcher on the path), user
    /// otherwise (gedf is exact G-EDF only in user space; pedf and edzl exist only there).
    #[arg(long, value_parser = ["user", "kernel"])]
    pub dispatch: Option<String>,
    /// --dispatch user: how long before a known release an idle core's dispatcher wakes and
    /// decides, so the job starts at its release instead of a timer interrupt and a wake-up
    /// later (0s: wake at the release).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "50us")]
    pub lead: Duration,
    /// grmwp, prmwp: fix each optional deadline this much before the analysis's, so the
    /// wind-up starts early enough to absorb the runtime's own latencies (the analysis counts
    /// none); --compare simulates with the same optional deadlines.
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "0s")]
    pub od_margin: Duration,
    /// Override the number of cores of the file (as `kairos simulate --cores`).
    #[arg(long)]
    pub cores: Option<usize>,
    /// How long to run (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// Fixed-priority order for pfp/gfp: explicit if every task has a priority, else RM.
    #[arg(long, value_parser = ["auto", "rm", "dm", "explicit"], default_value = "auto")]
    pub priorities: String,
    /// Run this shell command as each job of TASK instead of busy work (repeatable).
    #[arg(long = "command", value_name = "TASK=CMD")]
    pub commands: Vec<String>,
    /// Print the result as JSON (stable fields: docs/run.md).
    #[arg(long)]
    pub json: bool,
    /// Write the measured schedule as a Chrome trace-event JSON file (ui.perfetto.dev).
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// Write a Gantt chart (SVG) of the measured schedule (with --compare: measured above
    /// simulated).
    #[arg(long, value_name = "FILE.svg", value_parser = crate::args::svg_path_arg)]
    pub gantt: Option<PathBuf>,
    /// Only draw this part of the schedule in the Gantt chart, e.g. 0ms..50ms.
    #[arg(long, allow_hyphen_values = true, value_parser = window_arg, value_name = "START..END", requires = "gantt")]
    pub gantt_window: Option<(Instant, Instant)>,
    /// Rows of the Gantt chart: core (who runs where) or task (when each task runs, with
    /// release and deadline arrows).
    #[arg(long, value_name = "core|task", value_parser = crate::args::rows_arg, default_value = "core", requires = "gantt")]
    pub gantt_by: kairos_trace::gantt::RowsBy,
    /// Also simulate the workload and compare the two job by job.
    #[arg(long)]
    pub compare: bool,
    /// Write one self-contained HTML page of the run compared with its simulation (implies
    /// --compare): the measured and simulated schedules one above the other, the job-by-job
    /// agreement, and each task's measured and simulated response times.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// With --compare or --report: the simulation charges the `[overheads]` of this file (a
    /// profile `kairos bench overheads --out` wrote) instead of overheads measured on a run of
    /// up to 1 s of the same workload just before the compared one (user dispatch).
    #[arg(long, value_name = "FILE.toml")]
    pub overheads: Option<PathBuf>,
    /// With --overheads: cut each measured distribution at this quantile (p99 or p999), so
    /// that the comparison draws no cost above what an analysis charging it assumed (as
    /// `kairos analyze --overhead-quantile`); a miss the simulation makes then breaks that
    /// analysis's guarantee. Default: the whole distribution (max).
    #[arg(long, value_name = "QUANTILE", value_parser = crate::commands::analyze::quantile_arg)]
    pub overhead_quantile: Option<kairos_analysis::overheads::Quantile>,
    /// Scheduling tables for --policy table (default: synthesize them first).
    #[arg(long, value_name = "TABLES.json")]
    pub tables: Option<PathBuf>,
    /// Exit with code 1 if any deadline is missed.
    #[arg(long)]
    pub fail_on_miss: bool,
    /// --policy table: make job JOB (from 0 since time 0) of TASK (dag/task) need its WCET at
    /// its own level, at LEVEL, or exactly DURATION. Repeatable.
    #[arg(long, value_name = "TASK@JOB[:LEVEL|=DURATION]", value_parser = overrun_arg)]
    pub overrun: Vec<kairos_sim::table::Overrun>,
    /// --policy table: each job of a task above the lowest level overruns with this
    /// probability (seeded by --seed, drawn as `kairos simulate` draws it).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub overrun_probability: f64,
    /// Execution time of each job: its WCET, or uniform in [bcet, wcet] (table: in [0, C(0)]),
    /// drawn per (task, job) from --seed exactly as `kairos simulate` draws it, so --compare
    /// simulates the same work.
    #[arg(long, value_name = "MODEL", value_parser = ["wcet", "uniform"], default_value = "wcet")]
    pub exec: String,
    /// Seed of every random choice (execution times, random overruns).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// --policy table: fraction of each job's demand its body executes (a margin for the
    /// machine's timer and wake-up latencies, which the tables do not budget for).
    #[arg(long, default_value_t = 0.8)]
    pub work_fraction: f64,
    /// The most events the run's trace may hold, estimated from the periods before any thread
    /// starts: past it the run is refused.
    #[arg(long, value_name = "N", default_value_t = kairos_lab::simulate::budget::DEFAULT_MAX_TRACE_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_events: u64,
}

impl Args {
    /// The flags as the library's request.
    fn request(&self) -> Result<Request, Failure> {
        let simulate = self.compare || self.report.is_some();
        let overheads =
            match (&self.overheads, simulate) {
                (Some(_), false) => {
                    return Err(Failure::bad_input(
                        "--overheads sets what the comparison's simulation charges: add --compare",
                    ))
                }
                (Some(path), true) => {
                    let quantile = self.overhead_quantile.unwrap_or_default();
                    let profile = crate::input::load_profile(path, quantile)?;
                    Some(quantile.cap(&profile))
                }
                (None, _) if self.overhead_quantile.is_some() => return Err(Failure::bad_input(
                    "--overhead-quantile cuts the distributions of --overheads: add --overheads",
                )),
                (None, _) => None,
            };
        let overheads_cut_at = (self.overhead_quantile)
            .filter(|q| *q != kairos_analysis::overheads::Quantile::Max)
            .map(|q| q.name());
        Ok(Request {
            policy: self.policy.clone(),
            dispatch: self.dispatch.as_deref().map(|d| match d {
                "kernel" => Dispatch::Kernel,
                _ => Dispatch::User,
            }),
            lead: self.lead,
            od_margin: self.od_margin,
            cores: self.cores,
            duration: self.duration,
            priorities: crate::commands::simulate::priority_order(&self.priorities),
            commands: self.commands.clone(),
            // A --report page shows the run beside its simulation.
            simulate,
            overheads,
            overheads_cut_at,
            tables: self.tables.clone(),
            overruns: self.overrun.clone(),
            overrun_probability: self.overrun_probability,
            execution_times: crate::commands::simulate::execution_model(&self.exec),
            seed: self.seed,
            work_fraction: self.work_fraction,
            max_events: self.max_events,
        })
    }
}

fn overrun_arg(text: &str) -> Result<kairos_sim::table::Overrun, String> {
    text.parse()
}

/// The kinds `kairos run` takes.
const TAKES: [InputKind; 5] = [
    InputKind::Workload,
    InputKind::SimsoXml,
    InputKind::McDag,
    InputKind::McDagXml,
    InputKind::Vm,
];

pub fn run(args: &Args) -> CommandResult {
    let request = args.request()?;
    let taken = crate::input::load_for(&args.file, "run", &TAKES, &LoadOptions::default())?;
    let name = args.file.display().to_string();
    let notify = &mut crate::args::to_stderr;
    let run = kairos_lab::run::run(&name, taken.kind, taken.input, &request, notify)?;
    match args.json {
        true => crate::args::print_json(&run.json),
        false => print!("{}", run.text),
    }
    if let (Some(path), Some(workload)) = (&args.report, &run.workload) {
        let simulated = run.simulated.as_ref();
        let page = page(
            &name,
            workload,
            &run.result,
            simulated,
            run.compare.as_ref(),
        );
        write_output(path, page)?;
        eprintln!("wrote {}", path.display());
    }
    let outputs = TraceOutputs {
        gantt: args.gantt.as_ref(),
        view: crate::commands::simulate::gantt_view(args.gantt_window, args.gantt_by),
        trace: args.trace.as_ref(),
    };
    for written in run.write_pictures(&outputs)? {
        eprintln!("wrote {written}");
    }
    Ok(exit_code(args, &run.result))
}

fn exit_code(args: &Args, result: &RunResult) -> u8 {
    let interrupted = (result.stopped_by.as_deref()).is_some_and(|why| why.starts_with("SIG"));
    if interrupted {
        EXIT_INTERRUPTED
    } else if args.fail_on_miss && result.deadline_misses > 0 {
        crate::exit::NO
    } else {
        0
    }
}
