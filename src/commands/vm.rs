//! Virtual-machine files (`domains`, `vmm`) in `kairos check`, `kairos analyze` (compositional
//! analysis: interfaces, VCPUs, the VMM verdict) and `kairos interface` (the file with its
//! computed VCPUs written in).

use crate::args::{CommandResult, Failure};
use kairos_analysis::csa::{analyze as csa, CsaReport};
use kairos_lab::vm::{prepare, vmm_name, Prepared};
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
        print!("{}", text(system, &report));
    }
    // As for workloads: 0 when shown schedulable, 1 otherwise (not analysed included).
    Ok(match report.schedulable {
        Some(true) => 0,
        _ => crate::exit::NO,
    })
}

pub(crate) fn text(system: &VmSystem, report: &CsaReport) -> String {
    let mut out = format!(
        "{}: {} domain(s) on {} core(s), {}\n",
        system.name.as_deref().unwrap_or("system"),
        system.domains.len(),
        system.cores,
        vmm_name(system)
    );
    for i in &report.interfaces {
        let verdict = match i.schedulable {
            Some(true) => "schedulable",
            Some(false) => "NOT schedulable",
            None => "not analysed",
        };
        out.push_str(&format!(
            "domain {} ({}): {} interface, {} VCPU(s), budget {} every {} ({:.3} cores): {verdict}\n",
            i.domain,
            i.guest,
            i.model,
            i.parallelism,
            i.budget,
            i.period,
            i.budget.as_nanos() as f64 / i.period.as_nanos().max(1) as f64,
        ));
        for v in &i.vcpus {
            let cpus = v
                .cpus
                .as_ref()
                .map_or("any core".to_string(), |c| format!("cores {c:?}"));
            let tasks = match v.tasks.is_empty() {
                true => String::new(),
                false => format!(", tasks {}", v.tasks.join(" ")),
            };
            out.push_str(&format!(
                "  {}: {} / {} on {cpus}{tasks}\n",
                v.name, v.budget, v.period
            ));
        }
        if let Some(note) = &i.note {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    let vmm = match report.vmm.schedulable {
        Some(true) => "schedulable",
        Some(false) => "NOT schedulable",
        None => "not analysed",
    };
    out.push_str(&format!(
        "VMM {} {}: {vmm} ({})\n",
        report.vmm.scheduler, report.vmm.priority, report.vmm.test
    ));
    let whole = match report.schedulable {
        Some(true) => "schedulable",
        Some(false) => "NOT schedulable",
        None => "not shown (some part is not analysed)",
    };
    out.push_str(&format!("system: {whole}\n"));
    out
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
