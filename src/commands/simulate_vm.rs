//! `kairos simulate` on a VM file: the two-level simulation of RT-Xen 2.0's schedulers (the
//! file's `[vmm]` over its domains' guest schedulers), with figures per domain and per VCPU.
//! Domains with `vcpus = "auto"` run on the VCPUs the compositional analysis computes (what
//! `kairos interface` writes).

use super::simulate::{
    execution_model, gantt_view, refuse, resolve_duration, write_trace_files, SimulateArgs,
    TraceOutputs,
};
use super::vm::{prepare, Prepared};
use crate::args::{CommandResult, Failure};
use crate::report::{human_ns, metrics_table};
use kairos_model::VmSystem;
use kairos_sim::vm::{simulate_vm, VmMetrics};
use kairos_sim::SimConfig;

pub fn run(args: &SimulateArgs, system: &VmSystem) -> CommandResult {
    refuse_options(args)?;
    let Prepared { system, plan, .. } = prepare(system).map_err(Failure::bad_input)?;
    let config = SimConfig {
        duration: resolve_duration(&plan.workload, args.duration)?,
        execution_times: execution_model(&args.execution_times),
        seed: args.seed,
        abort_on_miss: args.abort_on_miss,
        record_trace: args.gantt.is_some() || args.trace.is_some(),
        overheads: Default::default(),
    };
    let (outcome, metrics) =
        simulate_vm(&plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    if args.json {
        let json = serde_json::to_string_pretty(&metrics).expect("metrics serialize");
        println!("{json}");
    } else {
        print!("{}", metrics_table(&plan.workload, &metrics.totals));
        print!("\n{}", vm_tables(&metrics));
    }
    let outputs = TraceOutputs {
        gantt: args.gantt.as_ref(),
        view: gantt_view(args.gantt_window, args.gantt_by),
        trace: args.trace.as_ref(),
    };
    let title = format!(
        "{} under {}",
        system.name.as_deref().unwrap_or("system"),
        super::vm::vmm_name(&system)
    );
    for written in write_trace_files(outcome.trace.as_ref(), title, &outputs)? {
        eprintln!("wrote {written}");
    }
    let missed = metrics.totals.deadline_misses > 0;
    Ok(if args.fail_on_miss && missed {
        crate::exit::NO
    } else {
        0
    })
}

/// Options that belong to other kinds of files.
fn refuse_options(args: &SimulateArgs) -> Result<(), Failure> {
    let flags = [
        (args.policy.is_some(), "--policy"),
        (args.cores.is_some(), "--cores"),
        (args.priorities != "auto", "--priorities"),
        (args.overheads.is_some(), "--overheads"),
        (args.overhead_scheduling.is_some(), "--overhead-scheduling"),
        (
            args.overhead_context_switch.is_some(),
            "--overhead-context-switch",
        ),
        (args.overhead_migration.is_some(), "--overhead-migration"),
        (args.tables.is_some(), "--tables"),
        (!args.overrun.is_empty(), "--overrun"),
        (args.overrun_probability > 0.0, "--overrun-probability"),
    ];
    refuse(
        &flags,
        "does not apply to a VM file: its schedulers and cores are the file's [vmm] and cores",
    )
}

/// The per-domain and per-VCPU tables of the text report.
pub(crate) fn vm_tables(m: &VmMetrics) -> String {
    let mut out = format!(
        "{:<16} {:<6} {:>9} {:>10} {:>7} {:>10}\n",
        "domain", "guest", "released", "completed", "misses", "miss ratio"
    );
    for d in &m.domains {
        out.push_str(&format!(
            "{:<16} {:<6} {:>9} {:>10} {:>7} {:>10.4}\n",
            d.domain, d.guest, d.jobs_released, d.jobs_completed, d.deadline_misses, d.miss_ratio
        ));
    }
    out.push_str(&format!(
        "\n{:<20} {:>16} {:>8} {:>12} {:>11} {:>12} {:>12}\n",
        "vcpu", "budget/period", "periods", "back-to-back", "exhaustions", "budget used", "supply"
    ));
    for v in &m.vcpus {
        let s = &v.server;
        out.push_str(&format!(
            "{:<20} {:>16} {:>8} {:>12} {:>11} {:>12} {:>12}\n",
            s.name,
            format!("{}/{}", human_ns(v.budget_ns), human_ns(v.period_ns)),
            s.replenishments,
            s.back_to_back,
            s.exhaustions,
            human_ns(s.budget_used_ns),
            human_ns(s.supply_ns)
        ));
    }
    out
}
