//! Virtual-machine files (`domains`, `vmm`) in `kairos check`, `kairos analyze` (compositional
//! analysis: interfaces, VCPUs, the VMM verdict) and `kairos interface` (the file with its
//! computed VCPUs written in).

use crate::args::{CommandResult, Failure};
use kairos_analysis::csa::analyze as csa;
use kairos_lab::vm::{prepare, Prepared};
use kairos_model::vm_load::to_toml;
use kairos_model::VmSystem;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct InterfaceArgs {
    /// A VM system (.toml or .json with `domains`).
    pub file: PathBuf,
    /// Write the system with its computed VCPUs here (TOML); standard output when absent.
    #[arg(short = 'o', long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
    /// Print the interfaces as JSON (as `kairos analyze --json`) instead of the file; with
    /// --out the file is still written.
    #[arg(long)]
    pub json: bool,
}

/// `kairos analyze` on a VM system.
pub fn analyze(system: &VmSystem, json: bool) -> CommandResult {
    let report = csa(system);
    if json {
        crate::args::print_json(&report);
    } else {
        print!("{}", kairos_lab::text::vm_analysis(system, &report));
    }
    // As for workloads: 0 when shown schedulable, 1 otherwise (not analysed included).
    Ok(match report.schedulable {
        Some(true) => 0,
        _ => crate::exit::NO,
    })
}

/// `kairos interface FILE [--out F]`: the file with each `vcpus = "auto"` domain's computed
/// VCPUs (and, for partitioned guests, each task's VCPU as `core`) written in.
pub fn interface(args: &InterfaceArgs) -> CommandResult {
    let system = crate::input::vm_system(&args.file, "interface")?;
    let Prepared { report, system, .. } = prepare(&system).map_err(Failure::bad_input)?;
    let toml = to_toml(&system);
    if args.json {
        crate::args::print_json(&report);
    }
    match &args.out {
        Some(path) => {
            crate::args::write_output(path, &toml)?;
            eprintln!(
                "wrote {} ({} domain(s))",
                path.display(),
                system.domains.len()
            );
        }
        None if !args.json => print!("{toml}"),
        None => {}
    }
    Ok(0)
}
