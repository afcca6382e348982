//! `kairos report FILE -o report.html`: one self-contained page (inline CSS, SVG and a few lines
//! of script; nothing fetched) with the workload, the analysis verdicts with response times and
//! partitions, and for each policy the simulation's metrics, a Gantt chart and the response-time
//! distribution of every task; for a mixed-criticality system, its tables and mode changes
//! (`mc`); for a VM system, its interfaces and the two-level simulation (`vm`). The page is what a researcher shares after a study: it opens
//! anywhere, offline.

mod charts;
mod html;
mod mc;
pub mod run;
mod vm;

use crate::simulate::budget::{self, TraceScope};
use crate::simulate::{resolve_duration, run_policy};
use crate::{Failure, Notify};
use kairos_model::input::{Input, InputKind};
use kairos_model::{Duration, Instant, Workload};
use kairos_policy::registry;
use kairos_policy::PriorityOrder;
use kairos_sim::ExecutionTimeModel;
use kairos_sim::{SimConfig, SimOutcome};
use std::path::Path;

/// One policy's simulation as the page shows it.
pub struct PolicyRun {
    pub name: String,
    pub outcome: SimOutcome,
    /// Per task, every completed job's response time (ns).
    pub responses: Vec<Vec<u64>>,
}

/// The kinds `kairos report` takes.
pub const TAKES: [InputKind; 5] = [
    InputKind::Workload,
    InputKind::SimsoXml,
    InputKind::McDag,
    InputKind::McDagXml,
    InputKind::Vm,
];

/// What a written page holds, as `--json` prints it.
#[derive(serde::Serialize)]
pub struct Written {
    /// The page written.
    pub out: String,
    /// The input it reports on and that input's kind.
    pub file: String,
    pub kind: &'static str,
    /// Simulated time of each run on the page.
    pub duration_ns: u64,
    pub runs: Vec<RunSummary>,
}

/// One simulation on the page.
#[derive(serde::Serialize)]
pub struct RunSummary {
    pub policy: String,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
}

impl RunSummary {
    /// `counts`: jobs released, completed and missed.
    pub fn of(policy: &str, counts: [u64; 3]) -> Self {
        let [jobs_released, jobs_completed, deadline_misses] = counts;
        RunSummary {
            policy: policy.to_string(),
            jobs_released,
            jobs_completed,
            deadline_misses,
        }
    }
}

/// What a page is made from, whichever kind of input it reports on.
pub struct Request<'a> {
    /// The input's path, as the page names it.
    pub file: &'a Path,
    /// Workloads: the policies to simulate (default: [`registry::compared_for`]).
    pub policies: Option<&'a [String]>,
    /// Simulated time (default: as `kairos simulate`).
    pub duration: Option<Duration>,
    pub gantt_window: (Instant, Instant),
    pub seed: u64,
    /// MC-DAG systems: each job above the lowest level overruns with this probability.
    pub overrun: f64,
    /// The most events each simulation's trace may hold, estimated before it runs.
    pub max_events: u64,
}

/// A page and what it holds.
pub struct Page {
    pub html: String,
    pub kind: &'static str,
    pub duration_ns: u64,
    pub runs: Vec<RunSummary>,
}

/// The page of `input`, written to `out`: what it holds.
pub fn write(
    request: &Request,
    input: Input,
    out: &Path,
    notify: Notify,
) -> Result<Written, Failure> {
    let page = build(request, input, notify)?;
    crate::error::write_output(out, &page.html)?;
    Ok(Written {
        out: out.display().to_string(),
        file: request.file.display().to_string(),
        kind: page.kind,
        duration_ns: page.duration_ns,
        runs: page.runs,
    })
}

