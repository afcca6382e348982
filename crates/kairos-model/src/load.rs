//! From source text to a checked [`Workload`]: parse, decode every field, then apply the rules
//! that relate fields ([`crate::validate`]). Every problem is collected; nothing panics.

use crate::decode::{Decoder, ZeroAllowed, MAX_CORES, TASK_KEYS, TOP_LEVEL_KEYS};
use crate::diagnostics::Diagnostics;
use crate::document::{self, Entry, Format, Node};
use crate::imprecise_load::{decode_parts, is_imprecise, PART_KEYS};
use crate::overheads::Overheads;
use crate::overheads_load::decode_overheads;
use crate::validate;
use crate::workload::{Arrival, CoreId, Priority, Task, Workload};

const TASK_HINT: &str =
    "every task needs a name, a period and either wcet or mandatory, optional and windup";

/// The result of checking a workload: the workload when there is no error, and every
/// diagnostic (errors and warnings) in source order.
#[derive(Debug)]
pub struct Checked {
    pub workload: Option<Workload>,
    pub diagnostics: Diagnostics,
}

/// Parses and checks `source`.
pub fn check_source(source: &str, format: Format) -> Checked {
    let root = match document::parse(source, format) {
        Ok(root) => root,
        Err(diagnostics) => {
            return Checked {
                workload: None,
                diagnostics,
            }
        }
    };
    let mut decoder = Decoder::default();
    let decoded = decode_workload(&mut decoder, &root);
    let Decoder {
        mut diagnostics,
        source_map,
    } = decoder;
    let workload = decoded.and_then(|parts| {
        validate::apply_rules(&parts, &source_map, &mut diagnostics);
        parts.into_workload()
    });
    diagnostics.sort_by_position();
    let workload = workload.filter(|_| !diagnostics.has_errors());
    Checked {
        workload,
        diagnostics,
    }
}

/// What could be decoded, even where other fields could not: the rules run on these parts so
/// that one bad field does not hide problems elsewhere.
pub struct DecodedParts {
    pub name: Option<String>,
    /// `None` when `cores` is missing or unreadable.
    pub cores: Option<usize>,
    /// Tasks that decoded, with their index in the file.
    pub tasks: Vec<(usize, Task)>,
    /// Whether every task (and the task list itself) decoded.
    pub all_tasks_decoded: bool,
    pub overheads: Option<Overheads>,
}

impl DecodedParts {
    /// The workload, if every part decoded.
    fn into_workload(self) -> Option<Workload> {
        if !self.all_tasks_decoded {
            return None;
        }
        Some(Workload {
            name: self.name,
            cores: self.cores?,
            tasks: self.tasks.into_iter().map(|(_, t)| t).collect(),
            overheads: self.overheads?,
        })
    }
}

/// Decodes the whole tree; `None` only when the root is not a table (reported).
fn decode_workload(decoder: &mut Decoder, root: &Node) -> Option<DecodedParts> {
    let entries = decoder.table(root, "")?;
    let (mc_keys, others): (Vec<Entry>, Vec<Entry>) = entries
        .iter()
        .cloned()
        .partition(|e| e.key == "dags" || e.key == "levels");
    decoder.reject_unknown_keys(&others, &TOP_LEVEL_KEYS, "");
    for entry in mc_keys {
        decoder.diagnostics.push(
            crate::Diagnostic::error(format!("unknown key `{}`", entry.key))
                .at_path(entry.key.as_str())
                .at_position(entry.key_position.or(entry.node.position))
                .with_hint("`levels` and `dags` make a mixed-criticality system (docs/model.md), which this command does not take: it needs periodic `tasks`"),
        );
    }
    let name = decoder
        .field(entries, "name", "")
        .and_then(|n| decoder.name(n, "name"));
    let cores = decoder
        .required(
            entries,
            "cores",
            "",
            root.position,
            "say how many identical cores: cores = 4",
        )
        .and_then(|n| decoder.count(n, "cores", MAX_CORES as u64));
    let overheads = match decoder.field(entries, "overheads", "") {
        Some(node) => decode_overheads(decoder, node),
        None => Some(Overheads::default()),
    };
    let tasks = decode_tasks(decoder, entries, root);
    let all_tasks_decoded = tasks
        .as_ref()
        .is_some_and(|t| t.iter().all(Option::is_some));
    Some(DecodedParts {
        name,
        cores: cores.and_then(|c| usize::try_from(c).ok()),
        tasks: tasks
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (i, t)))
            .collect(),
        all_tasks_decoded,
        overheads,
    })
}

