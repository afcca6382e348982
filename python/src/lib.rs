//! The native half of the `kairos` Python package: thin calls into the kairos library
//! (`kairos_lab::api`), which the command line uses too, returning the same JSON the CLI prints.
//! The Python half (`kairos/__init__.py`) turns it into dicts and pandas DataFrames.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _kairos,
    NativeError,
    PyException,
    "A kairos error: (message, report JSON or None)."
);

fn raise(e: kairos_lab::api::ApiError) -> PyErr {
    let report = e.report.map(|r| r.to_string());
    NativeError::new_err((e.message, report))
}

/// `kairos check --json`, for a workload's text named like a file.
#[pyfunction]
fn check(name: &str, text: &str) -> PyResult<String> {
    kairos_lab::api::check(name, text)
        .map(|v| v.to_string())
        .map_err(raise)
}

/// `kairos analyze --json`, with `--overheads` (a profile's name and text) and
/// `--overhead-quantile` when given.
#[pyfunction]
#[pyo3(signature = (name, text, overheads=None, quantile="max"))]
fn analyze(
    name: &str,
    text: &str,
    overheads: Option<(String, String)>,
    quantile: &str,
) -> PyResult<String> {
    let profile = overheads.as_ref().map(|(n, t)| (n.as_str(), t.as_str()));
    kairos_lab::api::analyze_with(name, text, profile, quantile)
        .map(|v| v.to_string())
        .map_err(raise)
}

/// `kairos simulate --json` on a workload, an MC-DAG system or a VM system, and the jobs as a
/// JSON array.
#[pyfunction]
#[pyo3(signature = (name, text, policy=None, duration=None, seed=0, execution_times="wcet", overrun_probability=0.0, max_events=kairos_lab::simulate::budget::DEFAULT_MAX_TRACE_EVENTS))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one per CLI flag
fn simulate(
    name: &str,
    text: &str,
    policy: Option<&str>,
    duration: Option<&str>,
    seed: u64,
    execution_times: &str,
    overrun_probability: f64,
    max_events: u64,
) -> PyResult<(String, String)> {
    let duration = duration
        .map(kairos_model::parse_duration)
        .transpose()
        .map_err(|e| NativeError::new_err((format!("duration: {e}"), None::<String>)))?;
    let request = kairos_lab::api::SimRequest {
        policy,
        duration,
        seed,
        execution_times,
        overrun_probability,
        max_events,
    };
    let (metrics, jobs) = kairos_lab::api::simulate(name, text, &request).map_err(raise)?;
    let jobs = serde_json::to_string(&jobs).expect("jobs serialize");
    Ok((metrics.to_string(), jobs))
}

/// Every policy kairos offers, as a JSON array.
#[pyfunction]
fn policies() -> String {
    kairos_lab::api::policies().to_string()
}

/// One shard of an experiment: the verdicts of samples `start..end` of point `point`, as
/// JSON (what `kairos experiment --dask` collects from its workers).
#[pyfunction]
fn experiment_shard(
    name: &str,
    text: &str,
    point: usize,
    start: usize,
    end: usize,
) -> PyResult<String> {
    kairos_lab::api::experiment_shard(name, text, point, start, end).map_err(raise)
}

/// `kairos gen`: the sets a JSON object of its flags asks for, as a JSON array of workloads.
#[pyfunction]
fn generate(request: &str) -> PyResult<String> {
    let sets = kairos_lab::api::generate(request).map_err(raise)?;
    Ok(serde_json::Value::Array(sets).to_string())
}

/// `kairos synth FILE --json --policy POLICY [--cores M] --slot SLOT`, and the tables as
/// JSON when schedulable.
#[pyfunction]
#[pyo3(signature = (file, policy, cores, slot))]
fn synthesize(
    file: &str,
    policy: &str,
    cores: Option<usize>,
    slot: &str,
) -> PyResult<(String, Option<String>)> {
    let slot = kairos_model::parse_duration(slot)
        .map_err(|e| NativeError::new_err((format!("slot: {e}"), None::<String>)))?;
    let (report, tables) =
        kairos_lab::api::synthesize(std::path::Path::new(file), policy, cores, slot)
            .map_err(raise)?;
    Ok((report.to_string(), tables.map(|t| t.to_string())))
}

/// `kairos report NAME -o OUT --json [--policies P,..] [--duration D] [--seed S] [--overrun P]`:
/// the page written, and what it holds as JSON.
#[pyfunction]
#[pyo3(signature = (name, text, out, policies=None, duration=None, seed=0, overrun=0.2))]
fn report(
    name: &str,
    text: &str,
    out: &str,
    policies: Option<Vec<String>>,
    duration: Option<&str>,
    seed: u64,
    overrun: f64,
) -> PyResult<String> {
    let duration = duration
        .map(kairos_model::parse_duration)
        .transpose()
        .map_err(|e| NativeError::new_err((format!("duration: {e}"), None::<String>)))?;
    let request = kairos_lab::api::ReportRequest {
        policies: policies.as_deref(),
        duration,
        seed,
        overrun,
    };
    let written =
        kairos_lab::api::report(name, text, std::path::Path::new(out), &request).map_err(raise)?;
    Ok(written.to_string())
}

#[pymodule]
fn _kairos(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    // The Python signature's default cap is the library's, read from here.
    m.add(
        "DEFAULT_MAX_EVENTS",
        kairos_lab::simulate::budget::DEFAULT_MAX_TRACE_EVENTS,
    )?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_shard, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(synthesize, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    Ok(())
}
