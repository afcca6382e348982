//! A VM system on real cores: the two levels of scheduling (the file's `[vmm]` over its
//! domains' guest schedulers) run by kairos's user-space dispatcher, the VCPUs' budgets
//! accounted and enforced by it, the guest tasks as real worker threads; simulated alongside
//! with overheads measured out of sample when asked for, side by side per domain and per VCPU.

use super::periodic::on_dispatcher;
use super::{finish, Dispatch, Extra, Request, Run, Twins};
use crate::error::refuse;
use crate::text::{human_ns, Column};
use crate::vm::prepare;
use crate::{Failure, Notify};
use kairos_model::VmSystem;
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_rt::measure::RunResult;
use kairos_sim::outages::Outages;
use kairos_sim::vm::{
    domain_metrics, simulate_vm, vcpu_metrics, vm_policy, DomainMetrics, VcpuMetrics, VmMetrics,
};
use kairos_sim::SimConfig;
use serde_json::json;

pub(super) fn run(system: &VmSystem, request: &Request, notify: Notify) -> Result<Run, Failure> {
    refuse_options(request)?;
    let plan = prepare(system).map_err(Failure::bad_input)?.plan;
    let policy = vm_policy(&plan).map_err(|r| Failure::bad_input(r.0))?;
    let specs = policy.servers();
    let charged = match request.simulate {
        true => {
            let again = vm_policy(&plan).map_err(|r| Failure::bad_input(r.0))?;
            Some(super::prior::before(
                request,
                &plan.workload,
                again,
                notify,
            )?)
        }
        false => None,
    };
    let run = on_dispatcher(request, &plan.workload, policy)?;
    let measured = Figures {
        domains: measured_domains(&plan, &run.result),
        vcpus: vcpu_metrics(&plan, &specs, run.servers),
    };
    let simulated = match &charged {
        Some(charged) => Some(simulate_like(
            &plan,
            run.result.ran_ns,
            request,
            (charged.overheads, Outages::default()),
        )?),
        None => None,
    };
    let mut extra = extra(&measured, simulated.as_ref().map(|(m, _)| m));
    if let Some(charged) = &charged {
        extra.fields.push(("simulated_overheads", charged.json()));
        extra.text.push_str(&charged.line());
    }
    let twins = match (simulated.and_then(|(_, t)| t), &charged) {
        (Some(plain), Some(charged)) => {
            let (plan, ran_ns) = (&plan, run.result.ran_ns);
            let largest = charged.overheads.fixed_at_largest();
            let plain_is_calm = largest == charged.overheads;
            let fixed = move |outages| {
                let (_, trace) = simulate_like(plan, ran_ns, request, (largest, outages))?;
                trace.ok_or_else(|| Failure::environment("the simulation kept no trace"))
            };
            Some(Twins {
                plain,
                // The two-level twin charges no path to a wind-up: VM guests have none.
                charged: None,
                fixed: Some(Box::new(fixed)),
                plain_is_calm,
            })
        }
        _ => None,
    };
    Ok(finish(plan.workload.clone(), run.result, twins, extra))
}

/// Options that belong to other kinds of files or runs.
fn refuse_options(request: &Request) -> Result<(), Failure> {
    let flags = [
        (request.policy.is_some(), "--policy"),
        (
            request.dispatch == Some(Dispatch::Kernel),
            "--dispatch kernel",
        ),
        (request.cores.is_some(), "--cores"),
        (!request.commands.is_empty(), "--command"),
        (request.tables.is_some(), "--tables"),
        (!request.overruns.is_empty(), "--overrun"),
        (request.overrun_probability > 0.0, "--overrun-probability"),
        (!request.od_margin.is_zero(), "--od-margin"),
    ];
    refuse(
        &flags,
        "does not apply to a VM file: it runs under its [vmm] and guest schedulers on kairos's user-space dispatcher",
    )
}

/// What a run, measured or simulated, shows per domain and per VCPU.
struct Figures {
    domains: Vec<DomainMetrics>,
    vcpus: Vec<VcpuMetrics>,
}

fn measured_domains(plan: &VmPlan, result: &RunResult) -> Vec<DomainMetrics> {
    domain_metrics(plan, |t| {
        let m = &result.tasks[t];
        [m.jobs_released, m.jobs_completed, m.deadline_misses]
    })
}

/// The plan simulated over the `ran_ns` the run ran, with its draws, `overheads` and
/// `outages` (none but in a stalled twin).
fn simulate_like(
    plan: &VmPlan,
    ran_ns: u64,
    request: &Request,
    (overheads, outages): (kairos_model::Overheads, Outages),
) -> Result<(Figures, Option<kairos_trace::Trace>), Failure> {
    let (execution_times, seed) = (request.execution_times, request.seed);
    let config = SimConfig {
        duration: kairos_model::Duration::from_nanos(ran_ns.max(1)),
        execution_times,
        seed,
        record_trace: true,
        overheads,
        outages,
        ..SimConfig::default()
    };
    let (outcome, VmMetrics { domains, vcpus, .. }) =
        simulate_vm(plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok((Figures { domains, vcpus }, outcome.trace))
}

fn extra(measured: &Figures, simulated: Option<&Figures>) -> Extra {
    let mut fields = vec![
        ("domains", json!(measured.domains)),
        ("vcpus", json!(measured.vcpus)),
    ];
    let mut text = table("measured", measured);
    if let Some(sim) = simulated {
        fields.push((
            "simulated",
            json!({ "domains": sim.domains, "vcpus": sim.vcpus }),
        ));
        text.push_str(&table("simulated", sim));
    }
    Extra { fields, text }
}

fn table(title: &str, f: &Figures) -> String {
    let mut out = format!("\n{title}:\n");
    let domain = Column::fitting(14, f.domains.iter().map(|d| d.domain.as_str()));
    for d in &f.domains {
        out.push_str(&format!(
            "  domain {} {:<5} released {:>6}, misses {:>5} ({:.4})\n",
            domain.left(&d.domain),
            d.guest,
            d.jobs_released,
            d.deadline_misses,
            d.miss_ratio
        ));
    }
    let vcpu = Column::fitting(18, f.vcpus.iter().map(|v| v.server.name.as_str()));
    for v in &f.vcpus {
        let s = &v.server;
        out.push_str(&format!(
            "  vcpu {} budget used {:>12}, supply {:>12}, {} exhaustion(s), {} back-to-back of {} periods\n",
            vcpu.left(&s.name),
            human_ns(s.budget_used_ns),
            human_ns(s.supply_ns),
            s.exhaustions,
            s.back_to_back,
            s.replenishments
        ));
    }
    out
}
