//! Decoding a VM system's tree; every field problem is reported, with its position.

use super::VM_TOP_LEVEL_KEYS;
use crate::decode::{Decoder, ZeroAllowed, MAX_CORES};
use crate::diagnostics::Diagnostic;
use crate::document::{Entry, Node, Value};
use crate::imprecise_load::PART_KEYS;
use crate::load::decode_task;
use crate::time::Duration;
use crate::vm::{
    Domain, GuestScheduler, ServerKind, ServerPriority, Vcpu, VmSystem, Vmm, VmmScheduler,
    DEFAULT_VCPU_PERIOD, DEFAULT_WEIGHT,
};
use crate::workload::{CoreId, Task};

const VMM_KEYS: [&str; 5] = ["scheduler", "priority", "server", "quantum", "vcpu_period"];
const DOMAIN_KEYS: [&str; 6] = ["name", "guest", "tasks", "vcpus", "weight", "cap"];
const VCPU_KEYS: [&str; 4] = ["name", "budget", "period", "cpus"];

/// The whole system, or `None` when some part did not decode (each problem reported).
pub(super) fn system(decoder: &mut Decoder, root: &Node) -> Option<VmSystem> {
    let entries = decoder.table(root, "")?;
    decoder.reject_unknown_keys(entries, &VM_TOP_LEVEL_KEYS, "");
    let name = decoder
        .field(entries, "name", "")
        .and_then(|n| decoder.name(n, "name"));
    let cores = decoder
        .required(
            entries,
            "cores",
            "",
            root.position,
            "say how many cores the host gives the guests: cores = 5",
        )
        .and_then(|n| decoder.count(n, "cores", MAX_CORES as u64));
    let vmm = match decoder.field(entries, "vmm", "") {
        Some(node) => vmm(decoder, node),
        None => Some(default_vmm()),
    };
    let domains = domains(decoder, entries, root);
    Some(VmSystem {
        name,
        cores: usize::try_from(cores?).ok()?,
        vmm: vmm?,
        domains: domains?,
    })
}

fn default_vmm() -> Vmm {
    Vmm {
        scheduler: VmmScheduler::RtGlobal,
        priority: ServerPriority::Edf,
        server: ServerKind::Deferrable,
        quantum: None,
        vcpu_period: DEFAULT_VCPU_PERIOD,
    }
}

fn vmm(decoder: &mut Decoder, node: &Node) -> Option<Vmm> {
    let entries = decoder.table(node, "vmm")?;
    decoder.reject_unknown_keys(entries, &VMM_KEYS, "vmm");
    let d = default_vmm();
    let scheduler = choice(
        decoder,
        entries,
        "vmm",
        "scheduler",
        d.scheduler,
        &[
            ("rt-global", VmmScheduler::RtGlobal),
            ("rt-partition", VmmScheduler::RtPartition),
            ("credit", VmmScheduler::Credit),
        ],
    );
    let priority = choice(
        decoder,
        entries,
        "vmm",
        "priority",
        d.priority,
        &[("edf", ServerPriority::Edf), ("dm", ServerPriority::Dm)],
    );
    let server = choice(
        decoder,
        entries,
        "vmm",
        "server",
        d.server,
        &[
            ("deferrable", ServerKind::Deferrable),
            ("periodic", ServerKind::Periodic),
        ],
    );
    let quantum = optional_duration(decoder, entries, "vmm", "quantum");
    let period = optional_duration(decoder, entries, "vmm", "vcpu_period");
    Some(Vmm {
        scheduler: scheduler?,
        priority: priority?,
        server: server?,
        quantum: quantum?,
        vcpu_period: period?.unwrap_or(d.vcpu_period),
    })
}

/// A string naming one of `options`; `default` when absent.
pub(crate) fn choice<T: Copy>(
    decoder: &mut Decoder,
    entries: &[Entry],
    path: &str,
    key: &str,
    default: T,
    options: &[(&str, T)],
) -> Option<T> {
    let Some(node) = decoder.field(entries, key, path) else {
        return Some(default);
    };
    let at = format!("{path}.{key}");
    let text = decoder.string(node, &at)?;
    if let Some((_, value)) = options.iter().find(|(name, _)| *name == text) {
        return Some(*value);
    }
    let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    decoder.diagnostics.push(
        Diagnostic::error(format!("unknown {key} {text:?}"))
            .at_path(at)
            .at_position(node.position)
            .with_hint(format!("{key} is one of {}", names.join(", "))),
    );
    None
}

pub(crate) fn optional_duration(
    decoder: &mut Decoder,
    entries: &[Entry],
    path: &str,
    key: &str,
) -> Option<Option<Duration>> {
    match decoder.field(entries, key, path) {
        Some(node) => decoder
            .duration(node, &format!("{path}.{key}"), ZeroAllowed::No)
            .map(Some),
        None => Some(None),
    }
}

fn domains(decoder: &mut Decoder, entries: &[Entry], root: &Node) -> Option<Vec<Domain>> {
    let hint = "add a [[domains]] table with a name, a guest scheduler and [[domains.tasks]]";
    let node = decoder.required(entries, "domains", "", root.position, hint)?;
    let items = decoder.array_of_tables(node, "domains", hint)?;
    let decoded: Vec<Option<Domain>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| domain(decoder, item, &format!("domains[{i}]")))
        .collect();
    decoded.into_iter().collect()
}

