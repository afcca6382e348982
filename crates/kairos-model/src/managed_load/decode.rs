//! Decoding a managed system's tree; every field problem is reported, with its position.

use super::MANAGED_TOP_LEVEL_KEYS;
use crate::decode::{Decoder, ZeroAllowed, MAX_CORES};
use crate::diagnostics::Diagnostic;
use crate::document::{Entry, Node, Value};
use crate::managed::{
    BestEffort, BestEffortWork, Execution, JobSize, ManagedSystem, Manager, RtTask,
};
use crate::time::Duration;
use crate::vm_load::decode::{choice, optional_duration};
use crate::workload::CoreId;

const MANAGER_KEYS: [&str; 6] = [
    "execution",
    "period",
    "margin",
    "hold",
    "probe",
    "interference",
];
const RT_KEYS: [&str; 8] = [
    "name", "core", "period", "deadline", "wcet", "work", "length", "calls",
];
const CORE_KEYS: [&str; 3] = ["core", "rt", "be"];
const BE_KEYS: [&str; 4] = ["name", "core", "command", "stress"];

/// The allocations as the file gives them: (core, S_RT, S_BE), any field absent.
pub(super) type GivenAllocation = (usize, Option<Duration>, Option<Duration>);

/// The system, the allocations as given (the rules fill the defaults), or `None` when some
/// part did not decode (each problem reported).
pub(super) fn system(
    decoder: &mut Decoder,
    root: &Node,
) -> Option<(ManagedSystem, Vec<GivenAllocation>)> {
    let entries = decoder.table(root, "")?;
    decoder.reject_unknown_keys(entries, &MANAGED_TOP_LEVEL_KEYS, "");
    let name = decoder
        .field(entries, "name", "")
        .and_then(|n| decoder.name(n, "name"));
    let cores = decoder
        .required(
            entries,
            "cores",
            "",
            root.position,
            "say how many cores: cores = 2",
        )
        .and_then(|n| decoder.count(n, "cores", MAX_CORES as u64));
    let manager = decoder
        .required(entries, "manager", "", root.position, MANAGER_HINT)
        .and_then(|n| manager(decoder, n));
    let rt = decoder
        .required(entries, "rt", "", root.position, RT_HINT)
        .and_then(|n| rt_task(decoder, n));
    let given = tables(decoder, entries, "allocations", allocation);
    let best_effort = tables(decoder, entries, "best_effort", best_effort);
    Some((
        ManagedSystem {
            name,
            cores: usize::try_from(cores?).ok()?,
            manager: manager?,
            rt: rt?,
            allocations: Vec::new(),
            best_effort: best_effort?,
        },
        given?,
    ))
}

const MANAGER_HINT: &str = "add [manager] with execution = \"free\" and the enforcing period";
const RT_HINT: &str = "add [rt] with name, core, period, deadline, work and length";

fn manager(decoder: &mut Decoder, node: &Node) -> Option<Manager> {
    let entries = decoder.table(node, "manager")?;
    decoder.reject_unknown_keys(entries, &MANAGER_KEYS, "manager");
    let execution = choice(
        decoder,
        entries,
        "manager",
        "execution",
        Execution::Free,
        &[
            ("free", Execution::Free),
            ("constrained", Execution::Constrained),
        ],
    );
    let period = decoder
        .required(entries, "period", "manager", node.position, MANAGER_HINT)
        .and_then(|n| decoder.duration(n, "manager.period", ZeroAllowed::No));
    let margin = match decoder.field(entries, "margin", "manager") {
        Some(n) => decoder.duration(n, "manager.margin", ZeroAllowed::Yes),
        None => Some(Duration::ZERO),
    };
    let hold = optional_duration(decoder, entries, "manager", "hold");
    let probe = match decoder.field(entries, "probe", "manager") {
        Some(n) => decoder
            .duration(n, "manager.probe", ZeroAllowed::Yes)
            .map(Some),
        None => Some(None),
    };
    let interference = decoder
        .field(entries, "interference", "manager")
        .map(|n| decoder.string(n, "manager.interference"));
    Some(Manager {
        execution: execution?,
        period: period?,
        margin: margin?,
        hold: hold?.unwrap_or(DEFAULT_HOLD),
        probe: probe?.unwrap_or(DEFAULT_PROBE),
        interference: interference.map_or(Some(None), |i| i.map(Some))?,
    })
}

/// Allocations change at most this often unless the file says otherwise.
pub const DEFAULT_HOLD: Duration = Duration::from_millis(200);
/// The manager probes after this long without a change unless the file says otherwise.
pub const DEFAULT_PROBE: Duration = Duration::from_secs(2);

fn rt_task(decoder: &mut Decoder, node: &Node) -> Option<RtTask> {
    let entries = decoder.table(node, "rt")?;
    decoder.reject_unknown_keys(entries, &RT_KEYS, "rt");
    let text = |d: &mut Decoder, key: &str| {
        d.required(entries, key, "rt", node.position, RT_HINT)
            .and_then(|n| d.string(n, &format!("rt.{key}")))
    };
    let name = decoder
        .required(entries, "name", "rt", node.position, RT_HINT)
        .and_then(|n| decoder.name(n, "rt.name"));
    let work = text(decoder, "work");
    let core = core(decoder, entries, "rt", node);
    let duration = |d: &mut Decoder, key: &str| {
        d.required(entries, key, "rt", node.position, RT_HINT)
            .and_then(|n| d.duration(n, &format!("rt.{key}"), ZeroAllowed::No))
    };
    let period = duration(decoder, "period");
    let deadline = match decoder.field(entries, "deadline", "rt") {
        Some(n) => decoder.duration(n, "rt.deadline", ZeroAllowed::No),
        None => period,
    };
    let wcet = optional_duration(decoder, entries, "rt", "wcet");
    let size = job_size(decoder, entries, node);
    Some(RtTask {
        name: name?,
        core: core?,
        period: period?,
        deadline: deadline?,
        wcet: wcet?,
        work: work?,
        size: size?,
    })
}

