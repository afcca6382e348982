//! `kairos run --report FILE.html`: a real run beside its simulation on one page: the measured
//! figures, the job-by-job agreement, the measured and simulated schedules one above the other,
//! and every task's measured and simulated response times.

use super::charts::responses_svg;
use super::html::{document, escape, strip_prolog};
use super::responses;
use crate::compare::Compare;
use kairos_model::{Duration, Instant, Workload};
use kairos_rt::measure::RunResult;
use kairos_trace::gantt::{render_levels_svg, GanttOptions};
use kairos_trace::Trace;

/// How much of the schedules the page draws from time 0.
const SHOWN: Duration = Duration::from_millis(100);

pub fn page(
    file: &str,
    workload: &Workload,
    result: &RunResult,
    simulated: Option<&Trace>,
    compared: Option<&Compare>,
) -> String {
    let name = workload.name.as_deref().unwrap_or("workload");
    let mut body = measured_section(result);
    if let Some(c) = compared {
        body.push_str(&comparison_section(c));
    }
    let mut panels = vec![("measured".to_string(), &result.trace)];
    if let Some(sim) = simulated {
        panels.push(("simulated".to_string(), sim));
    }
    let end = Instant::from_nanos(SHOWN.as_nanos().min(result.ran_ns.max(1)));
    let options = GanttOptions {
        window: Some((Instant::from_nanos(0), end)),
        title: Some(format!(
            "{name} under {}: the first {}",
            result.policy,
            end.since_origin()
        )),
        ..GanttOptions::default()
    };
    body.push_str(&format!(
        "<section id=\"schedules\"><h2>Schedules</h2><div class=\"gantt\">{}</div></section>",
        strip_prolog(&render_levels_svg(&panels, &options))
    ));
    body.push_str("<section id=\"responses\"><h2>Response times</h2><h3>measured</h3>");
    body.push_str(&responses_svg(
        workload,
        &responses(workload, &result.trace),
    ));
    if let Some(sim) = simulated {
        body.push_str("<h3>simulated</h3>");
        body.push_str(&responses_svg(workload, &responses(workload, sim)));
    }
    body.push_str("</section>");
    document(&format!("{name}, run under {}", result.policy), file, &body)
}

fn measured_section(r: &RunResult) -> String {
    let l = &r.release_latency_ns;
    let cpus: Vec<String> = r.cpus.iter().map(|c| c.to_string()).collect();
    let mut out = format!(
        "<section id=\"run\"><h2>The run</h2><p>{} on CPU(s) {} for {} (ran {}){}: {} job(s) released, {} completed, {} deadline miss(es), {} migration(s); release latency p50 {}, p99 {}, max {}</p>",
        escape(&r.policy),
        cpus.join(","),
        Duration::from_nanos(r.duration_ns),
        Duration::from_nanos(r.ran_ns),
        r.stopped_by.as_deref().map_or(String::new(), |s| format!(", stopped by {}", escape(s))),
        r.jobs_released,
        r.jobs_completed,
        r.deadline_misses,
        r.migrations,
        Duration::from_nanos(l.p50),
        Duration::from_nanos(l.p99),
        Duration::from_nanos(l.max)
    );
    out.push_str("<table><tr><th class=\"name\">task</th><th>released</th><th>completed</th><th>misses</th><th>latency p50</th><th>latency max</th><th>response p50</th><th>response max</th></tr>");
    for t in &r.tasks {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&t.task), t.jobs_released, t.jobs_completed, t.deadline_misses,
            Duration::from_nanos(t.release_latency_ns.p50), Duration::from_nanos(t.release_latency_ns.max),
            Duration::from_nanos(t.response_time_ns.p50), Duration::from_nanos(t.response_time_ns.max)
        ));
    }
    out.push_str("</table></section>");
    out
}

fn comparison_section(c: &Compare) -> String {
    let d = &c.response_time_diff_ns;
    let signed = crate::text::human_signed_ns;
    format!(
        "<section id=\"comparison\"><h2>Measured against simulated</h2><table>\
         <tr><th class=\"name\">jobs released in both</th><td>{}</td></tr>\
         <tr><th class=\"name\">completed in both</th><td>{}</td></tr>\
         <tr><th class=\"name\">completed only when simulated</th><td>{}</td></tr>\
         <tr><th class=\"name\">completed only when measured</th><td>{}</td></tr>\
         <tr><th class=\"name\">same sequence of cores</th><td>{}</td></tr>\
         <tr><th class=\"name\">response time, measured minus simulated</th><td>p50 {}, p90 {}, p99 {}, max {}</td></tr>\
         </table></section>",
        c.jobs, c.completed_both, c.completed_simulated_only, c.completed_measured_only, c.same_core_sequence,
        signed(d.p50), signed(d.p90), signed(d.p99), signed(d.max)
    )
}
