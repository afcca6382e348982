//! A VM system made ready to run: the compositional analysis (Shin & Lee's periodic resource
//! model, Easwaran, Shin & Lee's multiprocessor periodic resource model; `kairos_analysis::csa`),
//! the system with every `vcpus = "auto"` domain's VCPUs computed, and the two-level plan the
//! simulator and the dispatcher run.

use kairos_analysis::csa::{
    analyze as csa, analyze_with_overheads, with_vcpus, CsaReport, NoInterface,
};
use kairos_analysis::overheads::{Charges, Quantile};
use kairos_model::VmSystem;
use kairos_policy::policies::hierarchical::VmPlan;

/// A VM system ready to run: the compositional analysis, the system with every
/// `vcpus = "auto"` domain's VCPUs computed (what `kairos interface` writes), and the plan the
/// simulator and the dispatcher run.
pub struct Prepared {
    pub report: CsaReport,
    pub system: VmSystem,
    pub plan: VmPlan,
}

/// Overheads to charge a VM system's analysis with, and where they come from.
#[derive(Clone, Copy, Debug)]
pub struct Charging {
    /// `profile`: given by the caller.
    pub source: &'static str,
    pub overheads: kairos_model::Overheads,
    pub quantile: Quantile,
}

/// The overhead-aware half of a VM system's analysis (`kairos analyze --overheads`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct WithOverheads {
    pub source: &'static str,
    pub quantile: Quantile,
    /// Each overhead at that quantile, ns.
    pub charges: Charges,
    /// The interfaces, with budgets that hold the overheads, and the VMM's verdict on them.
    pub report: CsaReport,
}

/// The compositional analysis with `charging`'s overheads charged level by level
/// (`kairos_analysis::csa::overheads`).
pub fn with_overheads(system: &VmSystem, charging: &Charging) -> WithOverheads {
    let charges = Charges::at(&charging.overheads, charging.quantile);
    WithOverheads {
        source: charging.source,
        quantile: charging.quantile,
        charges,
        report: analyze_with_overheads(system, &charges),
    }
}

/// [`prepare`] with VCPU budgets that hold `charging`'s overheads.
pub fn prepare_with_overheads(system: &VmSystem, charging: &Charging) -> Result<Prepared, Refusal> {
    ready(system, with_overheads(system, charging).report)
}

/// What every stage that runs a VM system does first, and what `kairos check` checks: a
/// domain left without an interface, or a VCPU the VMM cannot place, is refused here.
pub fn prepare(system: &VmSystem) -> Result<Prepared, Refusal> {
    ready(system, csa(system))
}

/// Why a VM system cannot run: what is wrong, and where in the file when it is one field (a
/// domain without an interface).
#[derive(Clone, Debug)]
pub struct Refusal {
    pub path: Option<String>,
    pub message: String,
}

impl From<NoInterface> for Refusal {
    fn from(refusal: NoInterface) -> Refusal {
        Refusal {
            path: Some(refusal.path),
            message: refusal.message,
        }
    }
}

impl From<Refusal> for String {
    fn from(refusal: Refusal) -> String {
        match refusal.path {
            Some(path) => format!("{path}: {}", refusal.message),
            None => refusal.message,
        }
    }
}

fn ready(system: &VmSystem, report: CsaReport) -> Result<Prepared, Refusal> {
    let system = with_vcpus(system, &report)?;
    let plan = VmPlan::new(&system).map_err(|r| Refusal {
        path: None,
        message: r.0,
    })?;
    Ok(Prepared {
        report,
        system,
        plan,
    })
}

/// The one-line summary of a VM system (`kairos check`).
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
pub fn vmm_name(system: &VmSystem) -> String {
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
