//! `kairos check FILE`: every problem at once, each with its location and a hint.

use crate::args::{CommandResult, Failure};
use crate::mc_input;
use kairos_model::managed::ManagedSystem;
use kairos_model::managed_load::{check_managed_source, is_managed_source};
use kairos_model::mc_load::{is_mc_source, McChecked};
use kairos_model::mcdag_xml::ImportOptions;
use kairos_model::{check_source, Checked, Diagnostics, Duration, Format};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Workload file (.toml or .json), mixed-criticality system (.toml or .json with `dags`),
    /// VM system (with `domains`), managed system (with `manager`), or MC-DAG framework XML
    /// (.xml).
    pub file: PathBuf,
    /// For .xml files: how long one time unit of the file lasts.
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = crate::mc_input::slot_arg)]
    pub slot: Duration,
    /// Print the report as JSON: `ok`, counts, every diagnostic with line, column and path.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CheckArgs) -> CommandResult {
    let source = mc_input::read_text(&args.file)?;
    let checked = evaluate(&args.file, &source, args.slot)?;
    match args.json {
        true => println!(
            "{}",
            serde_json::to_string_pretty(&checked.json).expect("report serializes")
        ),
        false => print!("{}", checked.text),
    }
    Ok(if checked.has_errors {
        crate::exit::BAD_INPUT
    } else {
        0
    })
}

/// What `kairos check` says of one file, in both forms.
pub struct Evaluated {
    /// The `--json` report.
    pub json: serde_json::Value,
    /// The text report.
    pub text: String,
    pub has_errors: bool,
}

/// Checks `source` (read from `path`, whose extension gives the format) as `kairos check`
/// does: managed, VM, mixed-criticality or periodic, by its top-level keys.
pub fn evaluate(path: &Path, source: &str, slot: Duration) -> Result<Evaluated, Failure> {
    let name = path.display().to_string();
    let format = Format::from_path(&path.to_string_lossy());
    let both = |diagnostics: &Diagnostics,
                summary: Option<String>,
                json_summary: Option<serde_json::Value>| Evaluated {
        json: json_report(&name, json_summary, diagnostics),
        text: report(diagnostics, &name, summary),
        has_errors: diagnostics.has_errors(),
    };
    if is_managed_source(source, format) {
        let checked = check_managed_source(source, format);
        let summary = checked.system.as_ref().map(managed_summary);
        return Ok(both(
            &checked.diagnostics,
            summary.clone(),
            summary.map(serde_json::Value::String),
        ));
    }
    if kairos_model::is_vm_source(source, format) {
        let checked = kairos_model::check_vm_source(source, format);
        let summary = checked.system.as_ref().map(crate::commands::vm::summary);
        return Ok(both(
            &checked.diagnostics,
            summary.clone(),
            summary.map(serde_json::Value::String),
        ));
    }
    if mc_input::is_xml(path) || is_mc_source(source, format) {
        let options = ImportOptions { slot, cores: None };
        let checked = mc_input::check_source(path, source, &options)?;
        let summary = checked.system.as_ref().map(|s| {
            serde_json::json!({
                "dags": s.dags.len(),
                "tasks": s.task_refs().count(),
                "levels": s.levels,
                "cores": s.cores,
                "utilization": (0..s.level_count()).map(|l| s.utilization_at(l)).collect::<Vec<_>>(),
                "hyperperiod_ns": s.hyperperiod().map(|h| h.as_nanos()),
            })
        });
        return Ok(Evaluated {
            json: json_report(&name, summary, &checked.diagnostics),
            text: render_mc(&checked, &name),
            has_errors: checked.diagnostics.has_errors(),
        });
    }
    let checked = check_source(source, format);
    let summary = checked.workload.as_ref().map(|w| {
        serde_json::json!({
            "tasks": w.tasks.len(),
            "cores": w.cores,
            "utilization": w.total_utilization(),
        })
    });
    Ok(Evaluated {
        json: json_report(&name, summary, &checked.diagnostics),
        text: render(&checked, &name),
        has_errors: checked.diagnostics.has_errors(),
    })
}

/// One line on a managed system: the RT task, the period and every core's partition.
fn managed_summary(s: &ManagedSystem) -> String {
    let p = s.manager.period;
    let cores: Vec<String> = s
        .allocations
        .iter()
        .enumerate()
        .map(|(c, a)| {
            format!(
                "core {c} RT {} BE {} idle {}",
                a.rt,
                a.be,
                a.idle(p).unwrap_or_default()
            )
        })
        .collect();
    format!(
        "managed system, RT task {} on core {} (A {}, D {}), P {}: {}; {} best-effort program(s)",
        s.rt.name,
        s.rt.core.0,
        s.rt.period,
        s.rt.deadline,
        p,
        cores.join(", "),
        s.best_effort.len()
    )
}

