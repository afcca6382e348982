//! The overhead measurements of Chishiro and Yamasaki's "Experimental
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

use crate::error::write_output;
use crate::{Failure, Notify};
use kairos_gen::imprecise::{generate_imprecise_count, ImpreciseConfig};
use kairos_model::{Duration, Workload};
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::dispatcher::{run_user, UserRunConfig, DECIDE, DECISION_COST};
use kairos_rt::dispatcher::{END_MANDATORY, END_OPTIONAL, TIMER_FIRED};
use kairos_rt::measure::RunResult;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::path::Path;

/// What to measure.
pub struct Request {
    /// Numbers of tasks, one set each.
    pub tasks: Vec<usize>,
    /// Utilization per core of each set.
    pub utilization: f64,
    pub cores: usize,
    /// Length of each run (1s to 60s).
    pub duration: Duration,
    pub seed: u64,
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

/// Runs every policy on every set, what runs and what stopped early told to `notify`; the
/// rows per policy, number of tasks and quantity.
pub fn run(args: &Request, notify: Notify) -> Result<Vec<Row>, Failure> {
    check(args)?;
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let mut rows = Vec::new();
    let signals = StopSignals::install();
    for &n in &args.tasks {
        let set = generated(args, n)?;
        for kind in POLICIES {
            notify(&format!("{} tasks, {} ...", n, kind.cli_name()));
            let result = run_one(args, &set, kind, notify)?;
            rows.extend(rows_of(kind, n, &result));
        }
    }
    drop(signals);
    Ok(rows)
}

/// Writes the rows as CSV and one chart per quantity into `dir`; the files written.
pub fn write(
    dir: &Path,
    rows: &[Row],
    tasks: &[usize],
    notify: Notify,
) -> Result<Vec<String>, Failure> {
    write_output(&dir.join("rmwp-overheads.csv"), csv(rows))?;
    super::rmwp_plot::write(dir, rows, tasks, notify)
}

fn check(args: &Request) -> Result<(), Failure> {
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

fn generated(args: &Request, n: usize) -> Result<Workload, Failure> {
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
fn run_one(
    args: &Request,
    set: &Workload,
    kind: PolicyKind,
    notify: Notify,
) -> Result<RunResult, Failure> {
    let planned = crate::imprecise::prepare(kind, set, notify)?;
    let mut config = UserRunConfig::new(args.duration.as_nanos());
    config.control = Some(RunControl::new());
    let run = run_user(&planned, kind.build(PriorityOrder::RateMonotonic), &config)
        .map_err(|e| Failure::environment(e.to_string()))?;
    if let Some(why) = &run.result.stopped_by {
        // Still a measurement of every call made until then: reported, and said.
        notify(&format!(
            "warning: {} with {} tasks stopped after {}: {why}",
            kind.cli_name(),
            set.tasks.len(),
            crate::text::human_ns(run.result.ran_ns)
        ));
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

/// The rows in text, as `kairos bench rmwp` prints them.
pub fn text(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "{:<7} {:>5} {:<19} {:>8} {:>10} {:>10}\n",
        "policy", "tasks", "quantity", "calls", "mean", "max"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<7} {:>5} {:<19} {:>8} {:>10} {:>10}",
            r.policy,
            r.tasks,
            r.quantity,
            r.count,
            crate::text::human_ns(r.mean_ns),
            crate::text::human_ns(r.max_ns)
        );
    }
    out
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
