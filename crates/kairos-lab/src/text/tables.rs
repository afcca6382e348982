//! The text report of a mixed-criticality system's simulated tables (`kairos simulate` on an
//! MC-DAG system; the demo).

use kairos_model::{Duration, McSystem};
use kairos_sim::table::{LevelCounts, TableMetrics};

/// How many mode changes and misses the summary lists one by one.
const LISTED: usize = 10;

/// The human-readable report of a table run.
pub fn table_summary(system: &McSystem, m: &TableMetrics, source: &str) -> String {
    use std::fmt::Write;
    let ns = |v: u64| Duration::from_nanos(v).to_string();
    let per_level = |counts: &LevelCounts| {
        let parts: Vec<String> = counts.0.iter().map(|(l, n)| format!("{l} {n}")).collect();
        parts.join(", ")
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} cores, levels {}, hyper-period {}; simulated {} under table ({source})",
        m.cores,
        m.levels.join(" < "),
        ns(m.hyperperiod_ns),
        ns(m.duration_ns),
    );
    let _ = writeln!(
        out,
        "jobs: {} released, {} completed, {} discarded, {} unfinished at the end",
        m.jobs_released, m.jobs_completed, m.jobs_discarded, m.unfinished_jobs
    );
    let _ = writeln!(
        out,
        "mode changes: {} (highest mode {})",
        m.mode_changes.len(),
        m.max_mode
    );
    for change in m.mode_changes.iter().take(LISTED) {
        let why = if change.triggers.is_empty() {
            "hyper-period boundary".to_string()
        } else {
            format!("overrun of {}", change.triggers.join(", "))
        };
        let at = ns(change.at_ns);
        let _ = writeln!(out, "  {at:>10}  {} -> {}  {why}", change.from, change.to);
    }
    if m.mode_changes.len() > LISTED {
        let _ = writeln!(out, "  ... {} more", m.mode_changes.len() - LISTED);
    }
    let _ = writeln!(
        out,
        "deadline misses: {} ({} of jobs the tables guarantee)",
        m.deadline_misses, m.guaranteed_misses
    );
    let _ = writeln!(
        out,
        "  by task level: {}",
        per_level(&m.deadline_misses_by_level)
    );
    let _ = writeln!(
        out,
        "  by mode at the deadline: {}",
        per_level(&m.deadline_misses_by_mode)
    );
    for miss in m.misses.iter().take(LISTED) {
        let level = system.find_task(&miss.task).map_or(String::new(), |t| {
            system.levels[system.task(t).criticality()].clone()
        });
        let _ = writeln!(
            out,
            "  {}#{} ({level}) missed {} in mode {}",
            miss.task,
            miss.job,
            ns(miss.deadline_ns),
            miss.mode
        );
    }
    if m.misses.len() > LISTED {
        let _ = writeln!(out, "  ... {} more", m.misses.len() - LISTED);
    }
    let _ = writeln!(
        out,
        "discarded by level: {}",
        per_level(&m.jobs_discarded_by_level)
    );
    let _ = writeln!(out, "budget exhausted: {}", m.budget_exhausted);
    let time: Vec<String> = m
        .time_in_mode_ns
        .0
        .iter()
        .map(|(l, t)| format!("{l} {}", ns(*t)))
        .collect();
    let _ = writeln!(out, "time in mode: {}", time.join(", "));
    let _ = writeln!(
        out,
        "preemptions {}, migrations {}, precedence violations {}",
        m.preemptions, m.migrations, m.precedence_violations
    );
    out
}
