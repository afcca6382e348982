//! The rules `kairos check` applies to a decoded VM system (docs/vm.md lists them).

use crate::decode::SourceMap;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::validate::{overload, task_rules};
use crate::vm::{Domain, VmSystem, VmmScheduler, DEFAULT_WEIGHT};
use std::collections::HashMap;

pub(super) fn apply(system: &VmSystem, map: &SourceMap, out: &mut Diagnostics) {
    let at = |path: String| {
        let position = map.get(&path);
        move |d: Diagnostic| d.at_path(path).at_position(position)
    };
    if system.cores == 0 {
        out.push(at("cores".into())(
            Diagnostic::error("a host needs at least one core").with_hint("set cores = 1 or more"),
        ));
    }
    if system.domains.is_empty() {
        out.push(at("domains".into())(
            Diagnostic::error("the system has no domains").with_hint("add a [[domains]] table"),
        ));
    }
    unique(
        system.domains.iter().map(|d| d.name.as_str()),
        "domains",
        "domain",
        map,
        out,
    );
    for (d, domain) in system.domains.iter().enumerate() {
        domain_rules(system, domain, &format!("domains[{d}]"), map, out);
    }
    if system.vmm.quantum.is_some() && system.vmm.scheduler == VmmScheduler::Credit {
        out.push(at("vmm.quantum".into())(
            Diagnostic::warning(
                "the credit scheduler has its own 10 ms tick and 30 ms slice: quantum is ignored",
            )
            .with_hint("remove quantum, or use rt-global or rt-partition"),
        ));
    }
    vcpu_overload(system, map, out);
    task_overload(system, map, out);
}

fn domain_rules(
    system: &VmSystem,
    domain: &Domain,
    path: &str,
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let at = |key: &str| {
        let p = format!("{path}.{key}");
        let position = map.get(&p).or_else(|| map.get(&format!("{path}.name")));
        move |d: Diagnostic| d.at_path(p).at_position(position)
    };
    if domain.tasks.is_empty() {
        out.push(at("tasks")(
            Diagnostic::error(format!("domain `{}` has no tasks", domain.name))
                .with_hint("add a [[domains.tasks]] table with name, wcet and period"),
        ));
    }
    for (i, task) in domain.tasks.iter().enumerate() {
        task_rules(None, task, &format!("{path}.tasks[{i}]"), map, out);
    }
    let tasks_path = format!("{path}.tasks");
    unique(
        domain.tasks.iter().map(|t| t.name.as_str()),
        &tasks_path,
        "task",
        map,
        out,
    );
    if let Some(vcpus) = &domain.vcpus {
        vcpu_rules(system, domain, path, map, out);
        let vcpus_path = format!("{path}.vcpus");
        unique(
            vcpus.iter().map(|v| v.name.as_str()),
            &vcpus_path,
            "VCPU",
            map,
            out,
        );
    }
    task_placement(domain, path, map, out);
    let credit = system.vmm.scheduler == VmmScheduler::Credit;
    if !credit && (domain.weight != DEFAULT_WEIGHT || domain.cap != 0) {
        let key = if domain.cap != 0 { "cap" } else { "weight" };
        out.push(at(key)(
            Diagnostic::warning("only the credit scheduler reads weight and cap")
                .with_hint("set [vmm] scheduler = \"credit\", or remove them"),
        ));
    }
    if credit && domain.weight == 0 {
        out.push(at("weight")(
            Diagnostic::error("a credit weight of 0 gives the domain no credit")
                .with_hint("weights are 1 to 65535 (Xen's default 256)"),
        ));
    }
}

fn vcpu_rules(
    system: &VmSystem,
    domain: &Domain,
    path: &str,
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let vcpus = domain.vcpus.as_deref().unwrap_or_default();
    if vcpus.is_empty() {
        let p = format!("{path}.vcpus");
        out.push(
            Diagnostic::error(format!("domain `{}` has no VCPUs", domain.name))
                .at_position(map.get(&p))
                .at_path(p)
                .with_hint("give [[domains.vcpus]] tables, or vcpus = \"auto\""),
        );
    }
    for (j, vcpu) in vcpus.iter().enumerate() {
        let p = format!("{path}.vcpus[{j}]");
        let budget = format!("{p}.budget");
        if vcpu.budget > vcpu.period {
            out.push(
                Diagnostic::error(format!(
                    "budget {} exceeds the period {}",
                    vcpu.budget, vcpu.period
                ))
                .at_position(map.get(&budget))
                .at_path(budget)
                .with_hint("a VCPU runs on one core at a time: its budget is at most its period"),
            );
        }
        let cpus_path = format!("{p}.cpus");
        match vcpu.cpus.as_deref() {
            Some([]) => out.push(
                Diagnostic::error("an empty cpu mask: the VCPU could never run")
                    .at_position(map.get(&cpus_path))
                    .at_path(cpus_path)
                    .with_hint("list at least one core, or remove cpus (every core)"),
            ),
            Some(cpus) => {
                for (i, cpu) in cpus.iter().enumerate().filter(|(_, c)| c.0 >= system.cores) {
                    let item = format!("{cpus_path}[{i}]");
                    out.push(
                        Diagnostic::error(format!(
                            "core {} does not exist: the host has {} core(s)",
                            cpu.0, system.cores
                        ))
                        .at_position(map.get(&item).or(map.get(&cpus_path)))
                        .at_path(item)
                        .with_hint(format!(
                            "cores are numbered 0 to {}",
                            system.cores.saturating_sub(1)
                        )),
                    );
                }
                if system.vmm.scheduler == VmmScheduler::RtPartition && cpus.len() > 1 {
                    out.push(
                        Diagnostic::error(format!(
                            "{} cores under rt-partition, which runs each VCPU on one core",
                            cpus.len()
                        ))
                        .at_position(map.get(&cpus_path))
                        .at_path(cpus_path)
                        .with_hint("name one core (cpus = [N]), or remove cpus: kairos packs the VCPU on a core"),
                    );
                }
            }
            None => {}
        }
    }
}

