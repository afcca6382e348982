//! kairos as a library for other front ends: each function gives what the command line's
//! `--json` gives for the same input, from the same code, so the Python package (`python/`)
//! and the CLI cannot disagree. Inputs are a workload's text with a name (the file name the CLI
//! would print, whose extension gives the format).

use crate::commands::{analyze, check, simulate};
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::{Duration, Workload};
use kairos_sim::SimConfig;
use kairos_trace::TraceEvent;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// Why a call failed: the message the CLI prints, and for a workload with errors the
/// `kairos check --json` report with every located diagnostic.
#[derive(Debug)]
pub struct ApiError {
    pub message: String,
    pub report: Option<Value>,
}

impl From<crate::args::Failure> for ApiError {
    fn from(f: crate::args::Failure) -> Self {
        ApiError {
            message: f.message,
            report: None,
        }
    }
}

/// `kairos check --json NAME`.
pub fn check(name: &str, text: &str) -> Result<Value, ApiError> {
    let slot = LoadOptions::default().slot;
    Ok(check::evaluate(Path::new(name), text, slot).json)
}

/// The input in `text` for `kairos command`, which takes `kinds`: another kind is refused
/// with who takes it, a file with errors with its check report.
fn input(name: &str, text: &str, command: &str, kinds: &[InputKind]) -> Result<Input, ApiError> {
    let loaded = kairos_model::input::load(Path::new(name), text, &LoadOptions::default());
    if let Some(kind) = loaded.kind.filter(|k| !kinds.contains(k)) {
        return Err(ApiError {
            message: format!(
                "`kairos {command}` does not take {} ({name}): {}",
                kind.describe(),
                crate::input::taken_by(kind)
            ),
            report: None,
        });
    }
    loaded.input.ok_or_else(|| ApiError {
        message: format!("{name} has errors; see `kairos check {name}`"),
        report: check(name, text).ok(),
    })
}

/// The periodic workload in `text` (or a SimSo configuration's), or why not.
fn workload(name: &str, text: &str, command: &str) -> Result<Workload, ApiError> {
    match input(name, text, command, &crate::input::WORKLOADS)? {
        Input::Workload(w) => Ok(w),
        _ => unreachable!("the workload kinds load to workloads"),
    }
}

/// `kairos analyze --json NAME` (the default tests; a VM system's compositional analysis).
pub fn analyze(name: &str, text: &str) -> Result<Value, ApiError> {
    let kinds = [InputKind::Workload, InputKind::SimsoXml, InputKind::Vm];
    match input(name, text, "analyze", &kinds)? {
        Input::Vm(system) => {
            let report = kairos_analysis::csa::analyze(&system);
            Ok(serde_json::to_value(&report).expect("the report serializes"))
        }
        Input::Workload(w) => Ok(analyze::default_report(Path::new(name), &w)),
        _ => unreachable!("analyze takes workloads and VM systems"),
    }
}

/// One job of a simulation, for per-job tables.
#[derive(Clone, Debug, Serialize)]
pub struct JobRow {
    pub task: String,
    pub job: u64,
    pub release_ns: u64,
    pub deadline_ns: u64,
    /// None: not completed within the simulated time.
    pub completion_ns: Option<u64>,
    pub response_ns: Option<u64>,
    pub missed: bool,
}

/// Every policy kairos offers (`kairos_policy::registry`): name, summary and the input kinds
/// it runs.
pub fn policies() -> Value {
    let list = kairos_policy::registry::POLICIES.iter().map(|p| {
        let takes: Vec<&str> = p.runs.kinds().iter().map(|k| k.name()).collect();
        serde_json::json!({ "name": p.name, "summary": p.summary, "takes": takes })
    });
    Value::Array(list.collect())
}

