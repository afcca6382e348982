//! Writing a VM system back as kairos TOML (what `kairos interface --out` produces); reading
//! the output gives the same system.

use crate::mc_load::toml_string;
use crate::vm::{Domain, ServerKind, ServerPriority, VmSystem, VmmScheduler, DEFAULT_WEIGHT};
use crate::workload_write::{line, write_task};

/// The system as TOML that `check_vm_source` reads back to the same system.
pub fn to_toml(system: &VmSystem) -> String {
    let mut out = String::new();
    if let Some(name) = &system.name {
        line(&mut out, format_args!("name = {}", toml_string(name)));
    }
    line(&mut out, format_args!("cores = {}", system.cores));
    let vmm = &system.vmm;
    out.push_str("\n[vmm]\n");
    let scheduler = match vmm.scheduler {
        VmmScheduler::RtGlobal => "rt-global",
        VmmScheduler::RtPartition => "rt-partition",
        VmmScheduler::Credit => "credit",
    };
    line(&mut out, format_args!("scheduler = \"{scheduler}\""));
    let priority = match vmm.priority {
        ServerPriority::Edf => "edf",
        ServerPriority::Dm => "dm",
    };
    line(&mut out, format_args!("priority = \"{priority}\""));
    let server = match vmm.server {
        ServerKind::Deferrable => "deferrable",
        ServerKind::Periodic => "periodic",
    };
    line(&mut out, format_args!("server = \"{server}\""));
    if let Some(q) = vmm.quantum {
        line(&mut out, format_args!("quantum = \"{q}\""));
    }
    line(
        &mut out,
        format_args!("vcpu_period = \"{}\"", vmm.vcpu_period),
    );
    for domain in &system.domains {
        write_domain(&mut out, domain);
    }
    out
}

fn write_domain(out: &mut String, domain: &Domain) {
    out.push_str("\n[[domains]]\n");
    line(out, format_args!("name = {}", toml_string(&domain.name)));
    line(out, format_args!("guest = \"{}\"", domain.guest.name()));
    if domain.weight != DEFAULT_WEIGHT {
        line(out, format_args!("weight = {}", domain.weight));
    }
    if domain.cap != 0 {
        line(out, format_args!("cap = {}", domain.cap));
    }
    if domain.vcpus.is_none() {
        line(out, format_args!("vcpus = \"auto\""));
    }
    for vcpu in domain.vcpus.iter().flatten() {
        out.push_str("\n[[domains.vcpus]]\n");
        line(out, format_args!("name = {}", toml_string(&vcpu.name)));
        line(out, format_args!("budget = \"{}\"", vcpu.budget));
        line(out, format_args!("period = \"{}\"", vcpu.period));
        if let Some(cpus) = &vcpu.cpus {
            let list: Vec<String> = cpus.iter().map(|c| c.0.to_string()).collect();
            line(out, format_args!("cpus = [{}]", list.join(", ")));
        }
    }
    for task in &domain.tasks {
        write_task(out, "domains.tasks", task);
    }
}