fn domain(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Domain> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &DOMAIN_KEYS, path);
    let hint = "every domain needs a name, a guest scheduler and [[domains.tasks]]";
    let name = decoder
        .required(entries, "name", path, node.position, hint)
        .and_then(|n| decoder.name(n, &format!("{path}.name")));
    let guest = decoder
        .required(entries, "guest", path, node.position, hint)
        .and_then(|_| {
            choice(
                decoder,
                entries,
                path,
                "guest",
                GuestScheduler::Gedf,
                &[
                    ("gedf", GuestScheduler::Gedf),
                    ("pedf", GuestScheduler::Pedf),
                    ("gdm", GuestScheduler::Gdm),
                    ("pdm", GuestScheduler::Pdm),
                ],
            )
        });
    let tasks = domain_tasks(decoder, entries, node, path);
    let vcpus = vcpus(decoder, entries, path);
    let weight = small_count(decoder, entries, path, "weight", 65535);
    let cap = small_count(decoder, entries, path, "cap", 100 * MAX_CORES as u64);
    Some(Domain {
        name: name?,
        guest: guest?,
        tasks: tasks?,
        vcpus: vcpus?,
        weight: weight?.unwrap_or(DEFAULT_WEIGHT),
        cap: cap?.unwrap_or(0),
    })
}

fn small_count(
    decoder: &mut Decoder,
    entries: &[Entry],
    path: &str,
    key: &str,
    max: u64,
) -> Option<Option<u32>> {
    match decoder.field(entries, key, path) {
        Some(node) => decoder
            .count(node, &format!("{path}.{key}"), max)
            .map(|v| Some(v as u32)),
        None => Some(None),
    }
}

fn domain_tasks(
    decoder: &mut Decoder,
    entries: &[Entry],
    node: &Node,
    path: &str,
) -> Option<Vec<Task>> {
    let hint = "add at least one [[domains.tasks]] table with name, wcet and period";
    let list = decoder.required(entries, "tasks", path, node.position, hint)?;
    let items = decoder.array_of_tables(list, &format!("{path}.tasks"), hint)?;
    let decoded: Vec<Option<Task>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{path}.tasks[{i}]");
            refuse_parts(decoder, item, &at);
            decode_task(decoder, item, &at)
        })
        .collect();
    decoded.into_iter().collect()
}

/// Guests schedule plain tasks: imprecise parts have no meaning inside a domain.
fn refuse_parts(decoder: &mut Decoder, node: &Node, path: &str) {
    let Value::Table(entries) = &node.value else {
        return;
    };
    for entry in entries
        .iter()
        .filter(|e| PART_KEYS.contains(&e.key.as_str()))
    {
        decoder.diagnostics.push(
            Diagnostic::error(format!("a guest task has no `{}` part", entry.key))
                .at_path(format!("{path}.{}", entry.key))
                .at_position(entry.key_position.or(entry.node.position))
                .with_hint("guest tasks are plain periodic or sporadic tasks: give wcet"),
        );
    }
}

/// `vcpus = "auto"` (or absent) is `None`; otherwise each `[[domains.vcpus]]` table.
fn vcpus(decoder: &mut Decoder, entries: &[Entry], path: &str) -> Option<Option<Vec<Vcpu>>> {
    let Some(node) = decoder.field(entries, "vcpus", path) else {
        return Some(None);
    };
    let at = format!("{path}.vcpus");
    let hint = "vcpus = \"auto\" (computed by kairos interface) or [[domains.vcpus]] tables with budget and period";
    match &node.value {
        Value::String(s) if s == "auto" => return Some(None),
        Value::String(s) => {
            decoder.diagnostics.push(
                Diagnostic::error(format!("unknown vcpus {s:?}"))
                    .at_path(at)
                    .at_position(node.position)
                    .with_hint(hint),
            );
            return None;
        }
        _ => {}
    }
    let items = decoder.array_of_tables(node, &at, hint)?;
    let decoded: Vec<Option<Vcpu>> = items
        .iter()
        .enumerate()
        .map(|(j, item)| vcpu(decoder, item, &format!("{at}[{j}]"), j))
        .collect();
    decoded.into_iter().collect::<Option<Vec<_>>>().map(Some)
}

fn vcpu(decoder: &mut Decoder, node: &Node, path: &str, index: usize) -> Option<Vcpu> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &VCPU_KEYS, path);
    let hint = "a VCPU needs a budget and a period: budget = \"4ms\", period = \"10ms\"";
    let name = match decoder.field(entries, "name", path) {
        Some(n) => decoder.name(n, &format!("{path}.name")),
        None => Some(format!("v{index}")),
    };
    let mut duration = |key: &str| {
        decoder
            .required(entries, key, path, node.position, hint)
            .and_then(|n| decoder.duration(n, &format!("{path}.{key}"), ZeroAllowed::No))
    };
    let budget = duration("budget");
    let period = duration("period");
    let cpus = match decoder.field(entries, "cpus", path) {
        Some(n) => cpu_list(decoder, n, &format!("{path}.cpus")).map(Some),
        None => Some(None),
    };
    Some(Vcpu {
        name: name?,
        budget: budget?,
        period: period?,
        cpus: cpus?,
    })
}

fn cpu_list(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Vec<CoreId>> {
    let items = match &node.value {
        Value::Array(items) => items,
        other => {
            decoder.diagnostics.push(
                Diagnostic::error(format!(
                    "expected an array of core indices, found {}",
                    other.kind_name()
                ))
                .at_path(path)
                .at_position(node.position)
                .with_hint("cpus = [0, 1]"),
            );
            return None;
        }
    };
    let cores: Vec<Option<CoreId>> = items
        .iter()
        .enumerate()
        .map(|(i, n)| {
            decoder
                .count(n, &format!("{path}[{i}]"), MAX_CORES as u64)
                .map(|c| CoreId(c as usize))
        })
        .collect();
    cores.into_iter().collect()
}
