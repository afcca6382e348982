//! `kairos simulate` on a mixed-criticality system: its scheduling tables (given, or
//! synthesized with GMH-MC-DAG) executed as G-RES / G-MCRES do, with injected overruns and mode
//! changes; the report, and the options that belong to periodic workloads refused.

use super::simulate::{gantt_view, refuse, write_trace_files, SimulateArgs, TraceOutputs};
use crate::args::{CommandResult, Failure};
use crate::input::read_text;
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{Duration, McSystem, TableSet};
use kairos_sim::table::{
    simulate_tables, LevelCounts, TableExecModel, TableMetrics, TableSimConfig,
};
use std::path::Path;

/// `--cores` on an MC-DAG system (its tables, given or synthesized, must use that many).
pub(crate) fn override_mc_cores(system: &mut McSystem, cores: usize) -> Result<(), Failure> {
    let max = kairos_model::decode::MAX_CORES;
    if cores == 0 || cores > max {
        return Err(Failure::bad_input(format!(
            "--cores must be between 1 and {max}"
        )));
    }
    system.cores = cores;
    Ok(())
}

fn refuse_periodic_options(args: &SimulateArgs) -> Result<(), Failure> {
    let flags = [
        (args.priorities != "auto", "--priorities"),
        (args.abort_on_miss, "--abort-on-miss"),
        (args.overhead_scheduling.is_some(), "--overhead-scheduling"),
        (
            args.overhead_context_switch.is_some(),
            "--overhead-context-switch",
        ),
        (args.overhead_migration.is_some(), "--overhead-migration"),
    ];
    refuse(
        &flags,
        "applies to periodic workloads only: the table policy runs the tables as they are",
    )
}

/// The `table` policy on a mixed-criticality system.
pub(super) fn run_tables(args: &SimulateArgs, mut system: McSystem) -> CommandResult {
    if let Some(policy) = args.policy.as_deref().filter(|p| *p != "table") {
        return Err(Failure::bad_input(format!(
            "{} is a mixed-criticality system: it runs under --policy table (its scheduling tables), not {policy}",
            args.file.display()
        )));
    }
    refuse_periodic_options(args)?;
    if let Some(duration) = args.duration {
        if duration.is_zero() || duration > kairos_model::decode::MAX_DURATION {
            return Err(Failure::bad_input(format!(
                "--duration must be greater than zero and at most {}",
                kairos_model::decode::MAX_DURATION
            )));
        }
    }
    if let Some(cores) = args.cores {
        override_mc_cores(&mut system, cores)?;
    }
    let (tables, source) = tables_for(&system, args.tables.as_deref())?;
    let config = TableSimConfig {
        duration: args.duration,
        execution_times: match args.execution_times.as_str() {
            "uniform" => TableExecModel::Uniform { min_fraction: 0.0 },
            _ => TableExecModel::Wcet,
        },
        overruns: args.overrun.clone(),
        overrun_probability: args.overrun_probability,
        seed: args.seed,
        record_trace: args.gantt.is_some() || args.trace.is_some(),
    };
    let outcome = simulate_tables(&system, &tables, &config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let metrics = &outcome.metrics;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(metrics).expect("metrics serialize")
        );
    } else {
        print!("{}", table_summary(&system, metrics, &source));
    }
    let title = format!(
        "{} under table ({} mode change(s))",
        system_name(&system, &args.file),
        metrics.mode_changes.len()
    );
    let outputs = TraceOutputs {
        gantt: args.gantt.as_ref(),
        view: gantt_view(args.gantt_window, args.gantt_by),
        trace: args.trace.as_ref(),
    };
    for written in write_trace_files(outcome.trace.as_ref(), title, &outputs)? {
        eprintln!("wrote {written}");
    }
    Ok(if args.fail_on_miss && metrics.deadline_misses > 0 {
        crate::exit::NO
    } else {
        0
    })
}

fn system_name(system: &McSystem, file: &Path) -> String {
    system.name.clone().unwrap_or_else(|| {
        file.file_stem()
            .map_or("system".into(), |s| s.to_string_lossy().into_owned())
    })
}

/// The tables from `--tables`, or synthesized (G-EDZL) without it; and where they came from.
pub(crate) fn tables_for(
    system: &McSystem,
    path: Option<&Path>,
) -> Result<(TableSet, String), Failure> {
    if let Some(path) = path {
        let text = read_text(path)?;
        let tables = TableSet::from_json(&text)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))?;
        return Ok((tables, path.display().to_string()));
    }
    match synthesize(system, &SynthOptions::default()) {
        Ok(out) => Ok((
            out.tables,
            format!("synthesized with GMH-MC-DAG (gedzl), slot {}", out.slot),
        )),
        Err(e) if e.is_input_error() => {
            Err(Failure::bad_input(format!("cannot synthesize tables: {e}")))
        }
        Err(e) => Err(Failure {
            message: format!(
                "no tables to run: GMH-MC-DAG found no schedule ({e}); see `kairos synth`"
            ),
            code: crate::exit::NO,
        }),
    }
}

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
