//! Text tables for people (the JSON forms are the metrics' serde output).

mod analysis;
mod analysis_overheads;
mod column;
mod partition;
mod synth_overheads;
mod tables;
pub mod validation;
mod vm;

pub use analysis::analysis;
pub use analysis_overheads::{charged, vm_overheads};
pub use column::{elide, Column, MAX_COLUMN};
pub use partition::partition;
pub use synth_overheads::synth_overheads;
pub use tables::table_summary;
pub use vm::{analysis as vm_analysis, vm_tables};

use kairos_model::Workload;
use kairos_sim::Metrics;

/// A duration in nanoseconds with three significant decimals in a readable unit.
pub fn human_ns(ns: u64) -> String {
    let value = ns as f64;
    match ns {
        0..=999 => format!("{ns}ns"),
        1_000..=999_999 => format!("{:.3}us", value / 1e3),
        1_000_000..=999_999_999 => format!("{:.3}ms", value / 1e6),
        _ => format!("{:.3}s", value / 1e9),
    }
}

/// [`human_ns`] of a signed duration (a difference, a slope).
pub fn human_signed_ns(ns: i64) -> String {
    let text = human_ns(ns.unsigned_abs());
    match ns < 0 {
        true => format!("-{text}"),
        false => text,
    }
}

fn optional_ns(ns: Option<u64>) -> String {
    ns.map_or_else(|| "-".to_string(), human_ns)
}

/// The full report of one simulation.
pub fn metrics_table(workload: &Workload, m: &Metrics) -> String {
    let mut out = format!(
        "{} under {} on {} core(s), {} simulated\n",
        workload.name.as_deref().unwrap_or("workload"),
        m.policy,
        m.cores,
        human_ns(m.duration_ns)
    );
    out.push_str(&format!(
        "jobs released {}, completed {}, deadline misses {}, aborted {}\n",
        m.jobs_released, m.jobs_completed, m.deadline_misses, m.jobs_aborted
    ));
    out.push_str(&format!(
        "preemptions {}, migrations {}, context switches {}, scheduling points {}\n\n",
        m.preemptions, m.migrations, m.context_switches, m.scheduling_points
    ));
    out.push_str(&task_table(m));
    if m.optional.is_some() {
        out.push('\n');
        out.push_str(&optional_table(m));
    }
    out.push('\n');
    out.push_str(&core_table(m));
    out
}

/// The optional parts of imprecise tasks (policies that run parts): time asked and executed,
/// how the parts ended, and the QoS (executed / requested).
fn optional_table(m: &Metrics) -> String {
    let column = Column::fitting(8, m.tasks.iter().map(|t| t.name.as_str()));
    let row = |name: &str, o: &kairos_sim::OptionalMetrics| {
        let qos = match o.optional_requested_ns {
            0 => "-".to_string(),
            r => format!("{:.1}%", 100.0 * o.optional_executed_ns as f64 / r as f64),
        };
        format!(
            "{} {:>11} {:>11} {:>9} {:>5} {:>7} {:>6}\n",
            column.left(name),
            human_ns(o.optional_requested_ns),
            human_ns(o.optional_executed_ns),
            o.optional_completed,
            o.optional_cut,
            o.optional_skipped,
            qos
        )
    };
    let mut out = format!(
        "{} {:>11} {:>11} {:>9} {:>5} {:>7} {:>6}\n",
        column.left("optional"),
        "requested",
        "executed",
        "completed",
        "cut",
        "skipped",
        "QoS"
    );
    for t in &m.tasks {
        if let Some(o) = &t.optional {
            out.push_str(&row(&t.name, o));
        }
    }
    if let Some(total) = &m.optional {
        out.push_str(&row("total", total));
    }
    out
}

fn task_table(m: &Metrics) -> String {
    let column = Column::fitting(4, m.tasks.iter().map(|t| t.name.as_str()));
    let mut out = format!(
        "{} {:>9} {:>9} {:>6} {:>7} {:>6} {:>11} {:>11} {:>11}\n",
        column.left("task"),
        "released",
        "completed",
        "misses",
        "preempt",
        "migr",
        "resp min",
        "resp mean",
        "resp max"
    );
    for t in &m.tasks {
        out.push_str(&format!(
            "{} {:>9} {:>9} {:>6} {:>7} {:>6} {:>11} {:>11} {:>11}\n",
            column.left(&t.name),
            t.jobs_released,
            t.jobs_completed,
            t.deadline_misses,
            t.preemptions,
            t.migrations,
            optional_ns(t.response_min_ns),
            optional_ns(t.response_mean_ns),
            optional_ns(t.response_max_ns)
        ));
    }
    out
}

fn core_table(m: &Metrics) -> String {
    let mut out = format!(
        "{:<6} {:>12} {:>12} {:>6}\n",
        "core", "busy", "overhead", "util"
    );
    for c in &m.core_usage {
        out.push_str(&format!(
            "{:<6} {:>12} {:>12} {:>5.1}%\n",
            c.core,
            human_ns(c.busy_ns),
            human_ns(c.overhead_ns),
            100.0 * c.utilization
        ));
    }
    out
}

/// One line per policy: the demo's comparison.
pub fn comparison_table(rows: &[&Metrics]) -> String {
    let mut out = format!(
        "{:<7} {:>9} {:>9} {:>7} {:>8} {:>8} {:>9}\n",
        "policy", "released", "completed", "misses", "preempt", "migr", "ctx-sw"
    );
    for m in rows {
        out.push_str(&format!(
            "{:<7} {:>9} {:>9} {:>7} {:>8} {:>8} {:>9}\n",
            m.policy,
            m.jobs_released,
            m.jobs_completed,
            m.deadline_misses,
            m.preemptions,
            m.migrations,
            m.context_switches
        ));
    }
    out
}
