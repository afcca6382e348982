//! The files a run's trace becomes: the Gantt chart (SVG) and the Perfetto trace (Chrome JSON),
//! for `simulate`, `run`, the demo and the reports alike.

use crate::error::write_output;
use crate::Failure;
use kairos_model::Workload;
use kairos_sim::SimOutcome;
use kairos_trace::gantt::{render_svg, GanttOptions};
use kairos_trace::Trace;
use std::path::PathBuf;

/// Writes the Gantt chart and the Perfetto trace, if asked for; returns what was written.
pub fn write_pictures(
    outcome: &SimOutcome,
    gantt: Option<&PathBuf>,
    view: GanttOptions,
    trace_path: Option<&PathBuf>,
    workload: &Workload,
) -> Result<Vec<String>, Failure> {
    let title = format!(
        "{} under {}",
        workload.name.as_deref().unwrap_or("workload"),
        outcome.metrics.policy
    );
    let outputs = TraceOutputs {
        gantt,
        view,
        trace: trace_path,
    };
    write_trace_files(outcome.trace.as_ref(), title, &outputs)
}

/// Where a recorded trace goes.
pub struct TraceOutputs<'a> {
    pub gantt: Option<&'a PathBuf>,
    /// Window and rows of the chart (the title is the run's).
    pub view: GanttOptions,
    pub trace: Option<&'a PathBuf>,
}

pub fn write_trace_files(
    trace: Option<&Trace>,
    title: String,
    outputs: &TraceOutputs,
) -> Result<Vec<String>, Failure> {
    let mut written = Vec::new();
    let Some(trace) = trace else {
        return Ok(written);
    };
    let (gantt, trace_path) = (outputs.gantt, outputs.trace);
    if let Some(path) = gantt {
        let options = GanttOptions {
            title: Some(title),
            ..outputs.view.clone()
        };
        let svg = render_svg(trace, &options);
        write_output(path, svg)?;
        written.push(format!("Gantt chart {}", path.display()));
    }
    if let Some(path) = trace_path {
        let mut buffer = Vec::new();
        kairos_trace::chrome::write_chrome_trace(trace, &mut buffer)
            .map_err(|e| Failure::environment(format!("cannot encode the trace: {e}")))?;
        write_output(path, buffer)?;
        written.push(format!(
            "Perfetto trace {} (open it in https://ui.perfetto.dev)",
            path.display()
        ));
    }
    Ok(written)
}
