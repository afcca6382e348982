//! `kairos synth FILE`: one scheduling table per criticality level for an MC-DAG system
//! (GMH-MC-DAG, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2; docs/synth.md), or the federated
//! baseline; a summary with table quality, the table file, a Gantt chart of every level.

use crate::args::{duration_arg, write_output, CommandResult, Failure};
use kairos_mc::{federated, synthesize, Policy, SynthFailure, SynthOptions, Synthesis};
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, Instant, McSystem, TableSet};
use kairos_trace::gantt::{render_levels_svg, GanttOptions};
use kairos_trace::{Trace, TraceEvent};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant as WallClock;

#[derive(clap::Args)]
pub struct Args {
    /// MC-DAG system: kairos TOML/JSON, or the MC-DAG framework's XML (.xml).
    pub file: PathBuf,
    /// Slot priority policy, or the federated baseline (heavy DAGs on dedicated cores).
    #[arg(long, value_parser = ["gedzl", "gedf", "gllf", "federated"], default_value = "gedzl")]
    pub policy: String,
    /// Number of cores, replacing the file's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Length of one time unit of an XML file (the format has no unit).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
    /// Write the tables (JSON table file, times in ns) here.
    #[arg(short = 'o', long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// Write every level's table as one Gantt chart (SVG).
    #[arg(long, value_name = "FILE.svg", value_parser = crate::args::svg_path_arg)]
    pub gantt: Option<PathBuf>,
    /// Only draw this part of the tables in the Gantt chart, e.g. 0ms..50ms.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::args::window_arg, value_name = "START..END", requires = "gantt")]
    pub gantt_window: Option<(kairos_model::Instant, kairos_model::Instant)>,
    /// Rows of the Gantt chart: core (who runs where) or task (when each task runs, with
    /// release and deadline arrows).
    #[arg(long, value_name = "core|task", value_parser = crate::args::rows_arg, default_value = "core", requires = "gantt")]
    pub gantt_by: kairos_trace::gantt::RowsBy,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One synthesis, as the command and the Python API ask for it.
pub struct Request {
    /// The system's file, as the summary names it.
    pub file: PathBuf,
    /// `gedzl`, `gedf`, `gllf` or `federated`.
    pub policy: String,
    /// Number of cores, replacing the system's.
    pub cores: Option<usize>,
    /// Where the tables are written, as the summary says.
    pub out: Option<PathBuf>,
}

impl Args {
    pub fn request(&self) -> Request {
        Request {
            file: self.file.clone(),
            policy: self.policy.clone(),
            cores: self.cores.map(|c| c as usize),
            out: self.out.clone(),
        }
    }
}

/// The system `kairos synth` synthesizes tables for.
pub fn load(args: &Args) -> Result<McSystem, Failure> {
    let options = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    crate::input::mc_system(&args.file, "synth", &options)
}

pub fn run(args: &Args) -> CommandResult {
    let system = load(args)?;
    let (report, outcome) = synthesize_report(&args.request(), &system)?;
    let Some((out, elapsed)) = outcome else {
        match args.json {
            true => println!(
                "{}",
                serde_json::to_string_pretty(&report).expect("summary serializes")
            ),
            false => println!(
                "{}: not schedulable: {}",
                args.file.display(),
                report["reason"].as_str().unwrap_or_default()
            ),
        }
        return Ok(crate::exit::NO);
    };
    if let Some(path) = &args.out {
        write_output(path, out.tables.to_json() + "\n")?;
    }
    if let Some(path) = &args.gantt {
        let view = GanttOptions {
            window: args.gantt_window,
            rows: args.gantt_by,
            title: None,
        };
        write_output(path, gantt(&system, &out.tables, &args.file, &view))?;
    }
    match args.json {
        true => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("summary serializes")
        ),
        false => print_summary(args, &out, elapsed),
    }
    Ok(0)
}

