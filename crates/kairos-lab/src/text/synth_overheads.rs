//! What `kairos synth --overheads` charged, in text: the charges, the slot guard and every
//! task's WCETs before and after it (`kairos_analysis::overheads::tables`).

use super::{charged, human_ns};
use crate::synth::TableCharges;
use kairos_model::Duration;

/// The charges in one line, the guard in one, then one line per task.
pub fn synth_overheads(c: &TableCharges) -> String {
    let g = &c.slot_guard;
    let mut out = format!(
        "overheads from the given profile at {}: {}\n",
        c.quantile.name(),
        charged(&c.charges)
    );
    out.push_str(&format!(
        "slot guard {} of every {} slot ({} usable), mode change {}\n",
        human(g.guard),
        human(g.slot),
        human_ns(c.usable_ns),
        human(g.mode_change),
    ));
    if !c.tasks.is_empty() {
        out.push_str("  task: WCET per level -> with the guard (whole slots)\n");
    }
    for t in &c.tasks {
        out.push_str(&format!(
            "    {} {} -> {}\n",
            t.task,
            list(&t.wcet),
            list(&t.inflated_wcet)
        ));
    }
    out
}

fn human(d: Duration) -> String {
    human_ns(d.as_nanos())
}

fn list(durations: &[Duration]) -> String {
    let each: Vec<String> = durations.iter().map(|&d| human(d)).collect();
    each.join(" ")
}
