//! Two-level simulation of virtual machines: a [`VmPlan`] (domains, their tasks and VCPUs)
//! under its VMM and guest schedulers ([`kairos_policy::policies::hierarchical`]), with the
//! figures of Xi et al. (EMSOFT 2014) per domain and per VCPU.

use crate::{simulate, Metrics, ServerMetrics, SimConfig, SimError, SimOutcome};
use kairos_model::VmmScheduler;
use kairos_policy::policies::hierarchical::{Credit, Hierarchical, VmPlan};
use kairos_policy::{Policy, Refusal, ServerSpec};
use serde::Serialize;

/// Per-domain figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DomainMetrics {
    pub domain: String,
    pub guest: &'static str,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    /// Misses over released jobs (0 when none was released).
    pub miss_ratio: f64,
}

/// Per-VCPU figures: the engine's server figures with the VCPU's parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VcpuMetrics {
    pub domain: String,
    pub budget_ns: u64,
    pub period_ns: u64,
    #[serde(flatten)]
    pub server: ServerMetrics,
}

/// What a two-level run measured (`kairos simulate --json` on a VM file).
#[derive(Clone, Debug, Serialize)]
pub struct VmMetrics {
    /// Totals and per-task figures as for any run (tasks named `domain/task`).
    #[serde(flatten)]
    pub totals: Metrics,
    pub domains: Vec<DomainMetrics>,
    pub vcpus: Vec<VcpuMetrics>,
}

/// The policy of `plan`'s `[vmm]`: RT-Xen 2.0's rt-global or rt-partition, or Xen's credit.
pub fn vm_policy(plan: &VmPlan) -> Result<Box<dyn Policy + Send>, Refusal> {
    Ok(match plan.vmm.scheduler {
        VmmScheduler::Credit => Box::new(Credit::new(plan.clone())?),
        _ => Box::new(Hierarchical::new(plan.clone())?),
    })
}

/// Simulates `plan` under its VMM and guest schedulers.
pub fn simulate_vm(plan: &VmPlan, config: &SimConfig) -> Result<(SimOutcome, VmMetrics), SimError> {
    let mut policy = vm_policy(plan).map_err(|r| SimError::Unsupported {
        policy: "vmm".to_string(),
        reason: r.0,
    })?;
    let mut outcome = simulate(&plan.workload, policy.as_mut(), config)?;
    let metrics = vm_metrics(plan, &policy.servers(), &mut outcome.metrics);
    Ok((outcome, metrics))
}

/// Each domain's figures from its tasks' `[released, completed, misses]` (by task index): the
/// same for a simulated and a measured run.
pub fn domain_metrics(plan: &VmPlan, counts: impl Fn(usize) -> [u64; 3]) -> Vec<DomainMetrics> {
    (plan.domains.iter())
        .map(|d| {
            let [released, completed, misses] = (d.tasks.clone())
                .map(&counts)
                .fold([0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
            DomainMetrics {
                domain: d.name.clone(),
                guest: d.guest.name(),
                jobs_released: released,
                jobs_completed: completed,
                deadline_misses: misses,
                miss_ratio: match released {
                    0 => 0.0,
                    n => misses as f64 / n as f64,
                },
            }
        })
        .collect()
}

/// Each VCPU's figures (`servers`, in the order of `specs`, the servers the policy declared)
/// with its domain and parameters: the same for a simulated and a measured run.
pub fn vcpu_metrics(
    plan: &VmPlan,
    specs: &[ServerSpec],
    servers: Vec<ServerMetrics>,
) -> Vec<VcpuMetrics> {
    (servers.into_iter().zip(specs).enumerate())
        .map(|(s, (server, spec))| VcpuMetrics {
            domain: (plan.domains.iter())
                .find(|d| d.servers.contains(&s))
                .map_or_else(String::new, |d| d.name.clone()),
            budget_ns: spec.budget.as_nanos(),
            period_ns: spec.period.as_nanos(),
            server,
        })
        .collect()
}

/// Splits a run's figures by domain and VCPU (the per-VCPU figures move out of `metrics`);
/// `specs` are the servers the policy declared (under credit: the 30 ms accounting period as
/// both budget and period, so only supply and budget used speak of the VCPU).
fn vm_metrics(plan: &VmPlan, specs: &[ServerSpec], metrics: &mut Metrics) -> VmMetrics {
    let servers = std::mem::take(&mut metrics.servers);
    let domains = domain_metrics(plan, |t| {
        let m = &metrics.tasks[t];
        [m.jobs_released, m.jobs_completed, m.deadline_misses]
    });
    let vcpus = vcpu_metrics(plan, specs, servers);
    VmMetrics {
        totals: metrics.clone(),
        domains,
        vcpus,
    }
}
