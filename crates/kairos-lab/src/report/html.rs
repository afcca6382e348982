//! The report page: sections for the workload, the analysis and each policy's simulation, with
//! inline CSS, inline SVG and a short script (sections fold; the page says in the console
//! that it loaded, which the browser test reads). Nothing is fetched.

use super::charts::responses_svg;
use super::PolicyRun;
use kairos_model::{Duration, Instant, Workload};
use kairos_trace::gantt::{render_svg, GanttOptions};
use serde_json::Value;

pub struct Inputs<'a> {
    pub file: &'a str,
    pub workload: &'a Workload,
    pub analysis: &'a Value,
    pub runs: &'a [PolicyRun],
    /// The part of each schedule its Gantt chart shows.
    pub gantt_window: (Instant, Instant),
}

/// Text made safe inside HTML and SVG, without the characters XML forbids.
pub fn escape(text: &str) -> String {
    kairos_model::names::xml_safe(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}\
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:right}\
th{background:#f4f4f4}td.name,th.name{text-align:left}.yes{color:#1e7b34;font-weight:bold}.no{color:#b03a2e}\
details{margin:1em 0}summary{cursor:pointer;font-weight:bold;font-size:1.1em}svg{max-width:100%;height:auto}\
.note{color:#666;font-size:.9em}";

const SCRIPT: &str = "document.addEventListener('DOMContentLoaded',function(){\
var s=document.querySelectorAll('section');\
document.body.dataset.sections=String(s.length);\
document.getElementById('fold').addEventListener('click',function(){\
document.querySelectorAll('details').forEach(function(d){d.open=!d.open;});});\
console.info('kairos report loaded: '+s.length+' sections');});";

pub fn page(inputs: &Inputs) -> String {
    let name = inputs.workload.name.as_deref().unwrap_or("workload");
    let body = [
        workload_section(inputs.workload),
        analysis_section(inputs.workload, inputs.analysis),
        simulation_section(inputs),
    ];
    document(name, inputs.file, &body.concat())
}

/// The whole page around `body` (its sections).
pub fn document(name: &str, file: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>kairos report: {name}</title><style>{STYLE}</style></head><body>\
         <h1>kairos report: {name}</h1><p class=\"note\">{file} &middot; kairos {} &middot; <button id=\"fold\">fold or unfold the sections</button></p>\
         {body}<script>{SCRIPT}</script></body></html>\n",
        env!("CARGO_PKG_VERSION"),
        name = escape(name),
        file = escape(file),
    )
}

fn workload_section(w: &Workload) -> String {
    let hyper = w
        .hyperperiod()
        .map_or("overflows".to_string(), |h| h.to_string());
    let mut out = format!(
        "<section id=\"workload\"><h2>Workload</h2><p>{} task(s) on {} core(s), utilization {:.3}, hyper-period {hyper}</p>",
        w.tasks.len(),
        w.cores,
        w.total_utilization()
    );
    out.push_str("<table><tr><th class=\"name\">task</th><th>C</th><th>T</th><th>D</th><th>offset</th><th>U</th><th>core</th><th>priority</th></tr>");
    for t in &w.tasks {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td></tr>",
            escape(&t.name),
            t.wcet,
            t.period,
            t.deadline,
            t.offset,
            t.utilization(),
            t.core.map_or("-".into(), |c| c.0.to_string()),
            t.priority.map_or("-".into(), |p| p.level().to_string()),
        ));
    }
    out.push_str("</table></section>");
    out
}

fn analysis_section(w: &Workload, analysis: &Value) -> String {
    let shown = analysis["schedulable"].as_bool().unwrap_or(false);
    let mut out =
        format!(
        "<section id=\"analysis\"><h2>Analysis</h2><p>verdict: <span class=\"{}\">{}</span></p>",
        if shown { "yes" } else { "no" },
        if shown { "schedulable" } else { "not shown schedulable by any test run" }
    );
    out.push_str("<table><tr><th class=\"name\">test</th><th>verdict</th><th class=\"name\">evidence</th></tr>");
    for (test, v) in analysis["tests"].as_object().into_iter().flatten() {
        let yes = v["schedulable"].as_bool().unwrap_or(false);
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td class=\"{}\">{}</td><td class=\"name\">{}</td></tr>",
            escape(test),
            if yes { "yes" } else { "no" },
            if yes { "yes" } else { "no" },
            evidence(w, v)
        ));
    }
    for s in analysis["skipped"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>skipped</td><td class=\"name\">{}</td></tr>",
            escape(s["test"].as_str().unwrap_or_default()),
            escape(s["reason"].as_str().unwrap_or_default())
        ));
    }
    out.push_str("</table></section>");
    out
}

