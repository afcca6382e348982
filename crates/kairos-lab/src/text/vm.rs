//! VM systems in text: the compositional analysis (interfaces, VCPUs, the VMM verdict) and the
//! per-domain and per-VCPU tables of a simulation.

use super::{human_ns, Column};
use crate::vm::vmm_name;
use kairos_analysis::csa::CsaReport;
use kairos_model::VmSystem;
use kairos_sim::vm::VmMetrics;

/// The per-domain and per-VCPU tables of the text report.
pub fn vm_tables(m: &VmMetrics) -> String {
    let domain = Column::fitting(16, m.domains.iter().map(|d| d.domain.as_str()));
    let mut out = format!(
        "{} {:<6} {:>9} {:>10} {:>7} {:>10}\n",
        domain.left("domain"),
        "guest",
        "released",
        "completed",
        "misses",
        "miss ratio"
    );
    for d in &m.domains {
        out.push_str(&format!(
            "{} {:<6} {:>9} {:>10} {:>7} {:>10.4}\n",
            domain.left(&d.domain),
            d.guest,
            d.jobs_released,
            d.jobs_completed,
            d.deadline_misses,
            d.miss_ratio
        ));
    }
    let vcpu = Column::fitting(20, m.vcpus.iter().map(|v| v.server.name.as_str()));
    out.push_str(&format!(
        "\n{} {:>16} {:>8} {:>12} {:>11} {:>12} {:>12}\n",
        vcpu.left("vcpu"),
        "budget/period",
        "periods",
        "back-to-back",
        "exhaustions",
        "budget used",
        "supply"
    ));
    for v in &m.vcpus {
        let s = &v.server;
        out.push_str(&format!(
            "{} {:>16} {:>8} {:>12} {:>11} {:>12} {:>12}\n",
            vcpu.left(&s.name),
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

/// `kairos analyze` on a VM system, in text.
pub fn analysis(system: &VmSystem, report: &CsaReport) -> String {
    let mut out = format!(
        "{}: {} domain(s) on {} core(s), {}\n",
        system.name.as_deref().unwrap_or("system"),
        system.domains.len(),
        system.cores,
        vmm_name(system)
    );
    for i in &report.interfaces {
        let verdict = match i.schedulable {
            Some(true) => "schedulable",
            Some(false) => "NOT schedulable",
            None => "not analysed",
        };
        out.push_str(&format!(
            "domain {} ({}): {} interface, {} VCPU(s), budget {} every {} ({:.3} cores): {verdict}\n",
            i.domain,
            i.guest,
            i.model,
            i.parallelism,
            i.budget,
            i.period,
            i.budget.as_nanos() as f64 / i.period.as_nanos().max(1) as f64,
        ));
        for v in &i.vcpus {
            let cpus = v
                .cpus
                .as_ref()
                .map_or("any core".to_string(), |c| format!("cores {c:?}"));
            let tasks = match v.tasks.is_empty() {
                true => String::new(),
                false => format!(", tasks {}", v.tasks.join(" ")),
            };
            out.push_str(&format!(
                "  {}: {} / {} on {cpus}{tasks}\n",
                v.name, v.budget, v.period
            ));
        }
        if let Some(note) = &i.note {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    let vmm = match report.vmm.schedulable {
        Some(true) => "schedulable",
        Some(false) => "NOT schedulable",
        None => "not analysed",
    };
    out.push_str(&format!(
        "VMM {} {}: {vmm} ({})\n",
        report.vmm.scheduler, report.vmm.priority, report.vmm.test
    ));
    let whole = match report.schedulable {
        Some(true) => "schedulable",
        Some(false) => "NOT schedulable",
        None => "not shown (some part is not analysed)",
    };
    out.push_str(&format!("system: {whole}\n"));
    out
}