/// `check --json`: the verdict, what was read (`summary`, null on errors), the counts and every
/// diagnostic, as fields.
fn json_report(
    file: &str,
    summary: Option<serde_json::Value>,
    diagnostics: &Diagnostics,
) -> serde_json::Value {
    let items: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            serde_json::json!({
                "severity": if d.is_error() { "error" } else { "warning" },
                "line": d.position.map(|p| p.line),
                "column": d.position.map(|p| p.column),
                "path": d.path,
                "message": d.message,
                "hint": d.hint,
            })
        })
        .collect();
    serde_json::json!({
        "file": file,
        "ok": !diagnostics.has_errors(),
        "summary": summary,
        "errors": diagnostics.error_count(),
        "warnings": diagnostics.warning_count(),
        "diagnostics": items,
    })
}

/// The report `kairos check` prints for a mixed-criticality system: each diagnostic, then a
/// summary line with the DAGs, tasks, levels, the utilization at each level and the
/// hyper-period.
pub fn render_mc(checked: &McChecked, file: &str) -> String {
    let summary = checked.system.as_ref().map(|s| {
        let tasks: usize = s.dags.iter().map(|d| d.tasks.len()).sum();
        let utilization: Vec<String> = (0..s.level_count())
            .map(|l| format!("{} {:.3}", s.levels[l], s.utilization_at(l)))
            .collect();
        let hyperperiod = s
            .hyperperiod()
            .map_or_else(|| "overflows".to_string(), |h| h.to_string());
        format!(
            "{} DAG(s), {tasks} task(s), {} level(s) on {} core(s), utilization {}, hyper-period {hyperperiod}",
            s.dags.len(),
            s.level_count(),
            s.cores,
            utilization.join(", "),
        )
    });
    report(&checked.diagnostics, file, summary)
}

/// Reads and checks a workload file.
pub fn load(path: &Path) -> Result<Checked, Failure> {
    let source = read_source(path)?;
    Ok(check_source(
        &source,
        Format::from_path(&path.to_string_lossy()),
    ))
}

/// The text of `path`, or an input error saying why it cannot be read.
pub fn read_source(path: &Path) -> Result<String, Failure> {
    let source = std::fs::read(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?;
    String::from_utf8(source).map_err(|e| {
        Failure::bad_input(format!(
            "{} is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The report `kairos check` prints: each diagnostic, then a summary line.
pub fn render(checked: &Checked, file: &str) -> String {
    let summary = checked.workload.as_ref().map(|w| {
        format!(
            "{} task(s) on {} core(s), utilization {:.3}",
            w.tasks.len(),
            w.cores,
            w.total_utilization()
        )
    });
    report(&checked.diagnostics, file, summary)
}

/// Each diagnostic, then `FILE: ok: SUMMARY, W warning(s)` when the input was accepted
/// (`summary` is its description), else `FILE: E error(s), W warning(s)`.
fn report(diagnostics: &Diagnostics, file: &str, summary: Option<String>) -> String {
    let mut out = String::new();
    for d in diagnostics.iter() {
        out.push_str(&d.render(file));
        out.push('\n');
    }
    let warnings = diagnostics.warning_count();
    match summary {
        Some(summary) => out.push_str(&format!("{file}: ok: {summary}, {warnings} warning(s)\n")),
        None => out.push_str(&format!(
            "{file}: {} error(s), {warnings} warning(s)\n",
            diagnostics.error_count()
        )),
    }
    out
}

/// Loads a workload that must be valid: prints the diagnostics and fails on errors. The
/// hyper-period overflow warning is left to `kairos check` and to a simulation without
/// `--duration`, the one place it changes anything (and which says so itself).
pub fn load_valid(path: &Path) -> Result<kairos_model::Workload, Failure> {
    let checked = load(path)?;
    let name = path.display().to_string();
    let shown = checked
        .diagnostics
        .iter()
        .filter(|d| d.message != kairos_model::validate::HYPERPERIOD_OVERFLOW);
    for d in shown {
        eprintln!("{}", d.render(&name));
    }
    checked
        .workload
        .ok_or_else(|| Failure::bad_input(format!("{name} has errors; see `kairos check {name}`")))
}
