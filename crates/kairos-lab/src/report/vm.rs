//! The report of a virtual-machine system: its domains, the compositional analysis (each
//! domain's interface: PRM or MPR VCPUs with budget and period, the guest's verdict on them,
//! and the VMM's verdict), and the two-level simulation on those VCPUs with its Gantt chart
//! and response times.

use super::charts::responses_svg;
use super::html::{document, escape, strip_prolog};
use super::responses;
use crate::simulate::budget::{self, TraceScope};
use crate::simulate::resolve_duration;
use crate::vm::{prepare, summary, Prepared};
use crate::{Failure, Notify};
use kairos_analysis::csa::CsaReport;
use kairos_model::{Duration, VmSystem};
use kairos_sim::vm::simulate_vm;
use kairos_sim::SimConfig;
use kairos_trace::gantt::{render_svg, GanttOptions};

pub fn page(
    request: &super::Request,
    system: &VmSystem,
    notify: Notify,
) -> Result<(String, (super::RunSummary, u64)), Failure> {
    let (file, seed, gantt_window) = (request.file, request.seed, request.gantt_window);
    let Prepared { report, plan, .. } = prepare(system).map_err(Failure::bad_input)?;
    let duration = resolve_duration(&plan.workload, request.duration, notify)?;
    let tasks = || plan.workload.tasks.iter().map(|t| t.period);
    let estimate =
        |span| budget::estimate_events(span, tasks(), plan.servers.iter().map(|s| s.period));
    let (scope, max) = (TraceScope::Whole, request.max_events);
    let config = SimConfig {
        trace_bounds: budget::trace_bounds(scope, duration, max, estimate, notify)?,
        duration,
        execution_times: kairos_sim::ExecutionTimeModel::Wcet,
        seed,
        abort_on_miss: false,
        record_trace: true,
        overheads: Default::default(),
        // A host's outages are replayed only in a real run's twin.
        outages: Default::default(),
    };
    let (outcome, metrics) =
        simulate_vm(&plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    let name = system.name.clone().unwrap_or_else(|| "system".into());
    let m = &metrics.totals;
    let mut body = system_section(system);
    body.push_str(&analysis_section(&report));
    body.push_str(&format!(
        "<section id=\"simulation\"><h2>Simulation</h2><p>{} simulated on the interfaces' VCPUs: {} job(s) released, {} completed, {} deadline miss(es), {} preemption(s), {} migration(s)</p>",
        Duration::from_nanos(m.duration_ns), m.jobs_released, m.jobs_completed, m.deadline_misses, m.preemptions, m.migrations
    ));
    if let Some(trace) = &outcome.trace {
        let window = super::clip(gantt_window, m.duration_ns);
        let options = GanttOptions {
            window: Some(window),
            title: Some(format!(
                "{name} under {}, {}",
                crate::vm::vmm_name(system),
                super::window_label(window)
            )),
            ..GanttOptions::default()
        };
        body.push_str(&format!(
            "<div class=\"gantt\">{}</div>",
            strip_prolog(&render_svg(trace, &options))
        ));
        body.push_str("<h3>Response times</h3>");
        body.push_str(&responses_svg(
            &plan.workload,
            &responses(&plan.workload, trace),
        ));
    }
    body.push_str("</section>");
    let run = super::RunSummary::of(
        &crate::vm::vmm_name(system),
        [m.jobs_released, m.jobs_completed, m.deadline_misses],
    );
    let page = document(&name, &file.display().to_string(), &body);
    Ok((page, (run, m.duration_ns)))
}

fn system_section(system: &VmSystem) -> String {
    let mut out = format!(
        "<section id=\"system\"><h2>System</h2><p>{}</p>",
        escape(&summary(system))
    );
    out.push_str("<table><tr><th class=\"name\">domain</th><th class=\"name\">guest</th><th>tasks</th><th>utilization</th><th class=\"name\">VCPUs</th></tr>");
    for d in &system.domains {
        let u: f64 = d.tasks.iter().map(|t| t.utilization()).sum();
        let vcpus = d
            .vcpus
            .as_ref()
            .map_or("computed".to_string(), |v| format!("{} given", v.len()));
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td>{u:.3}</td><td class=\"name\">{vcpus}</td></tr>",
            escape(&d.name), format!("{:?}", d.guest).to_lowercase(), d.tasks.len()
        ));
    }
    out.push_str("</table></section>");
    out
}

fn verdict(v: Option<bool>) -> (&'static str, &'static str) {
    match v {
        Some(true) => ("yes", "schedulable"),
        Some(false) => ("no", "not schedulable"),
        None => ("", "not analysed"),
    }
}

fn analysis_section(report: &CsaReport) -> String {
    let (class, text) = verdict(report.schedulable);
    let mut out = format!("<section id=\"analysis\"><h2>Analysis</h2><p>verdict: <span class=\"{class}\">{text}</span></p>");
    out.push_str("<table><tr><th class=\"name\">domain</th><th class=\"name\">interface</th><th>VCPUs</th><th>budget</th><th>period</th><th>cores</th><th>verdict</th><th class=\"name\">note</th></tr>");
    for i in &report.interfaces {
        let (class, text) = verdict(i.schedulable);
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td class=\"name\">{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td class=\"{class}\">{text}</td><td class=\"name\">{}</td></tr>",
            escape(&i.domain), i.model, i.guest, i.parallelism,
            i.budget, i.period,
            i.budget.as_nanos() as f64 / i.period.as_nanos().max(1) as f64,
            escape(i.note.as_deref().unwrap_or(""))
        ));
    }
    let (class, text) = verdict(report.vmm.schedulable);
    out.push_str(&format!(
        "</table><p>VMM {} ({}): <span class=\"{class}\">{text}</span> by {}</p></section>",
        report.vmm.scheduler,
        report.vmm.priority,
        escape(&report.vmm.test)
    ));
    out
}
