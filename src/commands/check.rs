//! `kairos check FILE`: every problem at once, each with its location and a hint.

use crate::args::{CommandResult, Failure};
use kairos_model::{check_source, Checked, Format};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Workload file (.toml or .json).
    pub file: PathBuf,
}

pub fn run(args: &CheckArgs) -> CommandResult {
    let checked = load(&args.file)?;
    let name = args.file.display().to_string();
    print!("{}", render(&checked, &name));
    Ok(if checked.diagnostics.has_errors() {
        crate::exit::BAD_INPUT
    } else {
        0
    })
}

/// Reads and checks a workload file.
pub fn load(path: &Path) -> Result<Checked, Failure> {
    let source = std::fs::read(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?;
    let source = String::from_utf8(source).map_err(|e| {
        Failure::bad_input(format!(
            "{} is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(check_source(
        &source,
        Format::from_path(&path.to_string_lossy()),
    ))
}

/// The report `kairos check` prints: each diagnostic, then a summary line.
pub fn render(checked: &Checked, file: &str) -> String {
    let mut out = String::new();
    for d in checked.diagnostics.iter() {
        out.push_str(&d.render(file));
        out.push('\n');
    }
    let (errors, warnings) = (
        checked.diagnostics.error_count(),
        checked.diagnostics.warning_count(),
    );
    match &checked.workload {
        Some(w) => out.push_str(&format!(
            "{file}: ok: {} task(s) on {} core(s), utilization {:.3}, {warnings} warning(s)\n",
            w.tasks.len(),
            w.cores,
            w.total_utilization()
        )),
        None => out.push_str(&format!(
            "{file}: {errors} error(s), {warnings} warning(s)\n"
        )),
    }
    out
}

/// Loads a workload that must be valid: prints the diagnostics and fails on errors.
pub fn load_valid(path: &Path) -> Result<kairos_model::Workload, Failure> {
    let checked = load(path)?;
    let name = path.display().to_string();
    for d in checked.diagnostics.iter() {
        eprintln!("{}", d.render(&name));
    }
    checked
        .workload
        .ok_or_else(|| Failure::bad_input(format!("{name} has errors; see `kairos check {name}`")))
}
