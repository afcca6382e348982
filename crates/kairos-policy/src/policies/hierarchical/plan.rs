//! A VM system laid out for an engine: every domain's tasks in one workload (named
//! `domain/task`), every VCPU a server, and which server may run which task.

use crate::policy::Refusal;
use crate::server::ServerSpec;
use kairos_model::{GuestScheduler, Task, VmSystem, Vmm, VmmScheduler, Workload};
use std::ops::Range;

/// One domain of the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainPlan {
    pub name: String,
    pub guest: GuestScheduler,
    /// Its tasks, as indices into the plan's workload.
    pub tasks: Range<usize>,
    /// Its VCPUs, as indices into the plan's servers.
    pub servers: Range<usize>,
    /// Credit scheduler weight and cap (percent of one core, 0: none).
    pub weight: u32,
    pub cap: u32,
}

/// A VM system whose VCPUs are all explicit, ready for [`super::Hierarchical`].
#[derive(Clone, Debug, PartialEq)]
pub struct VmPlan {
    /// Every domain's tasks, domain after domain, named `domain/task`.
    pub workload: Workload,
    /// Every domain's VCPUs, domain after domain, named `domain/vcpu`.
    pub servers: Vec<ServerSpec>,
    pub domains: Vec<DomainPlan>,
    pub vmm: Vmm,
}

impl VmPlan {
    /// Lays out `system`, whose domains must have explicit VCPUs (`kairos interface` writes
    /// them for `vcpus = "auto"`); under rt-partition each VCPU must name exactly one core.
    pub fn new(system: &VmSystem) -> Result<VmPlan, Refusal> {
        let mut plan = VmPlan {
            workload: Workload {
                name: system.name.clone(),
                cores: system.cores,
                tasks: Vec::new(),
                overheads: Default::default(),
            },
            servers: Vec::new(),
            domains: Vec::new(),
            vmm: system.vmm.clone(),
        };
        for domain in &system.domains {
            let Some(vcpus) = &domain.vcpus else {
                return Err(Refusal(format!(
                    "domain `{}` has vcpus = \"auto\": compute its VCPUs first (kairos interface)",
                    domain.name
                )));
            };
            let first_task = plan.workload.tasks.len();
            let tasks = first_task..first_task + domain.tasks.len();
            let first_server = plan.servers.len();
            for (j, vcpu) in vcpus.iter().enumerate() {
                let cpus: Vec<usize> = match &vcpu.cpus {
                    Some(cpus) => cpus.iter().map(|c| c.0).collect(),
                    None => (0..system.cores).collect(),
                };
                if system.vmm.scheduler == VmmScheduler::RtPartition && cpus.len() != 1 {
                    return Err(Refusal(format!(
                        "VCPU `{}` of domain `{}` may run on {} cores: under rt-partition each \
                         VCPU names its one core (cpus = [N]), as kairos interface writes it",
                        vcpu.name,
                        domain.name,
                        cpus.len()
                    )));
                }
                let runs = bound_tasks(domain.guest, &domain.tasks, j, first_task);
                plan.servers.push(ServerSpec {
                    name: format!("{}/{}", domain.name, vcpu.name),
                    budget: vcpu.budget,
                    period: vcpu.period,
                    cpus: sorted(cpus),
                    kind: system.vmm.server,
                    tasks: runs.unwrap_or_else(|| tasks.clone().collect()),
                });
            }
            for task in &domain.tasks {
                plan.workload.tasks.push(Task {
                    name: format!("{}/{}", domain.name, task.name),
                    ..task.clone()
                });
            }
            plan.domains.push(DomainPlan {
                name: domain.name.clone(),
                guest: domain.guest,
                tasks,
                servers: first_server..plan.servers.len(),
                weight: domain.weight,
                cap: domain.cap,
            });
        }
        Ok(plan)
    }
}

/// The tasks a partitioned guest binds to its VCPU `vcpu` (by their `core`); `None` for a
/// global guest, whose VCPUs run any of its tasks.
fn bound_tasks(
    guest: GuestScheduler,
    tasks: &[Task],
    vcpu: usize,
    first: usize,
) -> Option<Vec<usize>> {
    guest.is_partitioned().then(|| {
        (tasks.iter().enumerate())
            .filter(|(_, t)| t.core.is_some_and(|c| c.0 == vcpu))
            .map(|(i, _)| first + i)
            .collect()
    })
}

fn sorted(mut cpus: Vec<usize>) -> Vec<usize> {
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}
