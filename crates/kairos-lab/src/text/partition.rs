//! A core partition as made (`kairos_platform::partition`), in text.

use kairos_platform::partition::state::{cpu_list, Mechanism, State};
use kairos_platform::partition::Report;
use std::fmt::Write;

/// What was partitioned and how, the threads and interrupts that moved or stayed; `irqs`
/// when interrupts were asked to move, `hold` when the partition is undone at a signal.
pub fn partition(state: &State, report: &Report, irqs: bool, hold: bool) -> String {
    let how = match (&state.cpusets, state.mechanism) {
        (Some((rt, be)), Mechanism::CgroupV2) => format!(
            "cgroup v2: {} a cpuset partition root, {}",
            rt.display(),
            be.display()
        ),
        (Some((rt, be)), _) => format!("cgroup v1 cpusets {} and {}", rt.display(), be.display()),
        (None, _) => "affinity masks".into(),
    };
    let mut out = format!(
        "partition: RT CPUs {}, best-effort CPUs {} ({how}); {} thread(s) moved to the best-effort CPUs\n",
        cpu_list(&state.rt),
        cpu_list(&state.be),
        report.moved
    );
    if !report.not_moved.is_empty() {
        let _ = writeln!(out, "{} thread(s) stayed:", report.not_moved.len());
        for (tid, name, why) in report.not_moved.iter().take(12) {
            let _ = writeln!(out, "  {tid} {name}: {why}");
        }
        if report.not_moved.len() > 12 {
            out.push_str("  ... (--json lists them all)\n");
        }
    }
    if irqs {
        let _ = writeln!(out, "interrupts moved: {}", report.irqs_moved.len());
        for (irq, why) in &report.irqs_refused {
            let _ = writeln!(out, "  irq {irq} refused: {why}");
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if !hold {
        out.push_str("undo with: kairos partition --reset\n");
    }
    out
}
