//! `kairos report FILE -o report.html`: one self-contained page (inline CSS, SVG and a few lines
//! of script; nothing fetched) with the workload, the analysis verdicts with response times and
//! partitions, and for each policy the simulation's metrics, a Gantt chart and the response-time
//! distribution of every task; for a mixed-criticality system, its tables and mode changes
//! ([`mc`]); for a VM system, its interfaces and the two-level simulation ([`vm`]). The page is what a researcher shares after a study: it opens
//! anywhere, offline.

mod charts;
mod html;
mod mc;
pub mod run;
mod vm;

use crate::args::{duration_arg, write_output, CommandResult, Failure};
use crate::commands::simulate::{execution_model, priority_order, resolve_duration, run_policy};
use crate::input::load_for;
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::{Duration, Instant, McSystem, VmSystem, Workload};
use kairos_policy::{registry, PolicyKind};
use kairos_sim::{SimConfig, SimOutcome};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A workload (.toml or .json), a SimSo configuration (.xml), a mixed-criticality DAG system
    /// (kairos file or MC-DAG framework .xml), or a VM system (`kairos check` says which).
    pub file: PathBuf,
    /// The policies to simulate, comma-separated. Default: grmwp, prmwp, grm and prm for a
    /// workload with imprecise tasks, else gedf, pedf, gfp, pfp and edzl.
    #[arg(long, value_delimiter = ',', value_parser = crate::args::policy_values(false, &[]))]
    pub policies: Option<Vec<String>>,
    /// Simulated time per policy (default: as `kairos simulate`, the feasibility interval
    /// (one hyper-period, or max offset + 2 of them with offsets), at most 10 s).
    #[arg(long, value_parser = duration_arg)]
    pub duration: Option<Duration>,
    /// The span the Gantt charts show from time 0 (default: the first 100 ms).
    #[arg(long, default_value = "100ms", value_parser = duration_arg)]
    pub gantt: Duration,
    /// Seed of the random draws (mixed-criticality overruns).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mixed-criticality systems: each job above the lowest level overruns to a higher level's
    /// WCET with this probability, so the page shows mode changes.
    #[arg(long, default_value_t = 0.2)]
    pub overrun: f64,
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

/// The kinds `kairos report` takes.
const TAKES: [InputKind; 5] = [
    InputKind::Workload,
    InputKind::SimsoXml,
    InputKind::McDag,
    InputKind::McDagXml,
    InputKind::Vm,
];

pub fn run(args: &Args) -> CommandResult {
    let taken = load_for(&args.file, "report", &TAKES, &LoadOptions::default())?;
    let workload = match taken.input {
        Input::Vm(system) => return vm_page(args, &system),
        Input::Mc(system) => return mc_page(args, &system),
        Input::Workload(workload) => workload,
        _ => unreachable!("report takes workloads, MC and VM systems"),
    };
    let analysis = crate::commands::analyze::default_report(&args.file, &workload);
    let duration = resolve_duration(&workload, args.duration)?;
    let policies = match &args.policies {
        Some(named) => named.iter().map(String::as_str).collect(),
        None => registry::compared_for(&workload),
    };
    let runs = (policies.iter())
        .map(|p| simulate(&workload, p, duration, args.seed))
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

fn vm_page(args: &Args, system: &VmSystem) -> CommandResult {
    let page = vm::page(&args.file, system, args.duration, args.gantt, args.seed)?;
    write_output(&args.output, page)?;
    println!(
        "wrote {}: interfaces and the two-level simulation",
        args.output.display()
    );
    Ok(0)
}

fn mc_page(args: &Args, system: &McSystem) -> CommandResult {
    let page = mc::page(&args.file, system, args.overrun, args.seed, args.duration)?;
    write_output(&args.output, page)?;
    println!("wrote {}: tables and mode changes", args.output.display());
    Ok(0)
}

fn simulate(
    workload: &Workload,
    policy: &str,
    duration: Duration,
    seed: u64,
) -> Result<PolicyRun, Failure> {
    let kind = PolicyKind::from_cli_name(policy).expect("clap takes the registry's names");
    let config = SimConfig {
        duration,
        execution_times: execution_model("wcet"),
        seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: workload.overheads,
    };
    let outcome = run_policy(workload, kind, priority_order("auto"), &config)?;
    let responses = outcome
        .trace
        .as_ref()
        .map_or_else(Vec::new, |t| responses(workload, t));
    Ok(PolicyRun {
        name: policy.to_string(),
        outcome,
        responses,
    })
}

/// Per task, the response time of every job the trace shows released and completed.
fn responses(workload: &Workload, trace: &kairos_trace::Trace) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); workload.tasks.len()];
    let index: std::collections::HashMap<&str, usize> = workload
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    for row in crate::api::job_rows(workload, trace) {
        if let (Some(response), Some(&task)) = (row.response_ns, index.get(row.task.as_str())) {
            out[task].push(response);
        }
    }
    out
}
