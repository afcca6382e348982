//! A real run in text: what ran where and for how long, the calibration, the job counts, the
//! measured latency histograms and every task's release latency and response time.

use crate::text::human_ns;
use kairos_model::Workload;
use kairos_rt::measure::{RunResult, Summary};

/// The first lines of every run report: what ran where and for how long, an early stop, and
/// the calibration. `under` names the policy (and, for tables, where they came from).
pub fn report_header(name: &str, under: &str, r: &RunResult) -> String {
    let cpus: Vec<String> = r.cpus.iter().map(|c| c.to_string()).collect();
    let mut out = format!(
        "{name} under {under} on CPU(s) {} for {} (ran {})\n",
        cpus.join(","),
        human_ns(r.duration_ns),
        human_ns(r.ran_ns)
    );
    if let Some(why) = &r.stopped_by {
        out.push_str(&format!("stopped early: {why}\n"));
    }
    out.push_str(&format!("{}\n", r.calibration.summary()));
    out
}

/// The readable report of a run.
pub fn summary(workload: &Workload, r: &RunResult) -> String {
    let name = workload.name.as_deref().unwrap_or("workload");
    let mut out = report_header(name, &r.policy, r);
    out.push_str(&format!(
        "jobs: {} released, {} completed, {} deadline miss(es), {} migration(s), {} mode change(s); /dev/cpu_dma_latency {}\n",
        r.jobs_released,
        r.jobs_completed,
        r.deadline_misses,
        r.migrations,
        r.mode_changes,
        if r.dma_latency_held { "held at 0" } else { "not held" }
    ));
    if let Some(o) = &r.optional {
        out.push_str(&format!(
            "optional parts: {} completed, {} cut, {} skipped; QoS {} (optional time executed / requested)\n",
            o.optional_completed,
            o.optional_cut,
            o.optional_skipped,
            r.optional_qos.map_or("-".into(), |q| format!("{:.1} %", 100.0 * q)),
        ));
    }
    for (name, h) in &r.histograms {
        out.push_str(&format!("{name:<34} {}\n", h.summary.display_us()));
    }
    out.push_str(&format!(
        "{:<12} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
        "task",
        "released",
        "completed",
        "misses",
        "latency p50",
        "latency max",
        "response p50",
        "response max"
    ));
    for t in &r.tasks {
        out.push_str(&format!(
            "{:<12} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
            t.task,
            t.jobs_released,
            t.jobs_completed,
            t.deadline_misses,
            us(&t.release_latency_ns, |s| s.p50),
            us(&t.release_latency_ns, |s| s.max),
            us(&t.response_time_ns, |s| s.p50),
            us(&t.response_time_ns, |s| s.max),
        ));
    }
    for note in &r.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

fn us(summary: &Summary, pick: impl Fn(&Summary) -> u64) -> String {
    if summary.count == 0 {
        "-".into()
    } else {
        human_ns(pick(summary))
    }
}
