//! Virtual-machine files (`domains`, `vmm`) in `kairos check`, `kairos analyze` (compositional
//! analysis: interfaces, VCPUs, the VMM verdict) and `kairos interface` (the file with its
//! computed VCPUs written in).

use crate::args::{CommandResult, Failure};
use crate::commands::check::read_source;
use kairos_analysis::csa::{analyze as csa, with_vcpus, CsaReport};
use kairos_model::vm_load::{check_vm_source, is_vm_source, to_toml};
use kairos_model::{Duration, Format, VmSystem};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct InterfaceArgs {
    /// VM file (.toml or .json with `domains`).
    pub file: PathBuf,
    /// Write the system with its computed VCPUs here (TOML); standard output when absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Whether `path` holds a VM system (an unreadable file is not one: its reader says why).
pub fn is_vm_file(path: &Path) -> bool {
    let format = Format::from_path(&path.to_string_lossy());
    std::fs::read_to_string(path).is_ok_and(|text| is_vm_source(&text, format))
}

/// The summary line of `kairos check` for a VM system.
pub fn summary(system: &VmSystem) -> String {
    let tasks: usize = system.domains.iter().map(|d| d.tasks.len()).sum();
    let auto = system.domains.iter().filter(|d| d.vcpus.is_none()).count();
    format!(
        "{} domain(s), {tasks} task(s), {auto} with computed VCPUs, on {} core(s) under {}",
        system.domains.len(),
        system.cores,
        vmm_name(system)
    )
}

/// "rt-global EDF with deferrable servers".
pub(crate) fn vmm_name(system: &VmSystem) -> String {
    use kairos_model::{ServerKind, ServerPriority, VmmScheduler};
    let scheduler = match system.vmm.scheduler {
        VmmScheduler::RtGlobal => "rt-global",
        VmmScheduler::RtPartition => "rt-partition",
        VmmScheduler::Credit => "credit",
    };
    let priority = match system.vmm.priority {
        ServerPriority::Edf => "EDF",
        ServerPriority::Dm => "DM",
    };
    let server = match system.vmm.server {
        ServerKind::Deferrable => "deferrable",
        ServerKind::Periodic => "periodic",
    };
    format!("{scheduler} {priority} with {server} servers")
}

/// Reads and checks a VM file that must be valid (diagnostics to standard error).
pub fn load_valid(path: &Path) -> Result<VmSystem, Failure> {
    let source = read_source(path)?;
    let checked = check_vm_source(&source, Format::from_path(&path.to_string_lossy()));
    let name = path.display().to_string();
    for d in checked.diagnostics.iter() {
        eprintln!("{}", d.render(&name));
    }
    checked
        .system
        .ok_or_else(|| Failure::bad_input(format!("{name} has errors; see `kairos check {name}`")))
}

/// `kairos analyze` on a VM file.
pub fn analyze(path: &Path, json: bool) -> CommandResult {
    let system = load_valid(path)?;
    let report = csa(&system);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("report serializes")
        );
    } else {
        print!("{}", text(&system, &report));
    }
    // As for workloads: 0 when shown schedulable, 1 otherwise (not analysed included).
    Ok(match report.schedulable {
        Some(true) => 0,
        _ => crate::exit::NO,
    })
}

fn text(system: &VmSystem, report: &CsaReport) -> String {
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
            Duration::from_nanos(i.budget_ns),
            Duration::from_nanos(i.period_ns),
            i.budget_ns as f64 / i.period_ns.max(1) as f64,
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
                v.name,
                Duration::from_nanos(v.budget_ns),
                Duration::from_nanos(v.period_ns)
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
    let system = load_valid(&args.file)?;
    let system = with_vcpus(&system, &csa(&system)).map_err(Failure::bad_input)?;
    let toml = to_toml(&system);
    match &args.out {
        Some(path) => {
            std::fs::write(path, &toml).map_err(|e| {
                Failure::environment(format!("cannot write {}: {e}", path.display()))
            })?;
            eprintln!(
                "wrote {} ({} domain(s))",
                path.display(),
                system.domains.len()
            );
        }
        None => print!("{toml}"),
    }
    Ok(0)
}
