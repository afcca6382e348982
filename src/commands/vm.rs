//! Virtual-machine files (`domains`, `vmm`) in `kairos check`, `kairos analyze` (compositional
//! analysis: interfaces, VCPUs, the VMM verdict) and `kairos interface` (the file with its
//! computed VCPUs written in).

use crate::args::{CommandResult, Failure};
use kairos_analysis::csa::analyze as csa;
use kairos_lab::vm::{prepare, Charging, Prepared};
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
    /// Budgets that also hold the overheads of this profile's `[overheads]` table (what
    /// `kairos bench overheads --out` measured), charged level by level.
    #[arg(long, value_name = "FILE.toml")]
    pub overheads: Option<PathBuf>,
    /// Which point of each measured overhead distribution to charge: max (safe), p999 or p99.
    #[arg(long, value_name = "QUANTILE", default_value = "max", value_parser = kairos_analysis::overheads::Quantile::parse)]
    pub overhead_quantile: kairos_analysis::overheads::Quantile,
}

/// `kairos analyze` on a VM system; with `charged`, the overhead-aware analysis beside the
/// ideal one, and the exit code follows it.
pub fn analyze(system: &VmSystem, json: bool, charged: Option<&Charging>) -> CommandResult {
    let report = csa(system);
    let aware = charged.map(|c| kairos_lab::vm::with_overheads(system, c));
    if json {
        let mut value = serde_json::to_value(&report).expect("the report serializes");
        if let Some(aware) = &aware {
            value["overheads"] = serde_json::to_value(aware).expect("the report serializes");
        }
        crate::args::print_json(&value);
    } else {
        print!("{}", kairos_lab::text::vm_analysis(system, &report));
        if let Some(aware) = &aware {
            print!("{}", kairos_lab::text::vm_overheads(system, aware));
        }
    }
    // As for workloads: 0 when shown schedulable, 1 otherwise (not analysed included).
    let verdict = aware.as_ref().map_or(&report, |a| &a.report);
    Ok(match verdict.schedulable {
        Some(true) => 0,
        _ => crate::exit::NO,
    })
}

/// `kairos interface FILE [--out F]`: the file with each `vcpus = "auto"` domain's computed
/// VCPUs (and, for partitioned guests, each task's VCPU as `core`) written in.
pub fn interface(args: &InterfaceArgs) -> CommandResult {
    let system = crate::input::vm_system(&args.file, "interface")?;
    let charging = match &args.overheads {
        Some(path) => Some(Charging {
            source: "profile",
            overheads: crate::input::load_profile(path, args.overhead_quantile)?,
            quantile: args.overhead_quantile,
        }),
        None => None,
    };
    let prepared = match &charging {
        Some(c) => kairos_lab::vm::prepare_with_overheads(&system, c),
        None => prepare(&system),
    };
    let Prepared { report, system, .. } = prepared.map_err(Failure::bad_input)?;
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
