//! Scheduling tables for a mixed-criticality DAG system: one table per criticality level by
//! GMH-MC-DAG (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of
//! mixed criticality systems", section 4.2; `kairos_mc`), or the federated baseline, with the
//! tables' quality and the time the synthesis took; with a measured overhead profile, the
//! tables of the system whose WCETs pay the slot guard ([`overheads`]).

pub mod overheads;

use crate::Failure;
use kairos_mc::quality::{Counts, LevelQuality};
use kairos_mc::{federated, synthesize, Policy, SynthFailure, SynthOptions, Synthesis};
use kairos_model::{Instant, McSystem, TableSet};
use kairos_trace::gantt::{render_levels_svg, GanttOptions};
use kairos_trace::{Trace, TraceEvent};
pub use overheads::{OverheadRequest, TableCharges};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant as WallClock;

/// The slot priorities GMH-MC-DAG can use, then the federated baseline.
pub const POLICIES: [&str; 4] = ["gedzl", "gedf", "gllf", "federated"];

/// What to synthesize besides the system.
#[derive(Clone, Debug)]
pub struct Request {
    /// The file as the caller names it.
    pub file: String,
    /// One of [`POLICIES`].
    pub policy: String,
    /// Cores instead of the system's.
    pub cores: Option<usize>,
    /// Where the caller writes the tables, recorded in the summary.
    pub out: Option<String>,
    /// Synthesize for the machine that measured these overheads (the slot guard).
    pub overheads: Option<OverheadRequest>,
}

/// The outcome: the summary `kairos synth --json` prints, and the synthesis when tables exist.
pub struct Synthesized {
    pub summary: Summary,
    pub synthesis: Option<Synthesis>,
    pub elapsed: std::time::Duration,
}

/// `kairos synth --json`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Summary {
    Schedulable(Tables),
    NotSchedulable(NoTables),
}

/// Tables were found.
#[derive(Clone, Debug, Serialize)]
pub struct Tables {
    pub file: String,
    pub schedulable: bool,
    pub policy: Option<String>,
    pub cores: usize,
    pub levels: Vec<String>,
    pub slot_ns: u64,
    pub hyperperiod_ns: u64,
    pub quality: QualitySummary,
    pub time_ms: f64,
    pub out: Option<String>,
    /// What the overheads charged, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overheads: Option<TableCharges>,
}

/// No schedule was found, and why.
#[derive(Clone, Debug, Serialize)]
pub struct NoTables {
    pub file: String,
    pub schedulable: bool,
    pub policy: String,
    pub reason: String,
    pub time_ms: f64,
    /// What the overheads charged, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overheads: Option<TableCharges>,
}

/// The tables' preemptions and migrations, per level and in total.
#[derive(Clone, Debug, Serialize)]
pub struct QualitySummary {
    pub levels: Vec<LevelQuality>,
    pub total: Counts,
}

/// Synthesizes `system`'s tables as `request` asks. Bad input (a system the synthesis cannot
/// take) is an error; no schedule found is a summary that says so.
pub fn synthesize_tables(request: &Request, system: &McSystem) -> Result<Synthesized, Failure> {
    if !POLICIES.contains(&request.policy.as_str()) {
        return Err(Failure::bad_input(format!(
            "synthesize: policy {:?} is not one of {POLICIES:?}",
            request.policy
        )));
    }
    let max = kairos_model::decode::MAX_CORES;
    if request.cores.is_some_and(|c| c == 0 || c > max) {
        return Err(Failure::bad_input(format!(
            "synthesize: cores must be between 1 and {max}"
        )));
    }
    let options = SynthOptions {
        policy: Policy::from_name(&request.policy).unwrap_or_default(),
        cores: request.cores,
    };
    let started = WallClock::now();
    let charged = match &request.overheads {
        Some(asked) => Some(overheads::charge(request, system, asked)?),
        None => None,
    };
    let result = match charged.as_ref().map(overheads::Charged::system) {
        Some(Err(refusal)) => Err(refusal.to_string()),
        Some(Ok(guarded)) => attempt(request, guarded, &options)?,
        None => attempt(request, system, &options)?,
    };
    let elapsed = started.elapsed();
    let time_ms = elapsed.as_secs_f64() * 1e3;
    let overheads = charged.map(|c| c.summary);
    let summary = match &result {
        Ok(out) => Summary::Schedulable(tables_summary(request, out, time_ms, overheads)),
        Err(reason) => Summary::NotSchedulable(NoTables {
            file: request.file.clone(),
            schedulable: false,
            policy: request.policy.clone(),
            reason: reason.clone(),
            time_ms,
            overheads,
        }),
    };
    Ok(Synthesized {
        summary,
        synthesis: result.ok(),
        elapsed,
    })
}

/// The tables, or why there are none; bad input is an error.
fn attempt(
    request: &Request,
    system: &McSystem,
    options: &SynthOptions,
) -> Result<Result<Synthesis, String>, Failure> {
    match run(request, system, options) {
        Ok(out) => Ok(Ok(out)),
        Err(failure) if failure.is_input_error() => {
            Err(Failure::bad_input(format!("{}: {failure}", request.file)))
        }
        Err(failure) => Ok(Err(failure.to_string())),
    }
}

/// GMH-MC-DAG or the federated baseline, as `request` names.
fn run(
    request: &Request,
    system: &McSystem,
    options: &SynthOptions,
) -> Result<Synthesis, SynthFailure> {
    match request.policy.as_str() {
        "federated" => federated(system, options),
        _ => synthesize(system, options),
    }
}

fn tables_summary(
    request: &Request,
    out: &Synthesis,
    time_ms: f64,
    overheads: Option<TableCharges>,
) -> Tables {
    let t = &out.tables;
    Tables {
        file: request.file.clone(),
        schedulable: true,
        policy: t.policy.clone(),
        cores: t.cores,
        levels: t.levels.clone(),
        slot_ns: out.slot.as_nanos(),
        hyperperiod_ns: t.hyperperiod,
        quality: QualitySummary {
            levels: out.quality.levels.clone(),
            total: out.quality.total,
        },
        time_ms,
        out: request.out.clone(),
        overheads,
    }
}

/// The Gantt chart (SVG) of every level's table, one panel per level, titled with `file`.
pub fn gantt(system: &McSystem, tables: &TableSet, file: &str, view: &GanttOptions) -> String {
    let names: Vec<String> = (system.task_refs())
        .map(|t| system.qualified_name(t))
        .collect();
    let index: HashMap<&str, usize> = (names.iter().enumerate())
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let traces: Vec<(String, Trace)> = (tables.tables.iter())
        .map(|table| {
            let events = (table.intervals.iter())
                .filter_map(|iv| {
                    Some(TraceEvent::Segment {
                        core: iv.core,
                        task: *index.get(&*iv.task)?,
                        job: iv.job,
                        start: Instant::from_nanos(iv.start),
                        end: Instant::from_nanos(iv.end),
                    })
                })
                .collect();
            let trace = Trace {
                task_names: names.clone(),
                levels: tables.levels.clone(),
                cores: tables.cores,
                end: Instant::from_nanos(tables.hyperperiod),
                optional_deadlines: Vec::new(),
                server_names: Vec::new(),
                events,
            };
            (format!("table of level {}", table.level), trace)
        })
        .collect();
    let panels: Vec<(String, &Trace)> = traces.iter().map(|(c, t)| (c.clone(), t)).collect();
    let policy = tables.policy.as_deref().unwrap_or("");
    let options = GanttOptions {
        title: Some(format!("{file}: {policy} tables")),
        ..view.clone()
    };
    render_levels_svg(&panels, &options)
}
