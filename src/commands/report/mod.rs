//! `kairos report FILE -o report.html`: one self-contained page (inline CSS, SVG and a few lines
//! of script; nothing fetched) with the workload, the analysis verdicts with response times and
//! partitions, and for each policy the simulation's metrics, a Gantt chart and the response-time
//! distribution of every task. The page is what a researcher shares after a study: it opens
//! anywhere, offline.

mod charts;
mod html;

use crate::args::{duration_arg, write_output, CommandResult, Failure};
use crate::commands::simulate::{execution_model, priority_order, resolve_duration, run_policy};
use kairos_model::{Duration, Instant, Workload};
use kairos_policy::PolicyKind;
use kairos_sim::{SimConfig, SimOutcome};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A periodic workload (.toml or .json).
    pub file: PathBuf,
    /// The policies to simulate, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "gedf,pedf,gfp,pfp,edzl")]
    pub policies: Vec<String>,
    /// Simulated time per policy (default: one hyper-period, at most 10 s).
    #[arg(long, value_parser = duration_arg)]
    pub duration: Option<Duration>,
    /// The span the Gantt charts show from time 0 (default: the first 100 ms).
    #[arg(long, default_value = "100ms", value_parser = duration_arg)]
    pub gantt: Duration,
    /// Seed of the execution-time draws (the simulations run every job's WCET by default).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The page to write.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

/// One policy's simulation as the page shows it.
pub struct PolicyRun {
    pub name: String,
    pub outcome: SimOutcome,
    /// Per task, every completed job's response time (ns).
    pub responses: Vec<Vec<u64>>,
}

pub fn run(args: &Args) -> CommandResult {
    if crate::commands::vm::is_vm_file(&args.file)
        || crate::commands::simulate::is_mc_file(&args.file)
    {
        return Err(Failure::bad_input(
            "kairos report reads periodic workloads; VM and mixed-criticality systems have their own commands (kairos vm, kairos synth)",
        ));
    }
    let workload = crate::commands::check::load_valid(&args.file)?;
    let analysis = crate::commands::analyze::default_report(&args.file, &workload);
    let duration = resolve_duration(
        &workload,
        args.duration.or(Some(default_duration(&workload))),
    )?;
    let runs = args
        .policies
        .iter()
        .map(|p| simulate(&workload, p.trim(), duration, args.seed))
        .collect::<Result<Vec<_>, _>>()?;
    let page = html::page(&html::Inputs {
        file: &args.file.display().to_string(),
        workload: &workload,
        analysis: &analysis,
        runs: &runs,
        gantt_end: Instant::from_nanos(args.gantt.as_nanos().min(duration.as_nanos())),
    });
    write_output(&args.output, page)?;
    println!(
        "wrote {}: {} task(s), {} polic(ies), {} simulated each",
        args.output.display(),
        workload.tasks.len(),
        runs.len(),
        duration
    );
    Ok(0)
}

/// One hyper-period, at most 10 s.
fn default_duration(workload: &Workload) -> Duration {
    let cap = Duration::from_secs(10);
    workload.hyperperiod().map_or(cap, |h| h.min(cap))
}

fn simulate(
    workload: &Workload,
    policy: &str,
    duration: Duration,
    seed: u64,
) -> Result<PolicyRun, Failure> {
    let kind = PolicyKind::from_cli_name(policy).ok_or_else(|| {
        Failure::bad_input(format!(
            "unknown policy {policy:?}: gedf, pedf, gfp, pfp, edzl, grmwp, prmwp, grm, prm"
        ))
    })?;
    let config = SimConfig {
        duration,
        execution_times: execution_model("wcet"),
        seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: workload.overheads,
    };
    let outcome = run_policy(workload, kind, priority_order("auto"), &config)?;
    let responses = responses(workload, &outcome);
    Ok(PolicyRun {
        name: policy.to_string(),
        outcome,
        responses,
    })
}

/// Per task, the response time of every job the trace shows released and completed.
fn responses(workload: &Workload, outcome: &SimOutcome) -> Vec<Vec<u64>> {
    use kairos_trace::TraceEvent;
    let mut released = std::collections::HashMap::new();
    let mut out = vec![Vec::new(); workload.tasks.len()];
    for event in outcome.trace.iter().flat_map(|t| &t.events) {
        match event {
            TraceEvent::Release { task, job, at, .. } => {
                released.insert((*task, *job), *at);
            }
            TraceEvent::Completion { task, job, at } => {
                if let Some(r) = released.get(&(*task, *job)) {
                    out[*task].push(at.saturating_since(*r).as_nanos());
                }
            }
            _ => {}
        }
    }
    out
}
