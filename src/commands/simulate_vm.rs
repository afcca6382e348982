//! The per-domain and per-VCPU tables of a VM system's simulation (`kairos simulate` on a VM
//! file; the demo).

use crate::report::human_ns;
use kairos_sim::vm::VmMetrics;

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
