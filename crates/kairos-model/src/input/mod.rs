//! One loader for every kind of input kairos reads: what a file is, found once from its name
//! and its top level ([`detect`](fn@detect)), and the checked value every command then takes
//! ([`load`]), with every problem located.
//!
//! | kind | how it is told | what it loads to |
//! |---|---|---|
//! | periodic workload | `tasks` (imprecise tasks among them or not) | [`Input::Workload`] |
//! | MC-DAG system | `levels` or `dags` | [`Input::Mc`] |
//! | MC-DAG framework XML | an XML root `<mcsystem>` | [`Input::Mc`] |
//! | SimSo configuration | an XML root `<simulation>` | [`Input::Workload`], with SimSo's run |
//! | VM system | `vmm` or `domains` | [`Input::Vm`] |
//! | managed system | `manager`, `rt`, `allocations` or `best_effort` | [`Input::Managed`] |
//! | experiment config | `study` (whatever else it has), or `utilization`, `methods`, `generator`, `mcdag`, `samples` or `simulation_cap` | [`Input::Experiment`] (decoded by the experiment stage) |
//! | overhead profile | `overheads` and no `tasks` | [`Input::Overheads`] |
//!
//! A file with the keys of two kinds is refused at the first key of the second, and a file with
//! none of them is read as a periodic workload, whose checker says what is missing.

mod detect;
mod simso;

pub use detect::detect;
pub use simso::SimsoRun;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::document::Format;
use crate::managed::ManagedSystem;
use crate::managed_load::check_managed_source;
use crate::mc::McSystem;
use crate::mc_load::{check_mc_source, McChecked};
use crate::mcdag_xml::{import_with, ImportOptions};
use crate::overheads::Overheads;
use crate::overheads_load::overheads_from_source;
use crate::time::Duration;
use crate::vm::VmSystem;
use crate::vm_load::check_vm_source;
use crate::workload::Workload;
use crate::{check_source, Position};
use std::path::Path;

/// The kinds of input kairos reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    Workload,
    McDag,
    McDagXml,
    SimsoXml,
    Vm,
    Managed,
    Experiment,
    Overheads,
}

impl InputKind {
    pub const ALL: [InputKind; 8] = [
        InputKind::Workload,
        InputKind::McDag,
        InputKind::McDagXml,
        InputKind::SimsoXml,
        InputKind::Vm,
        InputKind::Managed,
        InputKind::Experiment,
        InputKind::Overheads,
    ];

    /// The kind's name in JSON and in value lists.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Workload => "workload",
            InputKind::McDag => "mc-dag",
            InputKind::McDagXml => "mc-dag-xml",
            InputKind::SimsoXml => "simso-xml",
            InputKind::Vm => "vm",
            InputKind::Managed => "managed",
            InputKind::Experiment => "experiment",
            InputKind::Overheads => "overheads",
        }
    }

    /// The kind in words, for messages: "a VM system".
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::Workload => "a periodic workload",
            InputKind::McDag => "a mixed-criticality DAG system",
            InputKind::McDagXml => "a mixed-criticality DAG system in the MC-DAG framework's XML",
            InputKind::SimsoXml => "a SimSo configuration",
            InputKind::Vm => "a VM system",
            InputKind::Managed => "a managed system",
            InputKind::Experiment => "an experiment config",
            InputKind::Overheads => "an overhead profile",
        }
    }

    /// Whether files of this kind are XML.
    pub fn is_xml(self) -> bool {
        matches!(self, InputKind::McDagXml | InputKind::SimsoXml)
    }
}

/// What loading needs besides the file: how long one time unit of MC-DAG XML lasts (the
/// format has none) and a core count replacing its `<cores>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    pub slot: Duration,
    pub cores: Option<usize>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            slot: Duration::from_millis(1),
            cores: None,
        }
    }
}

/// A loaded input, when it has no error.
#[derive(Clone, Debug)]
pub enum Input {
    Workload(Workload),
    Mc(McSystem),
    Vm(VmSystem),
    Managed(ManagedSystem),
    Overheads(Overheads),
    /// An experiment config: its keys are the experiment stage's to decode.
    Experiment,
}

/// What [`load`] found: the kind (none when the file could not say: keys of two kinds, an XML
/// root kairos does not read), the value when there is no error, every diagnostic in source
/// order, and for a SimSo configuration the run SimSo would make.
#[derive(Debug)]
pub struct Loaded {
    pub kind: Option<InputKind>,
    pub input: Option<Input>,
    pub diagnostics: Diagnostics,
    pub simso: Option<SimsoRun>,
}