/// `kairos simulate --json NAME [--policy P] [--duration D] [--seed S] [--exec E]`, and every
/// job's release, deadline and completion; without a policy, the input's default.
pub fn simulate(
    name: &str,
    text: &str,
    policy: Option<&str>,
    duration: Option<Duration>,
    seed: u64,
    execution_times: &str,
) -> Result<(Value, Vec<JobRow>), ApiError> {
    let w = workload(name, text, "simulate")?;
    let default = kairos_policy::registry::default_for(InputKind::Workload, Some(&w));
    let policy = policy.or(default).expect("a workload has a default policy");
    let kind = kairos_policy::registry::of_tasks(policy).map_err(|message| ApiError {
        message,
        report: None,
    })?;
    if !["wcet", "uniform"].contains(&execution_times) {
        return Err(ApiError {
            message: format!("unknown execution times {execution_times:?}: wcet or uniform"),
            report: None,
        });
    }
    let config = SimConfig {
        duration: simulate::resolve_duration(&w, duration)?,
        execution_times: simulate::execution_model(execution_times),
        seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: w.overheads,
    };
    let outcome = simulate::run_policy(&w, kind, simulate::priority_order("auto"), &config)?;
    let metrics = serde_json::to_value(&outcome.metrics).expect("metrics serialize");
    let rows = outcome
        .trace
        .as_ref()
        .map_or_else(Vec::new, |t| job_rows(&w, t));
    Ok((metrics, rows))
}

/// Every job a trace shows released: release, deadline, completion and response, missed.
pub fn job_rows(w: &Workload, trace: &kairos_trace::Trace) -> Vec<JobRow> {
    let mut rows: Vec<JobRow> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for event in &trace.events {
        match event {
            TraceEvent::Release {
                task,
                job,
                at,
                deadline,
            } => {
                index.insert((*task, *job), rows.len());
                rows.push(JobRow {
                    task: w.tasks[*task].name.clone(),
                    job: *job,
                    release_ns: at.as_nanos(),
                    deadline_ns: deadline.as_nanos(),
                    completion_ns: None,
                    response_ns: None,
                    missed: false,
                });
            }
            TraceEvent::Completion { task, job, at } => {
                if let Some(row) = index.get(&(*task, *job)).map(|&i| &mut rows[i]) {
                    row.completion_ns = Some(at.as_nanos());
                    row.response_ns = Some(at.as_nanos() - row.release_ns);
                }
            }
            TraceEvent::DeadlineMiss { task, job, .. } => {
                if let Some(row) = index.get(&(*task, *job)).map(|&i| &mut rows[i]) {
                    row.missed = true;
                }
            }
            _ => {}
        }
    }
    rows
}

/// One shard of `kairos experiment NAME`: the verdicts of samples `start..end` of point
/// `point` as JSON (what `kairos experiment --dask` collects from its workers).
pub fn experiment_shard(
    name: &str,
    text: &str,
    point: usize,
    start: usize,
    end: usize,
) -> Result<String, ApiError> {
    Ok(crate::commands::experiment::shard::shard_json(
        Path::new(name),
        text,
        point,
        start,
        end,
    )?)
}

/// `kairos gen`: each generated set as the JSON workload `kairos gen --out set.json` writes.
/// `request` is a JSON object of `kairos gen`'s flags (`{"utilization": 2, "tasks": 10}`).
pub fn generate(request: &str) -> Result<Vec<Value>, ApiError> {
    let request: crate::generation::SetRequest =
        serde_json::from_str(request).map_err(|e| ApiError {
            message: format!("generate: {e}"),
            report: None,
        })?;
    Ok(crate::commands::gen::generated_workloads(&request)?)
}

/// `kairos synth FILE --json`, and the tables (the JSON `--out` writes) when the system is
/// schedulable: slot priorities by `policy` (or the federated baseline), on `cores` if given,
/// one file time unit lasting `slot` for MC-DAG XML.
pub fn synthesize(
    file: &Path,
    policy: &str,
    cores: Option<usize>,
    slot: Duration,
) -> Result<(Value, Option<Value>), ApiError> {
    const POLICIES: [&str; 4] = ["gedzl", "gedf", "gllf", "federated"];
    if !POLICIES.contains(&policy) {
        return Err(ApiError {
            message: format!("synthesize: policy {policy:?} is not one of {POLICIES:?}"),
            report: None,
        });
    }
    if cores == Some(0) {
        return Err(ApiError {
            message: "synthesize: cores must be at least 1".into(),
            report: None,
        });
    }
    let request = crate::commands::synth::Request {
        file: file.to_path_buf(),
        policy: policy.to_string(),
        cores,
        out: None,
    };
    let options = LoadOptions { slot, cores: None };
    let system = crate::input::mc_system(file, "synth", &options)?;
    let (report, outcome) = crate::commands::synth::synthesize_report(&request, &system)?;
    let tables = outcome
        .map(|(out, _)| serde_json::from_str(&out.tables.to_json()).expect("tables are JSON"));
    Ok((report, tables))
}
