//! A VM system with its computed VCPUs written in: what `kairos interface` writes and what the
//! two-level simulation runs.

use super::system::CsaReport;
use kairos_model::{CoreId, Vcpu, VmSystem, VmmScheduler};

/// A domain the analysis found no interface for: its field path (`domains[i]`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoInterface {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for NoInterface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl From<NoInterface> for String {
    fn from(refusal: NoInterface) -> String {
        refusal.to_string()
    }
}

/// `system` with each `vcpus = "auto"` domain's VCPUs from `report` (the analysis of
/// `system`) and, for partitioned guests, each task's VCPU as its `core`. Under rt-partition a
/// VCPU given without `cpus` takes the core the VMM's packing gave it, so every VCPU names its
/// one core. Fails, naming the domain (by its field path and name) and why, when a domain has
/// no interface.
pub fn with_vcpus(system: &VmSystem, report: &CsaReport) -> Result<VmSystem, NoInterface> {
    let mut system = system.clone();
    let packed = system.vmm.scheduler == VmmScheduler::RtPartition;
    for (index, (domain, i)) in (system.domains.iter_mut().zip(&report.interfaces)).enumerate() {
        if let Some(given) = &mut domain.vcpus {
            for (vcpu, placed) in given.iter_mut().zip(&i.vcpus).filter(|_| packed) {
                if vcpu.cpus.is_none() {
                    vcpu.cpus =
                        (placed.cpus.as_ref()).map(|c| c.iter().map(|&c| CoreId(c)).collect());
                }
            }
            continue;
        }
        if i.vcpus.is_empty() {
            let why = i.note.clone().unwrap_or_default();
            return Err(NoInterface {
                path: format!("domains[{index}]"),
                message: format!("domain `{}` has no interface: {why}", domain.name),
            });
        }
        for (j, v) in i.vcpus.iter().enumerate() {
            for task in (domain.tasks.iter_mut()).filter(|t| v.tasks.contains(&t.name)) {
                task.core = Some(CoreId(j));
            }
        }
        domain.vcpus = Some(
            (i.vcpus.iter())
                .map(|v| Vcpu {
                    name: v.name.clone(),
                    budget: v.budget,
                    period: v.period,
                    cpus: (v.cpus.as_ref()).map(|c| c.iter().map(|&c| CoreId(c)).collect()),
                })
                .collect(),
        );
    }
    Ok(system)
}
