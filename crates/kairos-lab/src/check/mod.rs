//! Every problem of a file at once, each with its location and a hint, for every kind of
//! input kairos reads (the model's one loader, `kairos_model::input`), and the same
//! preparation every stage makes before it runs: a file the check accepts is not refused
//! later for a reason knowable before running.

mod summary;

use kairos_model::input::{self, LoadOptions};
use kairos_model::Duration;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// What `kairos check` says of one file: the report its `--json` prints, and the text.
pub struct Evaluated {
    pub report: Report,
    /// The text report.
    pub text: String,
}

/// The `kairos check --json` report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub file: String,
    /// The input kind found, if any.
    pub kind: Option<&'static str>,
    pub ok: bool,
    /// What the file holds, when it has no errors.
    pub summary: Option<Value>,
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: Vec<Item>,
}

/// One located diagnostic.
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    pub severity: &'static str,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub path: Option<String>,
    pub message: String,
    pub hint: Option<String>,
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
    let items = (diagnostics.iter())
        .map(|d| Item {
            severity: if d.is_error() { "error" } else { "warning" },
            line: d.position.map(|p| p.line),
            column: d.position.map(|p| p.column),
            path: d.path.clone(),
            message: d.message.clone(),
            hint: d.hint.clone(),
        })
        .collect();
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
    let report = Report {
        file: name,
        kind,
        ok: !diagnostics.has_errors(),
        summary: summary.map(|s| s.json),
        errors: diagnostics.error_count(),
        warnings: diagnostics.warning_count(),
        diagnostics: items,
    };
    Evaluated { report, text }
}
