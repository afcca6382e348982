//! kairos as a library for other front ends: each function gives what the command line's
//! `--json` gives for the same input, from the same code, so the Python package (`python/`)
//! and the CLI cannot disagree. Inputs are a workload's text with a name (the file name the CLI
//! would print, whose extension gives the format).

use crate::check;
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::{Duration, Instant};
use kairos_sim::ExecutionTimeModel;
use serde_json::Value;
use std::path::Path;

/// Why a call failed: the message the CLI prints, and for a workload with errors the
/// `kairos check --json` report with every located diagnostic.
#[derive(Debug)]
pub struct ApiError {
    pub message: String,
    pub report: Option<Value>,
}

impl From<crate::Failure> for ApiError {
    fn from(f: crate::Failure) -> Self {
        ApiError {
            message: f.message,
            report: None,
        }
    }
}

/// `kairos check --json NAME`.
pub fn check(name: &str, text: &str) -> Result<Value, ApiError> {
    let slot = LoadOptions::default().slot;
    let report = check::evaluate(Path::new(name), text, slot).report;
    Ok(serde_json::to_value(report).expect("the report serializes"))
}

/// The input in `text` for `kairos command`, which takes `kinds`: another kind is refused
/// with who takes it, a file with errors with its check report.
fn input(name: &str, text: &str, command: &str, kinds: &[InputKind]) -> Result<Input, ApiError> {
    input_with(name, text, command, kinds, &LoadOptions::default())
}

/// [`input`] with load options (the slot of an XML file).
fn input_with(
    name: &str,
    text: &str,
    command: &str,
    kinds: &[InputKind],
    options: &LoadOptions,
) -> Result<Input, ApiError> {
    let loaded = kairos_model::input::load(Path::new(name), text, options);
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
    analyze_with(name, text, None, "max")
}

/// `kairos analyze --json NAME --overheads PROFILE --overhead-quantile QUANTILE`: `profile` is
/// the name and text of a file with an `[overheads]` table.
pub fn analyze_with(
    name: &str,
    text: &str,
    profile: Option<(&str, &str)>,
    quantile: &str,
) -> Result<Value, ApiError> {
    let quantile = kairos_analysis::overheads::Quantile::parse(quantile).map_err(refused)?;
    let point = quantile.profile_key();
    let profile = profile
        .map(|(n, t)| overheads_of(n, t, point))
        .transpose()?;
    let kinds = [InputKind::Workload, InputKind::SimsoXml, InputKind::Vm];
    match input(name, text, "analyze", &kinds)? {
        Input::Vm(system) => {
            let report = kairos_analysis::csa::analyze(&system);
            let mut value = serde_json::to_value(&report).expect("the report serializes");
            if let Some(overheads) = profile {
                let charging = crate::vm::Charging {
                    source: "profile",
                    overheads,
                    quantile,
                };
                let aware = crate::vm::with_overheads(&system, &charging);
                value["overheads"] = serde_json::to_value(aware).expect("the report serializes");
            }
            Ok(value)
        }
        Input::Workload(w) => {
            let list = kairos_analysis::registry::TestList::parse("default").map_err(refused)?;
            let request = crate::analyze::OverheadRequest { profile, quantile };
            let analysis = crate::analyze::analyze_with(name, &w, &list, &request);
            Ok(serde_json::to_value(analysis).expect("the analysis serializes"))
        }
        _ => unreachable!("analyze takes workloads and VM systems"),
    }
}

/// The `[overheads]` table of a profile's text, each distribution with `point` when given,
/// its errors located in the message.
fn overheads_of(
    name: &str,
    text: &str,
    point: Option<&str>,
) -> Result<kairos_model::Overheads, ApiError> {
    let path = Path::new(name);
    kairos_model::input::load_overheads_charging(path, text, point).map_err(|diagnostics| {
        let located: Vec<String> = diagnostics.iter().map(|d| d.render(name)).collect();
        refused(format!(
            "{name}: no usable [overheads] table\n{}",
            located.join("\n")
        ))
    })
}

pub use crate::simulate::jobs::{job_rows, JobRow};

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
    /// The most trace events the job table may come from (`kairos simulate --max-events`,
    /// [`crate::simulate::budget::DEFAULT_MAX_TRACE_EVENTS`] there): a longer run is refused
    /// before it starts, with its estimate.
    pub max_events: u64,
}

