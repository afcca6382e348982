//! A command's input file: read once, its kind told by the model's one loader
//! (`kairos_model::input`), its diagnostics printed, and a kind the command does not take
//! refused with the commands that do.

use crate::Failure;
use kairos_model::input::{self, Input, InputKind, LoadOptions, Loaded, SimsoRun};
use kairos_model::validate::HYPERPERIOD_OVERFLOW;
use kairos_model::{McSystem, VmSystem, Workload};
use std::path::Path;

/// The kinds that hold periodic and sporadic tasks.
pub const WORKLOADS: [InputKind; 2] = [InputKind::Workload, InputKind::SimsoXml];
/// The kinds that hold mixed-criticality DAGs.
pub const MC: [InputKind; 2] = [InputKind::McDag, InputKind::McDagXml];

/// The text of `path`, or an input error saying why it cannot be read.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    input::read_text(path).map_err(Failure::bad_input)
}

/// Reads and loads `path` (its diagnostics are the caller's to show).
pub fn read(path: &Path, options: &LoadOptions) -> Result<Loaded, Failure> {
    Ok(input::load(path, &read_text(path)?, options))
}

/// What a command took from its file.
pub struct Taken {
    pub kind: InputKind,
    pub input: Input,
    /// For a SimSo configuration, the run SimSo would make.
    pub simso: Option<SimsoRun>,
}

/// Who takes input of `kind`, for a command that does not.
pub fn taken_by(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Workload | InputKind::SimsoXml => {
            "`kairos analyze`, `simulate`, `run`, `report` and `export` take it"
        }
        InputKind::McDag | InputKind::McDagXml => {
            "`kairos synth`, `simulate`, `run`, `report` and `validate-tables` take it"
        }
        InputKind::Vm => "`kairos analyze`, `interface`, `simulate`, `run` and `report` take it",
        InputKind::Managed => "`kairos manage` runs it",
        InputKind::Experiment => "`kairos experiment` runs it",
        InputKind::Overheads => {
            "`kairos simulate --overheads` takes it, as does a workload's own [overheads] table"
        }
    }
}

/// Loads `path` for `kairos command`, which takes `kinds`. A kind it does not take is refused
/// with who does; the diagnostics go to standard error (the hyper-period overflow warning only
/// matters to a simulation without `--duration`, which says so itself); a file with errors
/// fails with exit 2 and the `kairos check` command that shows them.
pub fn load_for(
    path: &Path,
    command: &str,
    kinds: &[InputKind],
    options: &LoadOptions,
) -> Result<Taken, Failure> {
    let loaded = read(path, options)?;
    let name = path.display().to_string();
    if let Some(kind) = loaded.kind.filter(|k| !kinds.contains(k)) {
        return Err(Failure::bad_input(format!(
            "`kairos {command}` does not take {} ({name}): {}",
            kind.describe(),
            taken_by(kind)
        )));
    }
    let shown = (loaded.diagnostics.iter()).filter(|d| d.message != HYPERPERIOD_OVERFLOW);
    for d in shown {
        eprintln!("{}", d.render(&name));
    }
    match (loaded.kind, loaded.input) {
        (Some(kind), Some(input)) => Ok(Taken {
            kind,
            input,
            simso: loaded.simso,
        }),
        _ => {
            let slot = match loaded.kind.is_some_and(InputKind::is_xml) {
                true if options.slot != LoadOptions::default().slot => {
                    format!(" --slot {}", options.slot)
                }
                _ => String::new(),
            };
            Err(Failure::bad_input(format!(
                "{name} has errors; see `kairos check {name}{slot}`"
            )))
        }
    }
}

/// A workload (or a SimSo configuration) for `kairos command`.
pub fn workload(path: &Path, command: &str) -> Result<Workload, Failure> {
    match load_for(path, command, &WORKLOADS, &LoadOptions::default())?.input {
        Input::Workload(w) => Ok(w),
        _ => unreachable!("the workload kinds load to workloads"),
    }
}

/// A mixed-criticality DAG system for `kairos command`.
pub fn mc_system(path: &Path, command: &str, options: &LoadOptions) -> Result<McSystem, Failure> {
    match load_for(path, command, &MC, options)?.input {
        Input::Mc(system) => Ok(system),
        _ => unreachable!("the MC kinds load to MC systems"),
    }
}

/// A VM system for `kairos command`.
pub fn vm_system(path: &Path, command: &str) -> Result<VmSystem, Failure> {
    let taken = load_for(path, command, &[InputKind::Vm], &LoadOptions::default())?;
    match taken.input {
        Input::Vm(system) => Ok(system),
        _ => unreachable!("a VM file loads to a VM system"),
    }
}
