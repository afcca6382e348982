//! The overhead-aware half of an analysis in text: the charges, and each task's cost before and
//! after them under each placement the tests assume.

use super::human_ns;
use crate::analyze::overheads::{OverheadAware, PlacementInflation};
use crate::vm::WithOverheads;
use kairos_analysis::overheads::{Charges, Quantile};
use kairos_model::VmSystem;

/// The charges in one line, then one table per placement.
pub fn charges(o: &OverheadAware) -> String {
    let mut out = charges_line(o.source, o.quantile, &o.charges);
    for p in &o.inflation {
        out.push_str(&placement(p));
    }
    out
}

/// The overhead-aware analysis of a VM system, after its ideal one.
pub fn vm_overheads(system: &VmSystem, aware: &WithOverheads) -> String {
    format!(
        "\n{}{}",
        charges_line(aware.source, aware.quantile, &aware.charges),
        super::vm_analysis(system, &aware.report)
    )
}

/// `overheads from SOURCE at Q: release ..., ...`.
fn charges_line(source: &str, quantile: Quantile, c: &Charges) -> String {
    let source = match source {
        "profile" => "the given profile",
        _ => "the workload's [overheads]",
    };
    format!(
        "overheads from {source} at {}: {}\n",
        quantile.name(),
        charged(c)
    )
}

/// Each role's charge: "release 60.000us, release latency 250.000us, ...".
pub fn charged(c: &Charges) -> String {
    let costs = [
        ("release", c.release),
        ("release latency", c.release_latency),
        ("scheduling", c.scheduling),
        ("context switch", c.context_switch),
        ("migration", c.migration),
        ("doorbell", c.ipi),
        ("part callback", c.part_callback),
    ]
    .map(|(name, d)| format!("{name} {}", human_ns(d.as_nanos())));
    let mut line = costs.join(", ");
    if let Some(t) = c.rt_throttle {
        line.push_str(&format!(
            "; real-time throttling {} of every {} (a core keeps {:.2} for real-time work)",
            human_ns(t.runtime.as_nanos()),
            human_ns(t.period.as_nanos()),
            t.share()
        ));
    }
    if !c.execution_loss.is_zero() {
        line.push_str(&format!(
            "; execution loss {:.2} % (a job of work C holds its core C / {:.4})",
            f64::from(c.execution_loss.ppm()) / 1e4,
            c.execution_loss.kept()
        ));
    }
    line
}

fn placement(p: &PlacementInflation) -> String {
    let name = serde_json::to_value(p.placement).expect("a placement serializes");
    let name = match p.test {
        Some(test) => format!("{} ({test})", name.as_str().unwrap_or("?")),
        None => name.as_str().unwrap_or("?").to_string(),
    };
    if let Some(overload) = &p.overload {
        return format!("  {name}: {overload}\n");
    }
    let mut out = format!(
        "  {name} (a core keeps {:.4} for its jobs): task C -> C' (D', T')\n",
        p.scale.unwrap_or(1.0)
    );
    for t in &p.tasks {
        out.push_str(&format!(
            "    {} {} -> {} ({}, {})\n",
            t.task,
            human_ns(t.wcet.as_nanos()),
            human_ns(t.inflated_wcet.as_nanos()),
            human_ns(t.deadline.as_nanos()),
            human_ns(t.period.as_nanos()),
        ));
    }
    out
}
