//! A whole VM system: each domain's interface and VCPUs, then the VMM's verdict on them.
//! Domains with `vcpus = "auto"` get computed VCPUs of the system's `vcpu_period`; explicit
//! VCPUs are checked as given.

use super::edf::{edf_fits, fp_fits};
use super::gedf::gedf_fits;
use super::interface::{mpr_interface, vcpu_budgets, UniGuest};
use super::packing::{pack_servers, pack_tasks, PackedVcpu, ServerTask};
use super::supply::{Mpr, Prm};
use crate::global_edf::GlobalEdfTest;
use crate::global_fp::GlobalFpTest;
use crate::uniprocessor::fp_rta::deadline_monotonic_order;
use crate::SporadicTask;
use kairos_model::{Domain, Duration, GuestScheduler, ServerPriority, VmSystem, VmmScheduler};
use serde::Serialize;

/// Interfaces and verdicts of one system (`kairos analyze --json` on a VM file).
#[derive(Clone, Debug, Serialize)]
pub struct CsaReport {
    pub interfaces: Vec<DomainInterface>,
    pub vmm: VmmVerdict,
    /// Every guest and the VMM shown schedulable; `None` when some part is not analysed.
    pub schedulable: Option<bool>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DomainInterface {
    pub domain: String,
    pub guest: &'static str,
    /// `PRM` (one per VCPU), `MPR`, `explicit` (the file's VCPUs) or `none` (no interface).
    pub model: &'static str,
    #[serde(rename = "period_ns", serialize_with = "crate::nanos::one")]
    pub period: Duration,
    /// Total budget of the VCPUs per period.
    #[serde(rename = "budget_ns", serialize_with = "crate::nanos::one")]
    pub budget: Duration,
    /// Number of VCPUs: a count, not a time.
    pub parallelism: u64,
    pub vcpus: Vec<VcpuInterface>,
    /// The guest meets every deadline on these VCPUs; `None`: not analysed (see `note`).
    pub schedulable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct VcpuInterface {
    pub name: String,
    #[serde(rename = "budget_ns", serialize_with = "crate::nanos::one")]
    pub budget: Duration,
    #[serde(rename = "period_ns", serialize_with = "crate::nanos::one")]
    pub period: Duration,
    /// Allowed cores; `None`: every core.
    pub cpus: Option<Vec<usize>>,
    /// The guest tasks packed on it (partitioned guests), by name.
    pub tasks: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct VmmVerdict {
    pub scheduler: &'static str,
    pub priority: &'static str,
    /// `None` for the credit scheduler, which has no analysis.
    pub schedulable: Option<bool>,
    /// The test or packing that decided.
    pub test: String,
}

/// Interfaces of every domain and the VMM verdict.
pub fn analyze(system: &VmSystem) -> CsaReport {
    with_interfaces(system, interfaces(system))
}

/// Every domain's interface. They depend on the domains, the VCPU period and the host's cores
/// only, not on the VMM scheduler: a study comparing VMM schedulers computes them once.
pub fn interfaces(system: &VmSystem) -> Vec<DomainInterface> {
    let period = system.vmm.vcpu_period;
    (system.domains.iter())
        .map(|d| domain_interface(d, period, system.cores as u64))
        .collect()
}

/// The report of `system` from its domains' `interfaces` ([`interfaces`] of a system with the
/// same domains, VCPU period and cores): the VMM verdict and the whole system's.
pub fn with_interfaces(system: &VmSystem, mut interfaces: Vec<DomainInterface>) -> CsaReport {
    let vmm = vmm_verdict(system, &mut interfaces);
    let guests: Option<bool> = interfaces
        .iter()
        .map(|i| i.schedulable)
        .collect::<Option<Vec<bool>>>()
        .map(|v| v.iter().all(|&b| b));
    let schedulable = match (guests, vmm.schedulable) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    CsaReport {
        interfaces,
        vmm,
        schedulable,
    }
}

fn tasks_of(domain: &Domain) -> Vec<SporadicTask> {
    (domain.tasks.iter())
        .map(|t| SporadicTask::new(t.wcet, t.deadline, t.period))
        .collect()
}

fn domain_interface(domain: &Domain, period: Duration, cores: u64) -> DomainInterface {
    let tasks = tasks_of(domain);
    let mut out = DomainInterface {
        domain: domain.name.clone(),
        guest: domain.guest.name(),
        model: "none",
        period,
        budget: Duration::ZERO,
        parallelism: 0,
        vcpus: Vec::new(),
        schedulable: Some(false),
        note: None,
    };
    if let Some(given) = &domain.vcpus {
        explicit(domain, &tasks, given, &mut out);
        return out;
    }
    match domain.guest {
        GuestScheduler::Pedf | GuestScheduler::Pdm => {
            let guest = uni(domain.guest);
            match pack_tasks(&tasks, guest, period) {
                Ok(vcpus) => packed(domain, &vcpus, &mut out),
                Err(task) => {
                    out.note = Some(format!(
                        "task `{}` fits no VCPU of period {period}",
                        domain.tasks[task].name,
                    ))
                }
            }
        }
        GuestScheduler::Gedf => match mpr_interface(&tasks, period, cores.max(1)) {
            Some(mpr) => global(&mpr, &mut out),
            None => {
                out.note = Some(format!(
                    "no MPR of period {period} and at most {cores} VCPUs schedules the tasks",
                ))
            }
        },
        GuestScheduler::Gdm => {
            out.schedulable = None;
            out.note = Some("gDM components (Xu et al., RTAS 2014) are not analysed: give explicit VCPUs and simulate".into());
        }
    }
    out
}

fn uni(guest: GuestScheduler) -> UniGuest {
    match guest {
        GuestScheduler::Pdm | GuestScheduler::Gdm => UniGuest::Dm,
        GuestScheduler::Pedf | GuestScheduler::Gedf => UniGuest::Edf,
    }
}

fn packed(domain: &Domain, vcpus: &[PackedVcpu], out: &mut DomainInterface) {
    out.model = "PRM";
    out.schedulable = Some(true);
    out.parallelism = vcpus.len() as u64;
    out.budget = vcpus
        .iter()
        .fold(Duration::ZERO, |sum, v| sum + v.supply.budget);
    out.vcpus = (vcpus.iter().enumerate())
        .map(|(j, v)| VcpuInterface {
            name: format!("v{j}"),
            budget: v.supply.budget,
            period: v.supply.period,
            cpus: None,
            tasks: in_file_order(&v.tasks)
                .map(|k| domain.tasks[k].name.clone())
                .collect(),
        })
        .collect();
}

fn in_file_order(tasks: &[usize]) -> impl Iterator<Item = usize> {
    let mut sorted = tasks.to_vec();
    sorted.sort_unstable();
    sorted.into_iter()
}

fn global(mpr: &Mpr, out: &mut DomainInterface) {
    out.model = "MPR";
    out.schedulable = Some(true);
    out.parallelism = mpr.parallelism;
    out.budget = mpr.budget;
    out.vcpus = (vcpu_budgets(mpr).into_iter().enumerate())
        .map(|(j, budget)| VcpuInterface {
            name: format!("v{j}"),
            budget,
            period: mpr.period,
            cpus: None,
            tasks: Vec::new(),
        })
        .collect();
}

/// The file's own VCPUs: a partitioned guest's tasks on the VCPU their `core` names, each
/// VCPU a PRM; a gEDF guest's VCPUs as the MPR they form when they share one period and their
/// budgets differ by at most one unit (the split [`vcpu_budgets`] makes), else not analysed.
fn explicit(
    domain: &Domain,
    tasks: &[SporadicTask],
    given: &[kairos_model::Vcpu],
    out: &mut DomainInterface,
) {
    out.model = "explicit";
    out.parallelism = given.len() as u64;
    out.budget = given.iter().fold(Duration::ZERO, |sum, v| sum + v.budget);
    out.period = given.first().map_or(Duration::ZERO, |v| v.period);
    let on = |j: usize| -> Vec<usize> {
        (0..tasks.len())
            .filter(|&k| domain.tasks[k].core.map(|c| c.0) == Some(j))
            .collect()
    };
    out.vcpus = (given.iter().enumerate())
        .map(|(j, v)| VcpuInterface {
            name: v.name.clone(),
            budget: v.budget,
            period: v.period,
            cpus: v.cpus.as_ref().map(|c| c.iter().map(|c| c.0).collect()),
            tasks: match domain.guest.is_partitioned() {
                true => on(j)
                    .iter()
                    .map(|&k| domain.tasks[k].name.clone())
                    .collect(),
                false => Vec::new(),
            },
        })
        .collect();
    out.schedulable = match domain.guest {
        GuestScheduler::Pedf | GuestScheduler::Pdm => {
            Some(given.iter().enumerate().all(|(j, v)| {
                let set: Vec<SporadicTask> = on(j).iter().map(|&k| tasks[k]).collect();
                let supply =
                    Prm::new(v.period, v.budget).expect("checked: budget within the period");
                match uni(domain.guest) {
                    UniGuest::Edf => edf_fits(&set, &supply),
                    UniGuest::Dm => fp_fits(&set, &deadline_monotonic_order(&set), &supply),
                }
            }))
        }
        GuestScheduler::Gedf => as_mpr(given).map(|mpr| gedf_fits(tasks, &mpr)),
        GuestScheduler::Gdm => None,
    };
    if out.schedulable.is_none() {
        out.note = Some("not analysed: a gEDF guest's VCPUs must share one period with budgets within one unit; gDM has no analysis".into());
    }
}

fn as_mpr(given: &[kairos_model::Vcpu]) -> Option<Mpr> {
    let period = given.first()?.period;
    let budgets: Vec<u64> = given.iter().map(|v| v.budget.as_nanos()).collect();
    let (lo, hi) = (budgets.iter().min()?, budgets.iter().max()?);
    let same = given.iter().all(|v| v.period == period) && hi - lo <= 1;
    let total = Duration::from_nanos(budgets.iter().sum());
    same.then(|| Mpr::new(period, total, given.len() as u64))
        .flatten()
}

/// Whether some VCPU's cpus leave out a core.
fn masked(system: &VmSystem, interfaces: &[DomainInterface]) -> bool {
    (interfaces.iter().flat_map(|i| &i.vcpus)).any(|v| {
        v.cpus
            .as_ref()
            .is_some_and(|c| (0..system.cores).any(|k| !c.contains(&k)))
    })
}

fn vmm_verdict(system: &VmSystem, interfaces: &mut [DomainInterface]) -> VmmVerdict {
    let edf = system.vmm.priority == ServerPriority::Edf;
    let mut verdict = VmmVerdict {
        scheduler: match system.vmm.scheduler {
            VmmScheduler::RtGlobal => "rt-global",
            VmmScheduler::RtPartition => "rt-partition",
            VmmScheduler::Credit => "credit",
        },
        priority: if edf { "edf" } else { "dm" },
        schedulable: None,
        test: String::new(),
    };
    let servers: Vec<ServerTask> = (interfaces.iter().enumerate())
        .flat_map(|(d, i)| {
            i.vcpus.iter().map(move |v| ServerTask {
                domain: d,
                task: SporadicTask::new(v.budget, v.period, v.period),
                pinned: v.cpus.as_ref().filter(|c| c.len() == 1).map(|c| c[0]),
            })
        })
        .collect();
    let tasks: Vec<SporadicTask> = servers.iter().map(|s| s.task).collect();
    match system.vmm.scheduler {
        VmmScheduler::Credit => {
            verdict.test = "none: the credit scheduler has no analysis (simulate it)".into()
        }
        VmmScheduler::RtPartition => {
            let (cores, fits) = pack_servers(&servers, system.cores, edf);
            let mut next = cores.into_iter();
            for v in interfaces.iter_mut().flat_map(|i| i.vcpus.iter_mut()) {
                v.cpus = next.next().map(|c| vec![c]);
            }
            verdict.schedulable = Some(fits);
            verdict.test = format!(
                "best-fit packing, {} per core",
                if edf {
                    "EDF bandwidth <= 1"
                } else {
                    "DM response times"
                }
            );
        }
        VmmScheduler::RtGlobal if masked(system, interfaces) => {
            verdict.test = "not analysed: some VCPU may not run on every core, and the global \
                tests assume every VCPU may"
                .into()
        }
        VmmScheduler::RtGlobal if edf => {
            let passed = GlobalEdfTest::ALL
                .into_iter()
                .find(|t| t.run(&tasks, system.cores).schedulable);
            verdict.schedulable = Some(passed.is_some());
            verdict.test = passed.map_or("every global EDF test failed".into(), |t| {
                format!("global EDF ({})", t.cli_name())
            });
        }
        VmmScheduler::RtGlobal => {
            let order = deadline_monotonic_order(&tasks);
            let passed = GlobalFpTest::ALL
                .into_iter()
                .find(|t| t.run_with_order(&tasks, system.cores, &order).schedulable);
            verdict.schedulable = Some(passed.is_some());
            verdict.test = passed.map_or("every global DM test failed".into(), |t| {
                format!("global DM ({})", t.cli_name())
            });
        }
    }
    verdict
}