/// `kairos synth --json`'s report, and the synthesis with its time when it succeeded
/// (an unschedulable system is a report with `schedulable: false`, not an error).
pub fn synthesize_report(
    args: &Request,
    system: &McSystem,
) -> Result<(serde_json::Value, Option<(Synthesis, std::time::Duration)>), Failure> {
    let options = SynthOptions {
        policy: Policy::from_name(&args.policy).unwrap_or_default(),
        cores: args.cores,
    };
    let started = WallClock::now();
    let result = if args.policy == "federated" {
        federated(system, &options)
    } else {
        synthesize(system, &options)
    };
    let elapsed = started.elapsed();
    match result {
        Ok(out) => Ok((summary_json(args, &out, elapsed), Some((out, elapsed)))),
        Err(failure) if failure.is_input_error() => Err(Failure::bad_input(format!(
            "{}: {failure}",
            args.file.display()
        ))),
        Err(failure) => Ok((failure_json(args, &failure, elapsed), None)),
    }
}

fn print_summary(args: &Args, out: &Synthesis, elapsed: std::time::Duration) {
    let t = &out.tables;
    let hyperperiod = Duration::from_nanos(t.hyperperiod);
    println!(
        "{}: {} level(s), hyper-period {hyperperiod} ({} slots of {}), {} core(s), policy {}",
        args.file.display(),
        t.levels.len(),
        t.hyperperiod / out.slot.as_nanos(),
        out.slot,
        t.cores,
        t.policy.as_deref().unwrap_or("?"),
    );
    println!(
        "{:<8} {:>8} {:>10} {:>12} {:>11} {:>12}",
        "level", "jobs", "intervals", "preemptions", "migrations", "preempt/job"
    );
    let rows = out
        .quality
        .levels
        .iter()
        .map(|l| (l.level.as_str(), &l.counts));
    for (name, c) in rows.chain([("total", &out.quality.total)]) {
        println!(
            "{name:<8} {:>8} {:>10} {:>12} {:>11} {:>12.3}",
            c.jobs,
            c.intervals,
            c.preemptions,
            c.migrations,
            c.preemptions_per_job()
        );
    }
    println!("synthesized in {:.3} ms", elapsed.as_secs_f64() * 1e3);
    if let Some(path) = &args.out {
        println!("tables written to {}", path.display());
    }
    if let Some(path) = &args.gantt {
        println!("Gantt chart written to {}", path.display());
    }
}

fn summary_json(
    args: &Request,
    out: &Synthesis,
    elapsed: std::time::Duration,
) -> serde_json::Value {
    let t = &out.tables;
    let value = json!({
        "file": args.file.display().to_string(),
        "schedulable": true,
        "policy": t.policy,
        "cores": t.cores,
        "levels": t.levels,
        "slot_ns": out.slot.as_nanos(),
        "hyperperiod_ns": t.hyperperiod,
        "quality": {"levels": out.quality.levels, "total": out.quality.total},
        "time_ms": elapsed.as_secs_f64() * 1e3,
        "out": args.out.as_ref().map(|p| p.display().to_string()),
    });
    value
}

fn failure_json(
    args: &Request,
    failure: &SynthFailure,
    elapsed: std::time::Duration,
) -> serde_json::Value {
    json!({
        "file": args.file.display().to_string(),
        "schedulable": false,
        "policy": args.policy,
        "reason": failure.to_string(),
        "time_ms": elapsed.as_secs_f64() * 1e3,
    })
}

/// Every level's table as one stacked Gantt chart (`dag/task` names, one panel per level).
/// One panel per level; `view` gives the window and the rows (its title is replaced).
pub(crate) fn gantt(
    system: &McSystem,
    tables: &TableSet,
    file: &std::path::Path,
    view: &GanttOptions,
) -> String {
    let names: Vec<String> = system
        .task_refs()
        .map(|t| system.qualified_name(t))
        .collect();
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let traces: Vec<(String, Trace)> = tables
        .tables
        .iter()
        .map(|table| {
            let events = table
                .intervals
                .iter()
                .filter_map(|iv| {
                    let task = *index.get(iv.task.as_str())?;
                    Some(TraceEvent::Segment {
                        core: iv.core,
                        task,
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
    let options = GanttOptions {
        title: Some(format!(
            "{}: {} tables",
            file.display(),
            tables.policy.as_deref().unwrap_or("")
        )),
        ..view.clone()
    };
    render_levels_svg(&panels, &options)
}
