//! The demo's VM system (`examples/vm/two-domains.toml`, embedded): two domains on RT-Xen
//! 2.0's rt-global scheduler, their interfaces computed by the compositional analysis (the
//! least VCPU budgets the guests' tests allow), then the two-level schedule simulated on those
//! VCPUs, with a Gantt chart of its first 200 ms.

use super::{Demo, Figures};
use crate::simulate::resolve_duration;
use crate::text::{vm_analysis as text, vm_tables};
use crate::vm::{prepare, vmm_name, Prepared};
use crate::Failure;
use kairos_model::vm_load::check_vm_source;
use kairos_model::{Format, Instant};
use kairos_sim::vm::simulate_vm;
use kairos_sim::{ExecutionTimeModel, SimConfig};
use kairos_trace::gantt::{render_svg, GanttOptions};

/// The demo's VM system, also shipped as `examples/vm/two-domains.toml`.
pub const DEMO_VM_SYSTEM: &str = include_str!("../../../../examples/vm/two-domains.toml");

/// How much of the two-level schedule the chart shows.
const CHART_NS: u64 = 200_000_000;

pub fn run(demo: &mut Demo) -> Result<(), Failure> {
    demo.stage(
        "vm",
        "two domains on RT-Xen's rt-global (examples/vm/two-domains.toml): interfaces, then the two-level schedule",
    );
    let system = check_vm_source(DEMO_VM_SYSTEM, Format::Toml)
        .system
        .ok_or_else(|| Failure::bad_input("the embedded VM system is invalid"))?;
    let Prepared {
        report,
        system,
        plan,
    } = prepare(&system).map_err(Failure::bad_input)?;
    demo.say_block(&text(&system, &report));
    let config = SimConfig {
        duration: resolve_duration(&plan.workload, None, demo.notify)?,
        execution_times: ExecutionTimeModel::Wcet,
        record_trace: true,
        ..SimConfig::default()
    };
    let (outcome, metrics) =
        simulate_vm(&plan, &config).map_err(|e| Failure::bad_input(e.to_string()))?;
    demo.say(format!(
        "  simulated {} on the interfaces' VCPUs:",
        config.duration
    ));
    demo.say_block(&vm_tables(&metrics));
    if let Some(trace) = &outcome.trace {
        let options = GanttOptions {
            window: Some((Instant::ZERO, Instant::from_nanos(CHART_NS))),
            title: Some(format!("two-domains under {}", vmm_name(&system))),
            ..GanttOptions::default()
        };
        let path = demo.write("gantt-vm.svg", render_svg(trace, &options))?;
        demo.file(&path, "VCPUs and the guests' tasks, first 200 ms");
    }
    demo.write("vm-system.toml", DEMO_VM_SYSTEM)?;
    let figures = Figures::Vm {
        interfaces: report,
        simulation: metrics,
    };
    demo.record("vm", figures);
    Ok(())
}