fn job_size(decoder: &mut Decoder, entries: &[Entry], node: &Node) -> Option<JobSize> {
    let length = optional_duration(decoder, entries, "rt", "length");
    let calls = decoder
        .field(entries, "calls", "rt")
        .map(|n| decoder.count(n, "rt.calls", 1 << 32));
    match (length?, calls) {
        (Some(l), None) => Some(JobSize::Length(l)),
        (None, Some(Some(c))) if c > 0 => Some(JobSize::Calls(c)),
        (None, Some(None)) => None,
        (None, None) | (Some(_), Some(_)) | (None, Some(Some(_))) => {
            decoder.diagnostics.push(
                Diagnostic::error("a job needs exactly one of `length` or `calls` (at least 1)")
                    .at_path("rt")
                    .at_position(node.position)
                    .with_hint("length = \"4ms\" (calibrated in isolation) or calls = 20"),
            );
            None
        }
    }
}

fn core(decoder: &mut Decoder, entries: &[Entry], path: &str, node: &Node) -> Option<CoreId> {
    decoder
        .required(
            entries,
            "core",
            path,
            node.position,
            "name the core: core = 0",
        )
        .and_then(|n| decoder.count(n, &format!("{path}.core"), MAX_CORES as u64))
        .map(|c| CoreId(c as usize))
}

/// Decodes every table of the optional array `key` (absent: none).
fn tables<T>(
    decoder: &mut Decoder,
    entries: &[Entry],
    key: &str,
    item: impl Fn(&mut Decoder, &Node, &str) -> Option<T>,
) -> Option<Vec<T>> {
    let Some(node) = decoder.field(entries, key, "") else {
        return Some(Vec::new());
    };
    let hint = format!("write [[{key}]] tables");
    let items = decoder.array_of_tables(node, key, &hint)?;
    let decoded: Vec<Option<T>> = items
        .iter()
        .enumerate()
        .map(|(i, n)| item(decoder, n, &format!("{key}[{i}]")))
        .collect();
    decoded.into_iter().collect()
}

fn allocation(decoder: &mut Decoder, node: &Node, path: &str) -> Option<GivenAllocation> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &CORE_KEYS, path);
    let core = core(decoder, entries, path, node);
    let share = |d: &mut Decoder, key: &str| match d.field(entries, key, path) {
        Some(n) => d
            .duration(n, &format!("{path}.{key}"), ZeroAllowed::Yes)
            .map(Some),
        None => Some(None),
    };
    let rt = share(decoder, "rt");
    let be = share(decoder, "be");
    Some((core?.0, rt?, be?))
}

fn best_effort(decoder: &mut Decoder, node: &Node, path: &str) -> Option<BestEffort> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &BE_KEYS, path);
    let name = decoder
        .required(
            entries,
            "name",
            path,
            node.position,
            "name the program: name = \"build\"",
        )
        .and_then(|n| decoder.name(n, &format!("{path}.name")));
    let core = core(decoder, entries, path, node);
    let command = decoder
        .field(entries, "command", path)
        .map(|n| strings(decoder, n, &format!("{path}.command")));
    let stress = decoder.field(entries, "stress", path).map(|n| {
        decoder
            .string(n, &format!("{path}.stress"))
            .map(|s| s.split(',').map(|p| p.trim().to_string()).collect())
    });
    let work = match (command, stress) {
        (Some(c), None) => c.map(BestEffortWork::Command),
        (None, Some(s)) => s.map(BestEffortWork::Stress),
        _ => {
            decoder.diagnostics.push(
                Diagnostic::error(
                    "a best-effort program needs exactly one of `command` or `stress`",
                )
                .at_path(path)
                .at_position(node.position)
                .with_hint("command = [\"make\", \"-j1\"] or stress = \"fork,mmap\""),
            );
            None
        }
    };
    Some(BestEffort {
        name: name?,
        core: core?,
        work: work?,
    })
}

/// A non-empty array of strings.
fn strings(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Vec<String>> {
    let bad = |found: &str| {
        Diagnostic::error(format!(
            "expected a non-empty array of strings, found {found}"
        ))
        .at_path(path)
        .at_position(node.position)
        .with_hint("command = [\"make\", \"-j1\"]")
    };
    let Value::Array(items) = &node.value else {
        decoder.diagnostics.push(bad(node.value.kind_name()));
        return None;
    };
    let words: Option<Vec<String>> = items
        .iter()
        .map(|i| match &i.value {
            Value::String(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    match words {
        Some(w) if !w.is_empty() => Some(w),
        Some(_) => {
            decoder.diagnostics.push(bad("an empty array"));
            None
        }
        None => {
            decoder.diagnostics.push(bad("an array with a non-string"));
            None
        }
    }
}
