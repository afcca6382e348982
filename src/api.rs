//! kairos as a library for other front ends: each function gives what the command line's
//! `--json` gives for the same input, from the same code, so the Python package (`python/`)
//! and the CLI cannot disagree. Inputs are a workload's text with a name (the file name the CLI
//! would print, whose extension gives the format).

use crate::commands::{analyze, check, simulate};
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::{Duration, McSystem, VmSystem, Workload};
use kairos_sim::table::{simulate_tables, TableExecModel, TableSimConfig};
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

/// What to simulate besides the input: `kairos simulate`'s flags.
pub struct SimRequest<'a> {
    /// None: the input's default (`table` for an MC-DAG system; a VM system runs its `[vmm]`).
    pub policy: Option<&'a str>,
    pub duration: Option<Duration>,
    pub seed: u64,
    /// `wcet` or `uniform`.
    pub execution_times: &'a str,
    /// MC-DAG systems: each job above the lowest level overruns with this probability.
    pub overrun_probability: f64,
}

/// `kairos simulate --json NAME ...` on any input simulate takes (a workload, a SimSo
/// configuration, an MC-DAG system, a VM system), and every job's release, deadline and
/// completion.
pub fn simulate(
    name: &str,
    text: &str,
    request: &SimRequest,
) -> Result<(Value, Vec<JobRow>), ApiError> {
    if !["wcet", "uniform"].contains(&request.execution_times) {
        return Err(refused(format!(
            "unknown execution times {:?}: wcet or uniform",
            request.execution_times
        )));
    }
    if !(0.0..=1.0).contains(&request.overrun_probability) {
        return Err(refused("the overrun probability is between 0 and 1"));
    }
    let kinds = [
        InputKind::Workload,
        InputKind::SimsoXml,
        InputKind::McDag,
        InputKind::McDagXml,
        InputKind::Vm,
    ];
    let mc_only = request.overrun_probability > 0.0;
    match input(name, text, "simulate", &kinds)? {
        Input::Workload(w) if !mc_only => simulate_workload(&w, request),
        Input::Vm(system) if !mc_only => simulate_vm(&system, request),
        Input::Mc(system) => simulate_mc(&system, request),
        _ => Err(refused(
            "an overrun probability applies to mixed-criticality systems only",
        )),
    }
}

fn refused(message: impl Into<String>) -> ApiError {
    ApiError {
        message: message.into(),
        report: None,
    }
}

fn rows_of(trace: Option<&kairos_trace::Trace>) -> Vec<JobRow> {
    trace.map_or_else(Vec::new, job_rows)
}

fn simulate_workload(w: &Workload, request: &SimRequest) -> Result<(Value, Vec<JobRow>), ApiError> {
    let default = kairos_policy::registry::default_for(InputKind::Workload, Some(w));
    let policy = request
        .policy
        .or(default)
        .expect("a workload has a default policy");
    let kind = kairos_policy::registry::of_tasks(policy).map_err(refused)?;
    let config = SimConfig {
        duration: simulate::resolve_duration(w, request.duration)?,
        execution_times: simulate::execution_model(request.execution_times),
        seed: request.seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: w.overheads,
    };
    let outcome = simulate::run_policy(w, kind, simulate::priority_order("auto"), &config)?;
    let metrics = serde_json::to_value(&outcome.metrics).expect("metrics serialize");
    Ok((metrics, rows_of(outcome.trace.as_ref())))
}

/// A VM system under its file's `[vmm]` and guests, on the VCPUs its interfaces give.
fn simulate_vm(system: &VmSystem, request: &SimRequest) -> Result<(Value, Vec<JobRow>), ApiError> {
    if let Some(policy) = request.policy {
        return Err(refused(format!(
            "a VM system runs its file's [vmm] and guests, not --policy {policy}"
        )));
    }
    let plan = crate::commands::vm::prepare(system).map_err(refused)?.plan;
    let config = SimConfig {
        duration: simulate::resolve_duration(&plan.workload, request.duration)?,
        execution_times: simulate::execution_model(request.execution_times),
        seed: request.seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: Default::default(),
    };
    let (outcome, metrics) =
        kairos_sim::vm::simulate_vm(&plan, &config).map_err(|e| refused(e.to_string()))?;
    let metrics = serde_json::to_value(&metrics).expect("metrics serialize");
    Ok((metrics, rows_of(outcome.trace.as_ref())))
}

/// An MC-DAG system's tables (synthesized with GMH-MC-DAG) run as G-MCRES runs them.
fn simulate_mc(system: &McSystem, request: &SimRequest) -> Result<(Value, Vec<JobRow>), ApiError> {
    if let Some(policy) = request.policy.filter(|p| *p != "table") {
        return Err(refused(format!(
            "a mixed-criticality system runs under the table policy, not {policy}"
        )));
    }
    let max = kairos_model::decode::MAX_DURATION;
    if request.duration.is_some_and(|d| d.is_zero() || d > max) {
        return Err(refused(format!(
            "the duration must be greater than zero and at most {max}"
        )));
    }
    let (tables, _) = simulate::tables_for(system, None)?;
    let config = TableSimConfig {
        duration: request.duration,
        execution_times: match request.execution_times {
            "uniform" => TableExecModel::Uniform { min_fraction: 0.0 },
            _ => TableExecModel::Wcet,
        },
        overruns: Vec::new(),
        overrun_probability: request.overrun_probability,
        seed: request.seed,
        record_trace: true,
    };
    let outcome = simulate_tables(system, &tables, &config).map_err(|e| refused(e.to_string()))?;
    let metrics = serde_json::to_value(&outcome.metrics).expect("metrics serialize");
    Ok((metrics, rows_of(outcome.trace.as_ref())))
}

/// Every job a trace shows released: release, deadline, completion and response, missed.
pub fn job_rows(trace: &kairos_trace::Trace) -> Vec<JobRow> {
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
                    task: trace.task_names[*task].clone(),
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
    Ok(kairos_lab::experiment::shard::shard_json(
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
    let max = kairos_model::decode::MAX_CORES;
    if cores.is_some_and(|c| c == 0 || c > max) {
        return Err(refused(format!(
            "synthesize: cores must be between 1 and {max}"
        )));
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