impl Loaded {
    fn of(kind: InputKind, input: Option<Input>, diagnostics: Diagnostics) -> Loaded {
        let input = input.filter(|_| !diagnostics.has_errors());
        Loaded {
            kind: Some(kind),
            input,
            diagnostics,
            simso: None,
        }
    }
}

/// The format of a kairos file named `path`: JSON by the extension `.json`, else TOML.
pub fn format_of(path: &Path) -> Format {
    Format::from_path(&path.to_string_lossy())
}

/// Loads `source`, read from `path`: its kind ([`detect`](fn@detect)), then the checker of that
/// kind.
pub fn load(path: &Path, source: &str, options: &LoadOptions) -> Loaded {
    let format = format_of(path);
    let kind = match detect(path, source) {
        Ok(kind) => kind,
        Err(unknown) => {
            return Loaded {
                kind: None,
                input: None,
                diagnostics: Diagnostics(vec![unknown]),
                simso: None,
            }
        }
    };
    match kind {
        InputKind::Workload => {
            let checked = check_source(source, format);
            let input = checked.workload.map(Input::Workload);
            Loaded::of(kind, input, checked.diagnostics)
        }
        InputKind::McDag => mc(kind, check_mc_source(source, format)),
        InputKind::McDagXml => {
            let import = ImportOptions {
                slot: options.slot,
                cores: options.cores,
            };
            mc(kind, import_with(source, &import))
        }
        InputKind::SimsoXml => simso::load(path, source),
        InputKind::Vm => {
            let checked = check_vm_source(source, format);
            Loaded::of(kind, checked.system.map(Input::Vm), checked.diagnostics)
        }
        InputKind::Managed => {
            let checked = check_managed_source(source, format);
            Loaded::of(
                kind,
                checked.system.map(Input::Managed),
                checked.diagnostics,
            )
        }
        InputKind::Overheads => match overheads_from_source(source, format) {
            Ok(overheads) => Loaded::of(
                kind,
                Some(Input::Overheads(overheads)),
                Diagnostics::default(),
            ),
            Err(diagnostics) => Loaded::of(kind, None, diagnostics),
        },
        InputKind::Experiment => Loaded::of(kind, Some(Input::Experiment), Diagnostics::default()),
    }
}

/// The `[overheads]` table of `source`, read from `path`: an overhead profile's, or a
/// periodic workload's own. A file of another kind (MC-DAG XML, a VM system) is refused as
/// what it is rather than read as a profile. Every reader of a profile goes through here.
pub fn load_overheads(path: &Path, source: &str) -> Result<Overheads, Diagnostics> {
    match detect(path, source) {
        Ok(InputKind::Overheads | InputKind::Workload) => {
            overheads_from_source(source, format_of(path))
        }
        Ok(kind) => Err(Diagnostics(vec![Diagnostic::error(format!(
            "this is {}, not an overhead profile",
            kind.describe()
        ))
        .with_hint("a profile is a file with an [overheads] table: `kairos bench overheads --out FILE.toml` writes one")])),
        Err(unknown) => Err(Diagnostics(vec![unknown])),
    }
}

/// [`load_overheads`] for a reader that charges the distributions' `point` (a key only newer
/// profiles carry, when given): each distribution without it is a located error.
pub fn load_overheads_charging(
    path: &Path,
    source: &str,
    point: Option<&str>,
) -> Result<Overheads, Diagnostics> {
    let overheads = load_overheads(path, source)?;
    let lacking = match point {
        Some(point) => crate::distributions_lacking(source, format_of(path), point),
        None => Diagnostics::default(),
    };
    match lacking.has_errors() {
        true => Err(lacking),
        false => Ok(overheads),
    }
}

/// An MC-DAG system, refused when no scheduling table can be made for it: every stage that
/// runs one (synthesis, simulation, a real run, a report) needs its tables.
fn mc(kind: InputKind, checked: McChecked) -> Loaded {
    let mut diagnostics = checked.diagnostics;
    if let Some(problem) = checked
        .system
        .as_ref()
        .and_then(McSystem::table_grid_problem)
    {
        let hint = "tables assign slots of the gcd of every time: one slot of a microsecond or more keeps a hyper-period of 100 s in bounds";
        diagnostics.push(Diagnostic::error(problem).at_path("dags").with_hint(hint));
    }
    Loaded::of(kind, checked.system.map(Input::Mc), diagnostics)
}

/// Reads `path` as UTF-8 text; the error says which file and why.
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// A diagnostic at `position` of the kind that makes a file unreadable as any kind.
fn refusal(message: String, position: Option<Position>, hint: &str) -> Diagnostic {
    Diagnostic::error(message)
        .at_position(position)
        .with_hint(hint)
}

#[cfg(test)]
mod tests;
