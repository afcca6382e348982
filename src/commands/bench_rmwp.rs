//! `kairos bench rmwp`: the overhead measurements of Chishiro and Yamasaki's "Experimental
//! Evaluation of Global and Partitioned Semi-Fixed-Priority Scheduling Algorithms on Multicore
//! Systems" (section 6.2, figures 6 to 10) on this machine's cores: for sets of 4 to 64
//! imprecise tasks (their generator, scaled to one utilization), G-RMWP, P-RMWP, G-RM and P-RM
//! run on kairos's user-space dispatcher, which times every call of the policy. Per policy and
//! number of tasks, average and maximum of
//! - `end_mandatory` (the policy's callback at the end of a mandatory part),
//! - `end_optional` (at the end of an optional part),
//! - `terminate_optional` (the policy timer at an optional deadline),
//! - the scheduler (one decision),
//! - the overall cost of a pass of the dispatcher (callbacks, decisions, checks, lock held),
//!
//! written as `rmwp-overheads.csv` and one SVG per quantity. Each time includes one clock read
//! (tens of nanoseconds, about the histogram's minimum). The paper's machine ran an RTOS with
//! a hardware timer per core; here the pass begins after a futex wake-up, which the overall
//! figure does not include (`dispatch.timer_to_handler` in `kairos run`).

use crate::args::{duration_arg, write_output, CommandResult, Failure};
use kairos_gen::imprecise::{generate_imprecise_count, ImpreciseConfig};
use kairos_model::{Duration, Workload};
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::dispatcher::{run_user, UserRunConfig, DECIDE, DECISION_COST};
use kairos_rt::dispatcher::{END_MANDATORY, END_OPTIONAL, TIMER_FIRED};
use kairos_rt::measure::RunResult;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RmwpArgs {
    /// Numbers of tasks, one set each.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
    pub tasks: Vec<usize>,
    /// Real-time utilization per core of every set (the paper's U).
    #[arg(long, default_value_t = 0.5)]
    pub utilization: f64,
    /// Cores (the first online CPUs).
    #[arg(long, default_value_t = 2)]
    pub cores: usize,
    /// Length of each run (1s to 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "2s")]
    pub duration: Duration,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Folder for rmwp-overheads.csv and the plots (default: print the table only).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The measured quantities: column name, the histogram, and the paper's figure.
pub const QUANTITIES: [(&str, &str, u8); 5] = [
    ("end_mandatory", END_MANDATORY, 6),
    ("end_optional", END_OPTIONAL, 7),
    ("terminate_optional", TIMER_FIRED, 8),
    ("scheduler", DECIDE, 9),
    ("overall", DECISION_COST, 10),
];

pub const POLICIES: [PolicyKind; 4] = [
    PolicyKind::GlobalRmwp,
    PolicyKind::PartitionedRmwp,
    PolicyKind::GlobalRm,
    PolicyKind::PartitionedRm,
];

/// One quantity of one run, ns.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub policy: String,
    pub tasks: usize,
    pub quantity: String,
    pub count: u64,
    pub mean_ns: u64,
    pub max_ns: u64,
}

pub fn run(args: &RmwpArgs) -> CommandResult {
    check(args)?;
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let mut rows = Vec::new();
    let signals = StopSignals::install();
    for &n in &args.tasks {
        let set = generated(args, n)?;
        for kind in POLICIES {
            eprintln!("{} tasks, {} ...", n, kind.cli_name());
            let result = run_one(args, &set, kind)?;
            rows.extend(rows_of(kind, n, &result));
        }
    }
    drop(signals);
    print_rows(args, &rows);
    if let Some(dir) = &args.out_dir {
        write_output(&dir.join("rmwp-overheads.csv"), csv(&rows))?;
        let files = super::bench_rmwp_plot::write(dir, &rows, &args.tasks)?;
        eprintln!(
            "wrote {}/rmwp-overheads.csv and {}",
            dir.display(),
            files.join(", ")
        );
    }
    Ok(0)
}

fn check(args: &RmwpArgs) -> Result<(), Failure> {
    if !(1_000_000_000..=60_000_000_000).contains(&args.duration.as_nanos()) {
        return Err(Failure::bad_input("--duration must be between 1s and 60s"));
    }
    if args.tasks.is_empty() || args.tasks.iter().any(|&n| n == 0 || n > 1000) {
        return Err(Failure::bad_input(
            "--tasks: numbers of tasks from 1 to 1000",
        ));
    }
    if !(args.utilization > 0.0 && args.utilization <= 1.0) || args.cores == 0 {
        return Err(Failure::bad_input(
            "--utilization in (0, 1] per core, --cores at least 1",
        ));
    }
    Ok(())
}

fn generated(args: &RmwpArgs, n: usize) -> Result<Workload, Failure> {
    let config = ImpreciseConfig::new(args.utilization * args.cores as f64);
    let mut rng = kairos_gen::seeded(args.seed ^ n as u64);
    let tasks = generate_imprecise_count(&mut rng, n, &config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(kairos_gen::make_workload(
        Some(format!("rmwp-{n}")),
        args.cores,
        tasks,
    ))
}

/// One real run of `set` under `kind`, with the optional deadlines and partition it uses.
fn run_one(args: &RmwpArgs, set: &Workload, kind: PolicyKind) -> Result<RunResult, Failure> {
    let planned = kairos_lab::imprecise::prepare(kind, set, &mut crate::args::to_stderr)?;
    let mut config = UserRunConfig::new(args.duration.as_nanos());
    config.control = Some(RunControl::new());
    let run = run_user(&planned, kind.build(PriorityOrder::RateMonotonic), &config)
        .map_err(|e| Failure::environment(e.to_string()))?;
    if let Some(why) = &run.result.stopped_by {
        // Still a measurement of every call made until then: reported, and said.
        eprintln!(
            "warning: {} with {} tasks stopped after {}: {why}",
            kind.cli_name(),
            set.tasks.len(),
            kairos_lab::text::human_ns(run.result.ran_ns)
        );
    }
    Ok(run.result)
}

fn rows_of(kind: PolicyKind, tasks: usize, result: &RunResult) -> Vec<Row> {
    QUANTITIES
        .iter()
        .filter_map(|&(quantity, histogram, _)| {
            let h = result.histograms.get(histogram)?;
            Some(Row {
                policy: kind.cli_name().to_string(),
                tasks,
                quantity: quantity.to_string(),
                count: h.summary.count,
                mean_ns: h.summary.mean,
                max_ns: h.summary.max,
            })
        })
        .collect()
}

fn print_rows(args: &RmwpArgs, rows: &[Row]) {
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(rows).expect("rows serialize")
        );
        return;
    }
    println!(
        "{:<7} {:>5} {:<19} {:>8} {:>10} {:>10}",
        "policy", "tasks", "quantity", "calls", "mean", "max"
    );
    for r in rows {
        println!(
            "{:<7} {:>5} {:<19} {:>8} {:>10} {:>10}",
            r.policy,
            r.tasks,
            r.quantity,
            r.count,
            kairos_lab::text::human_ns(r.mean_ns),
            kairos_lab::text::human_ns(r.max_ns)
        );
    }
}

fn csv(rows: &[Row]) -> String {
    let mut out = String::from("policy,tasks,quantity,calls,mean_ns,max_ns\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{}\n",
            r.policy, r.tasks, r.quantity, r.count, r.mean_ns, r.max_ns
        ));
    }
    out
}
