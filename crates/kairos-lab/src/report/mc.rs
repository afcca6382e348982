//! The report of a mixed-criticality DAG system: the system, its scheduling tables (GMH-MC-DAG,
//! one table per criticality level, drawn level by level), and a simulated run of the tables in
//! which jobs overrun, so the page shows the mode changes they trigger, the jobs discarded and
//! the misses.

use super::html::{document, escape, strip_prolog};
use crate::simulate::budget::{self, TraceScope};
use crate::simulate::tables_for;
use crate::synth::gantt;
use crate::Failure;
use kairos_model::{Duration, McSystem};
use kairos_sim::table::{simulate_tables, TableExecModel, TableMetrics, TableSimConfig};
use kairos_sim::TraceBounds;
use kairos_trace::gantt::{render_svg, GanttOptions};

/// The page for `system`, read from `file`; jobs above the lowest level overrun with probability
/// `overrun` (seeded by `seed`) over `duration` (default: ten hyper-periods, at most 10 s).
pub fn page(
    request: &super::Request,
    system: &McSystem,
) -> Result<(String, (super::RunSummary, u64)), Failure> {
    let (file, overrun, seed) = (request.file, request.overrun, request.seed);
    let (tables, source) = tables_for(system, None)?;
    let duration = request.duration.or_else(|| {
        system
            .hyperperiod()
            .and_then(|h| h.checked_mul(10))
            .map(|d| d.min(Duration::from_secs(10)))
    });
    let config = TableSimConfig {
        duration,
        execution_times: TableExecModel::Wcet,
        overruns: Vec::new(),
        overrun_probability: overrun,
        seed,
        record_trace: true,
        trace_bounds: bounds(system, duration, request.max_events)?,
    };
    let outcome =
        simulate_tables(system, &tables, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    let name = system.name.clone().unwrap_or_else(|| "system".into());
    let tables_svg = gantt(
        system,
        &tables,
        &file.display().to_string(),
        &GanttOptions::default(),
    );
    let run_svg = outcome.trace.as_ref().map(|t| {
        render_svg(
            t,
            &GanttOptions {
                title: Some(format!(
                    "the tables run, jobs overrunning with probability {overrun}"
                )),
                ..GanttOptions::default()
            },
        )
    });
    let body = [
        system_section(system),
        format!(
            "<section id=\"tables\"><h2>Scheduling tables</h2><p>{}</p><div class=\"gantt\">{}</div></section>",
            escape(&source),
            strip_prolog(&tables_svg)
        ),
        run_section(&outcome.metrics, run_svg.as_deref()),
    ];
    let m = &outcome.metrics;
    let run = super::RunSummary::of(
        "table",
        [m.jobs_released, m.jobs_completed, m.deadline_misses],
    );
    let page = document(&name, &file.display().to_string(), &body.concat());
    Ok((page, (run, m.duration_ns)))
}

fn system_section(s: &McSystem) -> String {
    let utilization: Vec<String> = (0..s.level_count())
        .map(|l| format!("{} {:.3}", escape(&s.levels[l]), s.utilization_at(l)))
        .collect();
    let hyper = s
        .hyperperiod()
        .map_or("overflows".into(), |h| h.to_string());
    let mut out = format!(
        "<section id=\"system\"><h2>System</h2><p>{} DAG(s), {} task(s), {} level(s) on {} core(s); utilization per level {}; hyper-period {hyper}</p>",
        s.dags.len(),
        s.task_refs().count(),
        s.level_count(),
        s.cores,
        utilization.join(", ")
    );
    out.push_str("<table><tr><th class=\"name\">DAG</th><th>period</th><th>deadline</th><th>tasks</th><th>edges</th></tr>");
    for d in &s.dags {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&d.name),
            d.period,
            d.deadline,
            d.tasks.len(),
            d.edges.len()
        ));
    }
    out.push_str("</table></section>");
    out
}

fn run_section(m: &TableMetrics, svg: Option<&str>) -> String {
    let mut out = format!(
        "<section id=\"mode-changes\"><h2>Mode changes</h2><p>{} simulated: {} job(s) released, {} completed, {} discarded, {} deadline miss(es), highest mode {}</p>",
        Duration::from_nanos(m.duration_ns),
        m.jobs_released,
        m.jobs_completed,
        m.jobs_discarded,
        m.deadline_misses,
        escape(&m.max_mode)
    );
    out.push_str("<table><tr><th>at</th><th class=\"name\">from</th><th class=\"name\">to</th><th class=\"name\">raised by</th></tr>");
    for c in m.mode_changes.iter().take(50) {
        out.push_str(&format!(
            "<tr><td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>",
            Duration::from_nanos(c.at_ns),
            escape(&c.from),
            escape(&c.to),
            escape(&c.triggers.join(", "))
        ));
    }
    out.push_str("</table>");
    if let Some(svg) = svg {
        out.push_str(&format!(
            "<details open><summary>the run</summary><div class=\"gantt\">{}</div></details>",
            strip_prolog(svg)
        ));
    }
    out.push_str("</section>");
    out
}

/// The bounds of the trace of a run of `duration` (one hyper-period when absent, as the
/// table run takes it), refused past `max` events.
fn bounds(system: &McSystem, duration: Option<Duration>, max: u64) -> Result<TraceBounds, Failure> {
    let run = duration
        .or(system.hyperperiod())
        .unwrap_or(kairos_model::decode::MAX_DURATION);
    let periods = || (system.dags.iter()).flat_map(|d| d.tasks.iter().map(|_| d.period));
    let estimate = |span| budget::estimate_events(span, periods(), []);
    budget::trace_bounds(TraceScope::Whole, run, max, estimate, &mut |_| {})
}