/// A partitioned guest's task names its VCPU with `core` when the VCPUs are explicit; with
/// computed VCPUs kairos places it, and a global guest has no placement to give.
fn task_placement(domain: &Domain, path: &str, map: &SourceMap, out: &mut Diagnostics) {
    let explicit = domain.vcpus.as_ref().map(Vec::len);
    for (i, task) in domain.tasks.iter().enumerate() {
        let p = format!("{path}.tasks[{i}].core");
        let position = map.get(&p).or(map.get(&format!("{path}.tasks[{i}].name")));
        let diagnostic = match (domain.guest.is_partitioned(), explicit, task.core) {
            (true, Some(n), Some(core)) if core.0 >= n => Diagnostic::error(format!(
                "VCPU {} does not exist: domain `{}` has {n} VCPU(s)",
                core.0, domain.name
            ))
            .with_hint(format!(
                "a partitioned guest's task names its VCPU by index, 0 to {}",
                n - 1
            )),
            (true, Some(_), None) => Diagnostic::error(format!(
                "task `{}` of a partitioned guest with explicit VCPUs needs its VCPU",
                task.name
            ))
            .with_hint(
                "set core = the index of its VCPU in [[domains.vcpus]], or use vcpus = \"auto\"",
            ),
            (true, None, Some(_)) => Diagnostic::warning(
                "ignored: with vcpus = \"auto\" kairos packs the tasks on the VCPUs it computes",
            )
            .with_hint("remove core, or give explicit [[domains.vcpus]]"),
            (false, _, Some(_)) => Diagnostic::warning(format!(
                "ignored: a {} guest runs any task on any of its VCPUs",
                domain.guest.name()
            ))
            .with_hint("remove core, or use a partitioned guest (pedf, pdm)"),
            _ => continue,
        };
        out.push(diagnostic.at_position(position).at_path(p));
    }
}

/// Guest tasks asking for more than the host's cores, as a periodic workload's are warned: a
/// domain that alone does at its tasks, else the whole system at its domains.
fn task_overload(system: &VmSystem, map: &SourceMap, out: &mut Diagnostics) {
    let utilization = |d: &Domain| d.tasks.iter().map(|t| t.utilization()).sum::<f64>();
    let mut warned = false;
    for (i, domain) in system.domains.iter().enumerate() {
        let whose = format!("domain `{}`'s", domain.name);
        if let Some(warning) = overload(&whose, utilization(domain), system.cores) {
            let path = format!("domains[{i}].tasks");
            let position = map.get(&path).or(map.get(&format!("domains[{i}].name")));
            out.push(warning.at_position(position).at_path(path));
            warned = true;
        }
    }
    let total = system.domains.iter().map(utilization).sum();
    match overload("total", total, system.cores) {
        Some(warning) if !warned => {
            out.push(warning.at_position(map.get("domains")).at_path("domains"))
        }
        _ => {}
    }
}

/// Explicit VCPUs asking for more than the host has: deadlines will be missed.
fn vcpu_overload(system: &VmSystem, map: &SourceMap, out: &mut Diagnostics) {
    let total: f64 = (system.domains.iter())
        .filter_map(|d| d.vcpus.as_ref())
        .flatten()
        .map(|v| v.bandwidth())
        .sum();
    if system.cores > 0 && total > system.cores as f64 + 1e-9 {
        out.push(
            Diagnostic::warning(format!(
                "the VCPUs' bandwidth {total:.3} exceeds the {} core(s): some VCPU will not get its budget",
                system.cores
            ))
            .at_position(map.get("domains"))
            .at_path("domains")
            .with_hint("RTDS would refuse it; kairos simulates the overload"),
        );
    }
}

fn unique<'a>(
    names: impl Iterator<Item = &'a str>,
    list: &str,
    what: &str,
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (i, name) in names.enumerate() {
        match first_seen.get(name) {
            Some(first) => {
                let path = format!("{list}[{i}].name");
                out.push(
                    Diagnostic::error(format!(
                        "duplicate {what} name `{name}` (also {list}[{first}])"
                    ))
                    .at_position(map.get(&path).or(map.get(list)))
                    .at_path(path)
                    .with_hint("names must be unique: reports and traces refer to them by name"),
                );
            }
            None => {
                first_seen.insert(name, i);
            }
        }
    }
}
