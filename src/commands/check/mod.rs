//! `kairos check FILE`: every problem at once, each with its location and a hint, for every
//! kind of input kairos reads (the model's one loader, `kairos_model::input`), and the same
//! preparation every other command makes before it runs: a file `check` accepts is not refused
//! later for a reason knowable before running.

mod summary;

use crate::args::CommandResult;
use crate::input::read_text;
use kairos_model::input::{self, LoadOptions};
use kairos_model::Duration;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Any kairos input: a workload (.toml or .json), a mixed-criticality system (`dags`), a VM
    /// system (`domains`), a managed system (`manager`), an experiment config, an overhead
    /// profile, MC-DAG framework XML or a SimSo configuration (.xml).
    pub file: PathBuf,
    /// For MC-DAG framework XML: how long one time unit of the file lasts.
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = crate::input::slot_arg)]
    pub slot: Duration,
    /// Print the report as JSON: `ok`, the kind, counts, every diagnostic with line, column and
    /// path.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CheckArgs) -> CommandResult {
    let source = read_text(&args.file)?;
    let checked = evaluate(&args.file, &source, args.slot);
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

/// Checks `source` (read from `path`, whose name gives the format) as `kairos check` does: the
/// loader's diagnostics, then what the commands that take the kind check before they run.
pub fn evaluate(path: &Path, source: &str, slot: Duration) -> Evaluated {
    let name = path.display().to_string();
    let options = LoadOptions { slot, cores: None };
    let mut loaded = input::load(path, source, &options);
    let summary = summary::of(path, source, &mut loaded);
    let diagnostics = &loaded.diagnostics;
    let summary = summary.filter(|_| !diagnostics.has_errors());
    let kind = loaded.kind.map(|k| k.name());
    let items: Vec<_> = (diagnostics.iter())
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
    let json = serde_json::json!({
        "file": name,
        "kind": kind,
        "ok": !diagnostics.has_errors(),
        "summary": summary.as_ref().map(|s| &s.json),
        "errors": diagnostics.error_count(),
        "warnings": diagnostics.warning_count(),
        "diagnostics": items,
    });
    let mut text = String::new();
    for d in diagnostics.iter() {
        text.push_str(&d.render(&name));
        text.push('\n');
    }
    let warnings = diagnostics.warning_count();
    text.push_str(&match &summary {
        Some(summary) => format!("{name}: ok: {}, {warnings} warning(s)\n", summary.text),
        None => format!(
            "{name}: {} error(s), {warnings} warning(s)\n",
            diagnostics.error_count()
        ),
    });
    Evaluated {
        json,
        text,
        has_errors: diagnostics.has_errors(),
    }
}