/// A test's evidence: response times per task, the failing task, or the mapping to cores.
fn evidence(w: &Workload, v: &Value) -> String {
    let name = |i: usize| w.tasks.get(i).map_or("?".into(), |t| escape(&t.name));
    let mut parts = Vec::new();
    if let Some(times) = v["response_times"].as_array() {
        let shown: Vec<String> = times
            .iter()
            .enumerate()
            .map(|(i, r)| {
                format!(
                    "{} {}",
                    name(i),
                    r.as_u64()
                        .map_or("-".into(), |ns| Duration::from_nanos(ns).to_string())
                )
            })
            .collect();
        parts.push(format!("response times: {}", shown.join(", ")));
    }
    if let Some(i) = v["failing_task"].as_u64() {
        parts.push(format!("fails at {}", name(i as usize)));
    }
    if let Some(mapping) = v["mapping"].as_array() {
        let cores: Vec<String> = mapping
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{}&rarr;{}", name(i), c))
            .collect();
        parts.push(format!("cores: {}", cores.join(", ")));
    }
    parts.join("; ")
}

fn simulation_section(inputs: &Inputs) -> String {
    let mut out = String::from("<section id=\"simulation\"><h2>Simulation</h2><table><tr><th class=\"name\">policy</th><th>released</th><th>completed</th><th>deadline misses</th><th>preemptions</th><th>migrations</th><th>context switches</th></tr>");
    for run in inputs.runs {
        let m = &run.outcome.metrics;
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&run.name), m.jobs_released, m.jobs_completed,
            if m.deadline_misses == 0 { "yes" } else { "no" }, m.deadline_misses,
            m.preemptions, m.migrations, m.context_switches
        ));
    }
    out.push_str("</table></section>");
    for run in inputs.runs {
        out.push_str(&policy_section(inputs, run));
    }
    out
}

fn policy_section(inputs: &Inputs, run: &PolicyRun) -> String {
    let m = &run.outcome.metrics;
    let id = format!("policy-{}", escape(&run.name));
    let mut out = format!(
        "<section id=\"{id}\" class=\"policy\"><details open><summary>{} &mdash; {} simulated</summary>",
        escape(&run.name),
        Duration::from_nanos(m.duration_ns)
    );
    if let Some(trace) = &run.outcome.trace {
        let options = GanttOptions {
            window: Some(inputs.gantt_window),
            title: Some(format!(
                "{} on {} core(s), {}",
                run.name,
                m.cores,
                super::window_label(inputs.gantt_window)
            )),
            ..GanttOptions::default()
        };
        out.push_str(&format!(
            "<div class=\"gantt\">{}</div>",
            strip_prolog(&render_svg(trace, &options))
        ));
    }
    out.push_str("<h3>Response times</h3>");
    out.push_str(&responses_svg(inputs.workload, &run.responses));
    out.push_str("<table><tr><th class=\"name\">task</th><th>released</th><th>completed</th><th>misses</th><th>min</th><th>mean</th><th>max</th></tr>");
    let show = |ns: Option<u64>| ns.map_or("-".into(), |n| Duration::from_nanos(n).to_string());
    for t in &m.tasks {
        out.push_str(&format!(
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&t.name), t.jobs_released, t.jobs_completed, t.deadline_misses,
            show(t.response_min_ns), show(t.response_mean_ns), show(t.response_max_ns)
        ));
    }
    out.push_str("</table></details></section>");
    out
}

/// An SVG document without its XML prolog, to sit inline in HTML.
pub fn strip_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}
