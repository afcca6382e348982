//! Loading mixed-criticality systems for every MC command: the kairos format (TOML/JSON) or the
//! MC-DAG framework's XML, chosen by the file extension.

use crate::args::Failure;
use kairos_model::document::{self, Format, Value};
use kairos_model::mc_load::{check_mc_source, McChecked};
use kairos_model::mcdag_xml::{self, ImportOptions};
use kairos_model::{Duration, McSystem};
use std::path::Path;

/// clap parser for `--slot`: a duration greater than zero.
pub fn slot_arg(text: &str) -> Result<Duration, String> {
    let slot = crate::args::duration_arg(text)?;
    if slot.is_zero() {
        return Err("a slot must last more than zero (e.g. 1ms)".into());
    }
    Ok(slot)
}

/// Whether `path` names an MC-DAG framework XML file (by its extension, in any case).
pub fn is_xml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
}

/// Reads a file as text, with the messages `kairos check` uses.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::bad_input(format!(
            "{} is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Checks the MC-DAG system in `source`, read from `path`: XML when the name ends in `.xml`
/// (one time unit lasting `options.slot`, `options.cores` replacing the file's `<cores>`), else
/// the kairos format. A kairos file that parses
/// but is a periodic workload is refused with a message that says so.
pub fn check_source(
    path: &Path,
    source: &str,
    options: &ImportOptions,
) -> Result<McChecked, Failure> {
    if is_xml(path) {
        return Ok(mcdag_xml::import_with(source, options));
    }
    let format = Format::from_path(&path.to_string_lossy());
    if let Ok(root) = document::parse(source, format) {
        let is_mc = match &root.value {
            Value::Table(entries) => entries.iter().any(|e| e.key == "dags" || e.key == "levels"),
            _ => true,
        };
        if !is_mc {
            return Err(Failure::bad_input(format!(
                "{} is a periodic workload (`tasks`), not a mixed-criticality system: see docs/model.md for `levels` and `dags`",
                path.display()
            )));
        }
    }
    Ok(check_mc_source(source, format))
}

/// Reads and checks an MC-DAG system; on errors prints the diagnostics and fails with exit 2.
/// `slot` is the length of one XML time unit (the XML format has none). Warnings are printed to
/// standard error too.
pub fn load_system(path: &Path, slot: Duration) -> Result<McSystem, Failure> {
    load_system_with(path, &ImportOptions { slot, cores: None })
}

/// [`load_system`] with every XML import option (`--cores` replaces the file's core count).
pub fn load_system_with(path: &Path, options: &ImportOptions) -> Result<McSystem, Failure> {
    let source = read_text(path)?;
    let checked = check_source(path, &source, options)?;
    let name = path.display().to_string();
    for d in checked.diagnostics.iter() {
        eprintln!("{}", d.render(&name));
    }
    checked.system.ok_or_else(|| {
        let slot = if is_xml(path) && options.slot != Duration::from_millis(1) {
            format!(" --slot {}", options.slot)
        } else {
            String::new()
        };
        Failure::bad_input(format!(
            "{name} has errors; see `kairos check {name}{slot}`"
        ))
    })
}