/// `kairos simulate --json NAME ...` on any input simulate takes (a workload, a SimSo
/// configuration, an MC-DAG system, a VM system), and every job's release, deadline and
/// completion.
pub fn simulate(
    name: &str,
    text: &str,
    request: &SimRequest,
) -> Result<(Value, Vec<JobRow>), ApiError> {
    if request.max_events == 0 {
        return Err(refused(
            "max_events is at least 1: the most trace events the jobs may come from",
        ));
    }
    let execution_times = match request.execution_times {
        "wcet" => ExecutionTimeModel::Wcet,
        "uniform" => ExecutionTimeModel::Uniform,
        other => {
            return Err(refused(format!(
                "unknown execution times {other:?}: wcet or uniform"
            )))
        }
    };
    let kinds = [
        InputKind::Workload,
        InputKind::SimsoXml,
        InputKind::McDag,
        InputKind::McDagXml,
        InputKind::Vm,
    ];
    let input = input(name, text, "simulate", &kinds)?;
    let lab_request = crate::simulate::Request {
        policy: request.policy.map(str::to_string),
        duration: request.duration,
        seed: request.seed,
        execution_times,
        record_trace: true,
        overrun_probability: request.overrun_probability,
        max_events: request.max_events,
        ..Default::default()
    };
    // Python has no standard error of its own to print notices on: they are dropped here, as
    // the check report carries a file's warnings.
    let simulation = crate::simulate::simulate(name, input, None, &lab_request, &mut |_| {})?;
    Ok((
        simulation.metrics_json(),
        simulation.trace().map_or_else(Vec::new, job_rows),
    ))
}

fn refused(message: impl Into<String>) -> ApiError {
    ApiError {
        message: message.into(),
        report: None,
    }
}

/// What a report page shows besides its input: `kairos report`'s options.
pub struct ReportRequest<'a> {
    /// None: the input's default policies (`kairos_policy::registry::compared_for`).
    pub policies: Option<&'a [String]>,
    pub duration: Option<Duration>,
    pub seed: u64,
    /// MC-DAG systems: each job above the lowest level overruns with this probability.
    pub overrun: f64,
}

/// `kairos report NAME -o OUT --json`: the page written to `out` (its Gantt charts show the
/// first 100 ms), and what it holds.
pub fn report(
    name: &str,
    text: &str,
    out: &Path,
    request: &ReportRequest,
) -> Result<Value, ApiError> {
    if !(0.0..=1.0).contains(&request.overrun) {
        return Err(refused("the overrun probability is between 0 and 1"));
    }
    let input = input(name, text, "report", &crate::report::TAKES)?;
    let window = (Instant::ZERO, Instant::ZERO + Duration::from_millis(100));
    let page = crate::report::Request {
        file: Path::new(name),
        policies: request.policies,
        duration: request.duration,
        gantt_window: window,
        seed: request.seed,
        overrun: request.overrun,
        max_events: crate::simulate::budget::DEFAULT_MAX_TRACE_EVENTS,
    };
    let written = crate::report::write(&page, input, out, &mut |_| {})?;
    Ok(serde_json::to_value(written).expect("the report serializes"))
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
    Ok(crate::experiment::shard::shard_json(
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
    Ok(crate::generation::generated_workloads(&request)?)
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
    let request = crate::synth::Request {
        file: file.display().to_string(),
        policy: policy.to_string(),
        cores,
        out: None,
        overheads: None,
    };
    let options = LoadOptions { slot, cores: None };
    let name = file.display().to_string();
    let text = crate::input::read_text(file)?;
    let system = match input_with(&name, &text, "synth", &crate::input::MC, &options)? {
        Input::Mc(system) => system,
        _ => unreachable!("the MC kinds load to MC systems"),
    };
    let synthesized = crate::synth::synthesize_tables(&request, &system)?;
    let report = serde_json::to_value(&synthesized.summary).expect("the summary serializes");
    let tables = (synthesized.synthesis)
        .map(|out| serde_json::from_str(&out.tables.to_json()).expect("tables are JSON"));
    Ok((report, tables))
}
