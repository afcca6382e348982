//! `kairos run FILE`: runs a workload for real on this machine's cores with real-time threads
//! (the runtime is `kairos_rt`, its safety rules are in `docs/run.md`), prints what
//! was measured, and with `--compare` the simulator's schedule of the same workload job by job.

use crate::args::{duration_arg, window_arg, CommandResult, Failure};
use crate::commands::run_report::report;
use kairos_lab::compare::{simulate_same, RealRun};
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::{Duration, Instant, Workload};
use kairos_os::{privilege, signals::StopSignals, PlatformError};
use kairos_policy::{registry, PolicyKind};
use kairos_rt::calibrate::{calibrate, JobBody};
use kairos_rt::periodic::{plan, run_periodic, PeriodicConfig, PeriodicPolicy, RunError};
use kairos_rt::watchdog::RunControl;
use std::path::PathBuf;

/// The longest real run `kairos run` accepts: every run holds real-time threads.
pub const MAX_RUN_DURATION: Duration = Duration::from_secs(60);

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
}

impl Args {
    /// Whether the run is simulated too (--compare, or a --report that shows both).
    pub fn compares(&self) -> bool {
        self.compare || self.report.is_some()
    }

    /// The execution-time model and the seed of the run's per-job draws.
    pub fn draws(&self) -> (kairos_sim::ExecutionTimeModel, u64) {
        let model = crate::commands::simulate::execution_model(&self.exec);
        (model, self.seed)
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
    check_duration(args.duration)?;
    let taken = crate::input::load_for(&args.file, "run", &TAKES, &LoadOptions::default())?;
    let kind = taken.kind;
    let mut workload = match taken.input {
        Input::Vm(system) => return crate::commands::run_vm::run(args, &system),
        Input::Mc(system) => return mc(args, system),
        Input::Workload(workload) => workload,
        _ => unreachable!("run takes workloads, MC and VM systems"),
    };
    let policy_name = match args.policy.as_deref() {
        Some(name) => name,
        None => registry::default_for(kind, Some(&workload)).expect("a workload has one"),
    };
    if policy_name == "table" {
        return Err(Failure::bad_input(format!(
            "--policy table runs mixed-criticality systems (files with `dags`, or MC-DAG .xml); {} is a periodic workload",
            args.file.display()
        )));
    }
    let policy = match dispatch_of(policy_name, args.dispatch.as_deref())? {
        Dispatch::User(kind) => return crate::commands::run_user::run(args, kind, workload),
        Dispatch::Kernel(policy) => policy,
    };
    if let Some(cores) = args.cores {
        kairos_lab::simulate::override_cores(&mut workload, cores, &mut crate::args::to_stderr)?;
    }
    let mut config = PeriodicConfig::new(policy, args.duration.as_nanos());
    config.priorities = crate::commands::simulate::priority_order(&args.priorities);
    (config.execution_times, config.seed) = args.draws();
    config.bodies = job_bodies(&workload, &args.commands)?;
    let plan = plan(&workload, &config, &kairos_os::online_cpus()).map_err(run_failure)?;
    privilege::require_rt().map_err(platform_failure)?;
    let calibration = calibrate(&plan.cpus).map_err(platform_failure)?;
    let signals = StopSignals::install();
    let result = run_periodic(&workload, &config, &calibration, RunControl::new());
    drop(signals);
    let result = result.map_err(run_failure)?;
    let simulated = if args.compares() {
        let kind = match config.policy {
            PeriodicPolicy::Pfp => PolicyKind::PartitionedFp,
            PeriodicPolicy::Gfp => PolicyKind::GlobalFp,
            PeriodicPolicy::Edf => PolicyKind::GlobalEdf,
        };
        let none = kairos_model::Overheads::default();
        Some(simulate_same(
            &workload,
            kind,
            config.priorities,
            real_run(&result),
            none,
            args.draws(),
            &mut crate::args::to_stderr,
        )?)
    } else {
        None
    };
    report(args, &workload, &result, simulated.as_ref())
}

/// Who schedules the task threads.
pub(super) enum Dispatch {
    User(PolicyKind),
    Kernel(PeriodicPolicy),
}

/// `--policy` and `--dispatch` together (the defaults are explained in `--help`).
fn dispatch_of(policy: &str, dispatch: Option<&str>) -> Result<Dispatch, Failure> {
    let kernel_default = matches!(policy, "pfp" | "gfp" | "edf");
    let user = dispatch.map_or(!kernel_default, |d| d == "user");
    if user {
        let kind = PolicyKind::from_cli_name(policy).ok_or_else(|| {
            Failure::bad_input(format!(
                "--policy {policy} is SCHED_DEADLINE, a kernel policy; G-EDF in user space is --policy gedf"
            ))
        })?;
        return Ok(Dispatch::User(kind));
    }
    let kernel = match policy {
        "pfp" => PeriodicPolicy::Pfp,
        "gfp" => PeriodicPolicy::Gfp,
        "edf" | "gedf" => PeriodicPolicy::Edf,
        _ => {
            return Err(Failure::bad_input(format!(
                "the kernel has no {policy} scheduler (Linux offers SCHED_FIFO priorities and SCHED_DEADLINE): run it with --dispatch user"
            )))
        }
    };
    Ok(Dispatch::Kernel(kernel))
}

pub(super) fn check_duration(duration: Duration) -> Result<(), Failure> {
    if duration.is_zero() {
        return Err(Failure::bad_input("--duration must be greater than zero"));
    }
    if duration > MAX_RUN_DURATION {
        return Err(Failure::bad_input(format!(
            "--duration {duration} is longer than the {MAX_RUN_DURATION} a real-time run may take (every run holds real-time threads on the machine's cores)"
        )));
    }
    Ok(())
}

/// `--policy table`: the table-driven dispatcher's entry point.
/// A mixed-criticality system: its tables on kairos's table dispatcher.
fn mc(args: &Args, system: kairos_model::McSystem) -> CommandResult {
    match args.policy.as_deref() {
        None | Some("table") if args.dispatch.as_deref() == Some("kernel") => Err(Failure::bad_input(
            "--policy table runs on kairos's table dispatcher (user space); the kernel has no table-driven policy",
        )),
        None | Some("table") => crate::commands::run_table::run(args, system),
        Some(policy) => Err(Failure::bad_input(format!(
            "{} is a mixed-criticality system: it runs under --policy table (its scheduling tables), not {policy}",
            args.file.display()
        ))),
    }
}

/// Each task's job body: busy work, or the `--command TASK=CMD` given for it.
pub(super) fn job_bodies(
    workload: &Workload,
    commands: &[String],
) -> Result<Vec<JobBody>, Failure> {
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

/// What a comparison's simulation takes from a real run.
pub(super) fn real_run(result: &kairos_rt::measure::RunResult) -> RealRun {
    RealRun {
        cores: result.cpus.len(),
        duration: Duration::from_nanos(result.ran_ns),
    }
}

pub(super) fn platform_failure(e: PlatformError) -> Failure {
    if e.is_environment() {
        Failure::environment(e.to_string())
    } else {
        Failure::environment(format!("the runtime could not start: {e}"))
    }
}

pub(super) fn run_failure(e: RunError) -> Failure {
    match e {
        RunError::Platform(p) => platform_failure(p),
        RunError::Invalid(text) => Failure::bad_input(text),
    }
}