/// The page of `input` (a workload, an MC-DAG system or a VM system).
pub fn build(request: &Request, input: Input, notify: Notify) -> Result<Page, Failure> {
    let page = |html, kind, (run, duration_ns): (RunSummary, u64)| Page {
        html,
        kind,
        duration_ns,
        runs: vec![run],
    };
    let r = request;
    Ok(match input {
        Input::Vm(system) => {
            let (html, run) = vm::page(r, &system, notify)?;
            page(html, "vm", run)
        }
        Input::Mc(system) => {
            let (html, run) = mc::page(r, &system)?;
            page(html, "mcdag", run)
        }
        Input::Workload(workload) => workload_page(request, &workload, notify)?,
        _ => unreachable!("report takes workloads, MC and VM systems"),
    })
}

/// The line the text output prints after writing the page.
pub fn headline(w: &Written) -> String {
    match w.kind {
        "vm" => format!("wrote {}: interfaces and the two-level simulation", w.out),
        "mcdag" => format!("wrote {}: tables and mode changes", w.out),
        _ => format!(
            "wrote {}: {} polic(ies), {} simulated each",
            w.out,
            w.runs.len(),
            Duration::from_nanos(w.duration_ns)
        ),
    }
}

fn workload_page(request: &Request, workload: &Workload, notify: Notify) -> Result<Page, Failure> {
    let file = request.file.display().to_string();
    let analysis = crate::analyze::analyze_default(&file, workload);
    let analysis = serde_json::to_value(analysis).expect("the analysis serializes");
    let duration = resolve_duration(workload, request.duration, notify)?;
    let policies = match request.policies {
        Some(named) => named.iter().map(String::as_str).collect(),
        None => registry::compared_for(workload),
    };
    let mut runs = Vec::with_capacity(policies.len());
    for policy in policies {
        runs.push(simulate(
            workload,
            policy,
            (duration, request.max_events),
            request.seed,
            notify,
        )?);
    }
    let html = html::page(&html::Inputs {
        file: &request.file.display().to_string(),
        workload,
        analysis: &analysis,
        runs: &runs,
        gantt_window: clip(request.gantt_window, duration.as_nanos()),
    });
    let summaries = (runs.iter())
        .map(|r| {
            let m = &r.outcome.metrics;
            RunSummary::of(
                &r.name,
                [m.jobs_released, m.jobs_completed, m.deadline_misses],
            )
        })
        .collect();
    Ok(Page {
        html,
        kind: "workload",
        duration_ns: duration.as_nanos(),
        runs: summaries,
    })
}

/// `window` cut at `end_ns`, the simulated duration; a window past the end shows the whole run.
pub fn clip(window: (Instant, Instant), end_ns: u64) -> (Instant, Instant) {
    let to = Instant::from_nanos(window.1.as_nanos().min(end_ns));
    let from = if window.0 < to {
        window.0
    } else {
        Instant::ZERO
    };
    (from, to)
}

/// The caption of a chart drawn over `window`.
pub fn window_label(window: (Instant, Instant)) -> String {
    if window.0 == Instant::ZERO {
        format!("the first {}", window.1.since_origin())
    } else {
        format!("{} to {}", window.0.since_origin(), window.1.since_origin())
    }
}

fn simulate(
    workload: &Workload,
    policy: &str,
    (duration, max_events): (Duration, u64),
    seed: u64,
    notify: Notify,
) -> Result<PolicyRun, Failure> {
    let kind = registry::of_tasks(policy).map_err(Failure::bad_input)?;
    let periods = || workload.tasks.iter().map(|t| t.period);
    let estimate = |span| budget::estimate_events(span, periods(), []);
    let config = SimConfig {
        trace_bounds: budget::trace_bounds(
            TraceScope::Whole,
            duration,
            max_events,
            estimate,
            notify,
        )?,
        duration,
        execution_times: ExecutionTimeModel::Wcet,
        seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: workload.overheads,
        // A host's outages are replayed only in a real run's twin.
        outages: Default::default(),
    };
    let outcome = run_policy(workload, kind, PriorityOrder::Auto, &config, notify)?;
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
    for row in crate::simulate::jobs::job_rows(trace) {
        if let (Some(response), Some(&task)) = (row.response_ns, index.get(row.task.as_str())) {
            out[task].push(response);
        }
    }
    out
}