/// Each task of the list, `None` where it could not be decoded; `None` if there is no list.
fn decode_tasks(
    decoder: &mut Decoder,
    entries: &[Entry],
    root: &Node,
) -> Option<Vec<Option<Task>>> {
    let node = decoder.required(
        entries,
        "tasks",
        "",
        root.position,
        "add at least one [[tasks]] table",
    )?;
    let items = decoder.array_of_tables(node, "tasks", "write each task as a [[tasks]] table")?;
    Some(
        items
            .iter()
            .enumerate()
            .map(|(i, item)| decode_task(decoder, item, &format!("tasks[{i}]")))
            .collect(),
    )
}

pub(crate) fn decode_task(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Task> {
    let entries = decoder.table(node, path)?;
    let known: Vec<&str> = TASK_KEYS.iter().chain(&PART_KEYS).copied().collect();
    decoder.reject_unknown_keys(entries, &known, path);
    let at = |key: &str| format!("{path}.{key}");
    let imprecise = match is_imprecise(entries) {
        true => Some(decode_parts(decoder, entries, node, path)),
        false => None,
    };
    let name = decoder
        .required(entries, "name", path, node.position, TASK_HINT)
        .and_then(|n| decoder.name(n, &at("name")));
    let mut duration = |key: &str, required: bool, zero: ZeroAllowed| -> Option<Option<_>> {
        let field = if required {
            decoder.required(entries, key, path, node.position, TASK_HINT)
        } else {
            decoder.field(entries, key, path)
        };
        match field {
            Some(n) => decoder.duration(n, &at(key), zero).map(Some),
            None if required => None,
            None => Some(None),
        }
    };
    let wcet = match imprecise {
        Some(parts) => parts.map(|p| Some(p.demand())),
        None => duration("wcet", true, ZeroAllowed::No),
    };
    let period = duration("period", true, ZeroAllowed::No);
    let deadline = duration("deadline", false, ZeroAllowed::No);
    let offset = duration("offset", false, ZeroAllowed::Yes);
    let bcet = duration("bcet", false, ZeroAllowed::Yes);
    let max_interarrival = duration("max_interarrival", false, ZeroAllowed::No);
    let sporadic = decode_kind(decoder, entries, path);
    let priority = decode_optional_count(decoder, entries, "priority", path, u64::from(u32::MAX));
    let core = decode_optional_count(decoder, entries, "core", path, MAX_CORES as u64);

    // An optional field that did not decode (reported already) takes its default, so that the
    // rules relating fields still run on the rest of the task: a bad `offset` must not hide a
    // `bcet` above the `wcet`. Defaults never cause a report of their own (bcet = wcet,
    // deadline = period, ...), and the workload is refused anyway for the reported error.
    let (wcet, period) = (wcet??, period??);
    let arrival = match sporadic.unwrap_or(false) {
        false => Arrival::Periodic,
        true => Arrival::Sporadic {
            max_interarrival: max_interarrival.flatten().unwrap_or(period),
        },
    };
    let task = Task {
        name: name?,
        wcet,
        bcet: bcet.flatten().unwrap_or(wcet),
        period,
        deadline: deadline.flatten().unwrap_or(period),
        offset: offset.flatten().unwrap_or_default(),
        arrival,
        priority: priority.flatten().map(|p| Priority::from_level(p as u32)),
        core: core.flatten().map(|c| CoreId(c as usize)),
        imprecise: imprecise.flatten(),
    };
    Some(task)
}

/// `kind = "periodic" | "sporadic"`; returns whether the task is sporadic.
fn decode_kind(decoder: &mut Decoder, entries: &[Entry], path: &str) -> Option<bool> {
    let Some(node) = decoder.field(entries, "kind", path) else {
        return Some(false);
    };
    let kind_path = format!("{path}.kind");
    match decoder.string(node, &kind_path)?.as_str() {
        "periodic" => Some(false),
        "sporadic" => Some(true),
        other => {
            decoder.diagnostics.push(
                crate::Diagnostic::error(format!("unknown task kind {other:?}"))
                    .at_path(kind_path)
                    .at_position(node.position)
                    .with_hint("kind is \"periodic\" (the default) or \"sporadic\""),
            );
            None
        }
    }
}

fn decode_optional_count(
    decoder: &mut Decoder,
    entries: &[Entry],
    key: &str,
    path: &str,
    max: u64,
) -> Option<Option<u64>> {
    match decoder.field(entries, key, path) {
        Some(node) => decoder.count(node, &format!("{path}.{key}"), max).map(Some),
        None => Some(None),
    }
}
