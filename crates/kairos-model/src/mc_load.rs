//! Mixed-criticality systems in the kairos format (TOML or JSON): decoding with located
//! diagnostics, the rules `kairos check` applies to MC-DAG systems, and writing a system back.
//!
//! ```toml
//! name = "uav"
//! cores = 2
//! levels = ["LO", "HI"]             # lowest (the start mode) first
//!
//! [[dags]]
//! name = "flight"
//! period = "20ms"
//! deadline = "20ms"                 # default: the period; at most the period
//! edges = [["sense", "act"]]        # precedence, by task name within the DAG
//!
//! [[dags.tasks]]
//! name = "sense"
//! wcet = ["2ms", "5ms"]             # one budget per level, up to the task's own level
//!
//! [[dags.tasks]]
//! name = "act"
//! wcet = ["1ms"]                    # a LO task: discarded at HI
//! ```
//!
//! A file is a mixed-criticality system when its top level has `dags` or `levels`
//! ([`is_mc_source`]); otherwise it is a periodic workload ([`crate::check_source`]).
//! Decoding first builds format-neutral parts ([`SystemParts`]), which the MC-DAG XML importer
//! ([`crate::mcdag_xml`]) builds too, so both formats share every rule.
//!
//! ```
//! use kairos_model::mc_load::{check_mc_source, to_toml};
//! use kairos_model::Format;
//! let source = "cores = 1\nlevels = [\"LO\", \"HI\"]\n[[dags]]\nname = \"g\"\nperiod = \"10ms\"\n\
//!               [[dags.tasks]]\nname = \"a\"\nwcet = [\"1ms\", \"2ms\"]\n";
//! let system = check_mc_source(source, Format::Toml).system.expect("valid");
//! assert_eq!(system.dags[0].tasks[0].criticality(), 1);
//! let again = check_mc_source(&to_toml(&system), Format::Toml).system;
//! assert_eq!(again.as_ref(), Some(&system));
//! ```

use crate::decode::{
    join, Decoder, ZeroAllowed, DAG_KEYS, MAX_CORES, MAX_DURATION, MAX_LEVELS, MC_TASK_KEYS,
    MC_TOP_LEVEL_KEYS,
};
use crate::diagnostics::{Diagnostic, Diagnostics, Position};
use crate::document::{self, Entry, Format, Node, Value};
use crate::load::{check_source, Checked};
use crate::mc::{Dag, McSystem, McTask};
use crate::time::{checked_lcm, Duration};
use std::collections::HashMap;

/// The result of checking a mixed-criticality system: the system when there is no error, and
/// every diagnostic (errors and warnings) in source order.
#[derive(Debug)]
pub struct McChecked {
    pub system: Option<McSystem>,
    pub diagnostics: Diagnostics,
}

/// Either kind of kairos file, as [`check_any_source`] found it.
#[derive(Debug)]
pub enum AnyChecked {
    /// A periodic/sporadic workload (`tasks`).
    Workload(Checked),
    /// A mixed-criticality system (`dags`, `levels`).
    Mc(McChecked),
}

/// Whether `source` is a mixed-criticality system: its top level has `dags` or `levels`. A
/// source that does not parse is not one (the periodic checker reports its syntax errors).
pub fn is_mc_source(source: &str, format: Format) -> bool {
    match document::parse(source, format) {
        Ok(Node {
            value: Value::Table(entries),
            ..
        }) => entries.iter().any(|e| e.key == "dags" || e.key == "levels"),
        _ => false,
    }
}

/// Checks `source` as a mixed-criticality system or as a periodic workload, whichever it is.
pub fn check_any_source(source: &str, format: Format) -> AnyChecked {
    if is_mc_source(source, format) {
        AnyChecked::Mc(check_mc_source(source, format))
    } else {
        AnyChecked::Workload(check_source(source, format))
    }
}

/// Parses and checks a mixed-criticality system written in the kairos format.
pub fn check_mc_source(source: &str, format: Format) -> McChecked {
    let root = match document::parse(source, format) {
        Ok(root) => root,
        Err(diagnostics) => {
            return McChecked {
                system: None,
                diagnostics,
            }
        }
    };
    let mut decoder = Decoder::default();
    let parts = decode_system(&mut decoder, &root);
    let mut diagnostics = decoder.diagnostics;
    let system = parts.and_then(|parts| apply_rules(&parts, &mut diagnostics));
    finish(system, diagnostics)
}

/// Sorts the diagnostics and keeps the system only when there is no error.
pub(crate) fn finish(system: Option<McSystem>, mut diagnostics: Diagnostics) -> McChecked {
    diagnostics.sort_by_position();
    McChecked {
        system: system.filter(|_| !diagnostics.has_errors()),
        diagnostics,
    }
}

// ---- format-neutral parts ---------------------------------------------------------------

/// Where something is in the input: its field path and, when the format gives one, position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    pub path: String,
    pub position: Option<Position>,
}

impl Loc {
    pub fn new(path: impl Into<String>, position: Option<Position>) -> Loc {
        Loc {
            path: path.into(),
            position,
        }
    }
    /// `d` located here.
    pub fn put(&self, d: Diagnostic) -> Diagnostic {
        let d = d.at_position(self.position);
        if self.path.is_empty() {
            d
        } else {
            d.at_path(self.path.clone())
        }
    }
}

/// A decoded value and where it came from.
pub type Located<T> = (T, Loc);

/// What could be decoded of a system, even where other parts could not: the rules run on
/// these parts so that one bad field does not hide problems elsewhere. Every `None` and every
/// `false` below has been reported already.
#[derive(Clone, Debug, Default)]
pub struct SystemParts {
    pub name: Option<String>,
    pub cores: Option<Located<usize>>,
    /// The level names; `None` when missing or unreadable.
    pub levels: Option<Vec<Located<String>>>,
    pub levels_loc: Loc,
    pub dags: Vec<DagParts>,
    /// Whether the DAG list and every DAG decoded completely.
    pub dags_complete: bool,
    pub dags_loc: Loc,
}

/// One DAG's decoded parts.
#[derive(Clone, Debug, Default)]
pub struct DagParts {
    /// The DAG itself (its table or element); its path names it in messages.
    pub loc: Loc,
    pub name: Option<Located<String>>,
    pub period: Option<Located<Duration>>,
    /// `Some(None)` when the deadline is not given (it is the period).
    pub deadline: Option<Option<Located<Duration>>>,
    pub tasks: Vec<TaskParts>,
    /// Whether the task list and every task decoded completely.
    pub tasks_complete: bool,
    /// Whether the task list decoded and every task has a name (edges can be resolved).
    pub all_named: bool,
    pub tasks_loc: Loc,
    pub edges: Vec<EdgeParts>,
    /// Whether the edge list and every edge decoded completely.
    pub edges_complete: bool,
    pub edges_loc: Loc,
}

/// One task's decoded parts.
#[derive(Clone, Debug, Default)]
pub struct TaskParts {
    pub loc: Loc,
    pub name: Option<Located<String>>,
    /// One budget per level; zero is kept here so the rules can report it.
    pub wcet: Option<Vec<Located<Duration>>>,
    pub wcet_loc: Loc,
}

/// One precedence edge, by task name.
#[derive(Clone, Debug, Default)]
pub struct EdgeParts {
    pub loc: Loc,
    pub from: Located<String>,
    pub to: Located<String>,
}

impl DagParts {
    fn complete(&self) -> bool {
        self.name.is_some()
            && self.period.is_some()
            && self.deadline.is_some()
            && self.tasks_complete
            && self.edges_complete
    }
}

// ---- decoding the kairos format ---------------------------------------------------------

const DAG_HINT: &str = "every DAG needs at least name, period and tasks";
const TASK_HINT: &str = "every task needs a name and a wcet list (one budget per level)";

fn decode_system(decoder: &mut Decoder, root: &Node) -> Option<SystemParts> {
    let entries = decoder.table(root, "")?;
    let (mixed, others): (Vec<Entry>, Vec<Entry>) =
        entries.iter().cloned().partition(|e| e.key == "tasks");
    for entry in mixed {
        decoder.diagnostics.push(
            Diagnostic::error("`tasks` cannot be mixed with `dags`: a file with `dags` is a mixed-criticality system")
                .at_path("tasks")
                .at_position(entry.key_position.or(entry.node.position))
                .with_hint("put periodic tasks in a workload file of their own; the tasks of a DAG are [[dags.tasks]] tables"),
        );
    }
    decoder.reject_unknown_keys(&others, &MC_TOP_LEVEL_KEYS, "");
    let name = decoder
        .field(entries, "name", "")
        .and_then(|n| decoder.string(n, "name"));
    let cores = decoder
        .required(
            entries,
            "cores",
            "",
            root.position,
            "say how many identical cores: cores = 4",
        )
        .and_then(|n| {
            let value = decoder.count(n, "cores", MAX_CORES as u64)?;
            Some((value as usize, Loc::new("cores", n.position)))
        });
    let levels_node = decoder.required(
        entries,
        "levels",
        "",
        root.position,
        "name the criticality levels, lowest first: levels = [\"LO\", \"HI\"]",
    );
    let levels_loc = Loc::new("levels", levels_node.and_then(|n| n.position));
    let levels = levels_node.and_then(|n| decode_levels(decoder, n));
    let dags_node = decoder.required(
        entries,
        "dags",
        "",
        root.position,
        "add at least one [[dags]] table",
    );
    let dags_loc = Loc::new("dags", dags_node.and_then(|n| n.position));
    let mut dags = Vec::new();
    let mut dags_complete = false;
    if let Some(node) = dags_node {
        if let Some(items) =
            array_of_tables(decoder, node, "dags", "write each DAG as a [[dags]] table")
        {
            dags = items
                .iter()
                .enumerate()
                .map(|(i, item)| decode_dag(decoder, item, &format!("dags[{i}]")))
                .collect();
            dags_complete = dags
                .iter()
                .all(|d| d.as_ref().is_some_and(DagParts::complete));
        }
    }
    Some(SystemParts {
        name,
        cores,
        levels,
        levels_loc,
        dags: dags.into_iter().flatten().collect(),
        dags_complete,
        dags_loc,
    })
}

fn decode_levels(decoder: &mut Decoder, node: &Node) -> Option<Vec<Located<String>>> {
    let Value::Array(items) = &node.value else {
        decoder.diagnostics.push(
            Diagnostic::error(format!(
                "expected an array of level names, found {}",
                node.value.kind_name()
            ))
            .at_path("levels")
            .at_position(node.position)
            .with_hint("name the criticality levels, lowest first: levels = [\"LO\", \"HI\"]"),
        );
        return None;
    };
    if items.len() > MAX_LEVELS {
        decoder.diagnostics.push(
            Diagnostic::error(format!(
                "{} levels is more than the supported maximum {MAX_LEVELS}",
                items.len()
            ))
            .at_path("levels")
            .at_position(node.position),
        );
        return None;
    }
    let names: Vec<Option<Located<String>>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = format!("levels[{i}]");
            let name = decoder.string(item, &path)?;
            Some((name, Loc::new(path, item.position)))
        })
        .collect();
    names.into_iter().collect()
}

/// The items of an array of tables, or an error naming what was found instead.
fn array_of_tables<'n>(
    decoder: &mut Decoder,
    node: &'n Node,
    path: &str,
    hint: &str,
) -> Option<&'n [Node]> {
    match &node.value {
        Value::Array(items) => Some(items),
        other => {
            decoder.diagnostics.push(
                Diagnostic::error(format!(
                    "expected an array of tables, found {}",
                    other.kind_name()
                ))
                .at_path(path)
                .at_position(node.position)
                .with_hint(hint),
            );
            None
        }
    }
}

fn decode_dag(decoder: &mut Decoder, node: &Node, path: &str) -> Option<DagParts> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &DAG_KEYS, path);
    let at = |key: &str| join(path, key);
    let name = decoder
        .required(entries, "name", path, node.position, DAG_HINT)
        .and_then(|n| {
            Some((
                decoder.string(n, &at("name"))?,
                Loc::new(at("name"), n.position),
            ))
        });
    let period = decoder
        .required(entries, "period", path, node.position, DAG_HINT)
        .and_then(|n| {
            let value = decoder.duration(n, &at("period"), ZeroAllowed::No)?;
            Some((value, Loc::new(at("period"), n.position)))
        });
    let deadline = match decoder.field(entries, "deadline", path) {
        None => Some(None),
        Some(n) => decoder
            .duration(n, &at("deadline"), ZeroAllowed::No)
            .map(|d| Some((d, Loc::new(at("deadline"), n.position)))),
    };
    let mut dag = DagParts {
        loc: Loc::new(path, node.position),
        name,
        period,
        deadline,
        ..DagParts::default()
    };
    match decoder.field(entries, "edges", path) {
        None => dag.edges_complete = true,
        Some(n) => {
            dag.edges_loc = Loc::new(at("edges"), n.position);
            if let Some((edges, complete)) = decode_edges(decoder, n, &at("edges")) {
                dag.edges = edges;
                dag.edges_complete = complete;
            }
        }
    }
    let tasks_node = decoder.required(
        entries,
        "tasks",
        path,
        node.position,
        "add at least one [[dags.tasks]] table",
    );
    if let Some(n) = tasks_node {
        dag.tasks_loc = Loc::new(at("tasks"), n.position);
        if let Some(items) = array_of_tables(
            decoder,
            n,
            &at("tasks"),
            "write each task of the DAG as a [[dags.tasks]] table",
        ) {
            let tasks: Vec<Option<TaskParts>> = items
                .iter()
                .enumerate()
                .map(|(i, item)| decode_task(decoder, item, &format!("{}[{i}]", at("tasks"))))
                .collect();
            dag.all_named = tasks
                .iter()
                .all(|t| t.as_ref().is_some_and(|t| t.name.is_some()));
            dag.tasks_complete = tasks.iter().all(|t| {
                t.as_ref()
                    .is_some_and(|t| t.name.is_some() && t.wcet.is_some())
            });
            dag.tasks = tasks.into_iter().flatten().collect();
        }
    } else {
        dag.tasks_loc = dag.loc.clone();
    }
    Some(dag)
}

/// The edges that decoded, and whether all did.
fn decode_edges(decoder: &mut Decoder, node: &Node, path: &str) -> Option<(Vec<EdgeParts>, bool)> {
    let Value::Array(items) = &node.value else {
        decoder.diagnostics.push(
            Diagnostic::error(format!(
                "expected an array of [from, to] pairs, found {}",
                node.value.kind_name()
            ))
            .at_path(path)
            .at_position(node.position)
            .with_hint("write edges = [[\"a\", \"b\"], [\"a\", \"c\"]]"),
        );
        return None;
    };
    let mut edges = Vec::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let edge_path = format!("{path}[{i}]");
        let pair = match &item.value {
            Value::Array(pair) if pair.len() == 2 => pair,
            Value::Array(pair) => {
                decoder.diagnostics.push(
                    Diagnostic::error(format!(
                        "an edge is a pair [from, to], found {} element(s)",
                        pair.len()
                    ))
                    .at_path(edge_path)
                    .at_position(item.position)
                    .with_hint("write each edge as [\"from\", \"to\"]"),
                );
                complete = false;
                continue;
            }
            other => {
                decoder.diagnostics.push(
                    Diagnostic::error(format!(
                        "expected a pair of task names [from, to], found {}",
                        other.kind_name()
                    ))
                    .at_path(edge_path)
                    .at_position(item.position)
                    .with_hint("write each edge as [\"from\", \"to\"]"),
                );
                complete = false;
                continue;
            }
        };
        let mut end = |k: usize| {
            let end_path = format!("{edge_path}[{k}]");
            let name = decoder.string(&pair[k], &end_path)?;
            Some((name, Loc::new(end_path, pair[k].position)))
        };
        match (end(0), end(1)) {
            (Some(from), Some(to)) => edges.push(EdgeParts {
                loc: Loc::new(edge_path, item.position),
                from,
                to,
            }),
            _ => complete = false,
        }
    }
    Some((edges, complete))
}

fn decode_task(decoder: &mut Decoder, node: &Node, path: &str) -> Option<TaskParts> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &MC_TASK_KEYS, path);
    let at = |key: &str| join(path, key);
    let name = decoder
        .required(entries, "name", path, node.position, TASK_HINT)
        .and_then(|n| {
            Some((
                decoder.string(n, &at("name"))?,
                Loc::new(at("name"), n.position),
            ))
        });
    let wcet_node = decoder.required(entries, "wcet", path, node.position, TASK_HINT);
    let wcet_loc = Loc::new(at("wcet"), wcet_node.and_then(|n| n.position));
    let wcet = wcet_node.and_then(|n| decode_wcets(decoder, n, &at("wcet")));
    Some(TaskParts {
        loc: Loc::new(path, node.position),
        name,
        wcet,
        wcet_loc,
    })
}

fn decode_wcets(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Vec<Located<Duration>>> {
    let Value::Array(items) = &node.value else {
        let example = match &node.value {
            Value::String(s) => format!("wcet = [{s:?}]"),
            _ => "wcet = [\"2ms\", \"5ms\"]".to_string(),
        };
        decoder.diagnostics.push(
            Diagnostic::error(format!(
                "expected an array of durations (one per level), found {}",
                node.value.kind_name()
            ))
            .at_path(path)
            .at_position(node.position)
            .with_hint(format!(
                "one budget per level, from the lowest up to the task's own level: {example}"
            )),
        );
        return None;
    };
    if items.len() > MAX_LEVELS {
        decoder.diagnostics.push(
            Diagnostic::error(format!(
                "{} budgets is more than the supported maximum of {MAX_LEVELS} levels",
                items.len()
            ))
            .at_path(path)
            .at_position(node.position),
        );
        return None;
    }
    let values: Vec<Option<Located<Duration>>> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let item_path = format!("{path}[{i}]");
            let value = decoder.duration(item, &item_path, ZeroAllowed::Yes)?;
            Some((value, Loc::new(item_path, item.position)))
        })
        .collect();
    values.into_iter().collect()
}

// ---- rules ------------------------------------------------------------------------------

/// Applies every rule of `docs/check.md` (mixed criticality) to `parts`, adding diagnostics
/// to `out`; returns the system when every part decoded (the caller drops it on errors).
pub fn apply_rules(parts: &SystemParts, out: &mut Diagnostics) -> Option<McSystem> {
    if let Some((0, loc)) = &parts.cores {
        out.push(
            loc.put(
                Diagnostic::error("a system needs at least one core")
                    .with_hint("set cores = 1 or more"),
            ),
        );
    }
    let level_names: Option<Vec<String>> = parts
        .levels
        .as_ref()
        .map(|levels| levels.iter().map(|(n, _)| n.clone()).collect());
    if let Some(levels) = &parts.levels {
        level_rules(levels, &parts.levels_loc, out);
    }
    let names = LevelNames(level_names.as_deref());
    if parts.dags_complete && parts.dags.is_empty() {
        out.push(
            parts.dags_loc.put(
                Diagnostic::error("the system has no DAGs")
                    .with_hint("add at least one DAG with a name, a period and its tasks"),
            ),
        );
    }
    unique_names(
        parts
            .dags
            .iter()
            .filter_map(|d| Some((d.name.as_ref()?, &d.loc))),
        "DAG",
        "",
        out,
    );
    let mut dags = Vec::new();
    for dag in &parts.dags {
        dags.push(dag_rules(dag, &names, out));
    }
    let dags: Option<Vec<Dag>> = dags.into_iter().collect();
    let dags = dags.filter(|_| parts.dags_complete)?;
    let hyperperiod_ok = hyperperiod(&dags, &parts.dags_loc, out);
    let (cores, _) = parts.cores.clone()?;
    let levels = level_names?;
    let system = McSystem {
        name: parts.name.clone(),
        cores,
        levels,
        dags,
    };
    if cores > 0 && hyperperiod_ok && !out.has_errors() {
        utilization(&system, &parts.dags_loc, out);
    }
    Some(system)
}

/// Names levels in messages: by name when known, else by number.
struct LevelNames<'a>(Option<&'a [String]>);

impl LevelNames<'_> {
    fn name(&self, level: usize) -> String {
        match self.0.and_then(|n| n.get(level)) {
            Some(name) => name.clone(),
            None => format!("level {level}"),
        }
    }
    fn count(&self) -> Option<usize> {
        self.0.map(<[String]>::len)
    }
}

fn level_rules(levels: &[Located<String>], loc: &Loc, out: &mut Diagnostics) {
    if levels.is_empty() {
        out.push(
            loc.put(
                Diagnostic::error("the system has no criticality levels")
                    .with_hint("name at least one level, lowest first: levels = [\"LO\", \"HI\"]"),
            ),
        );
    }
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for (name, at) in levels {
        if name.is_empty() {
            out.push(
                at.put(
                    Diagnostic::error("level name is empty").with_hint(
                        "messages, tables and traces name levels: use e.g. \"LO\", \"HI\"",
                    ),
                ),
            );
        } else if let Some(first) = seen.get(name.as_str()) {
            out.push(
                at.put(
                    Diagnostic::error(format!(
                        "duplicate level name `{name}` (also {})",
                        first.path
                    ))
                    .with_hint("level names must be unique"),
                ),
            );
        } else {
            seen.insert(name, at);
        }
    }
}

/// Empty names, names with `/`, and duplicates among `items` (name, owner's location).
fn unique_names<'a>(
    items: impl Iterator<Item = (&'a Located<String>, &'a Loc)>,
    what: &str,
    within: &str,
    out: &mut Diagnostics,
) {
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for ((name, at), owner) in items {
        if name.is_empty() {
            out.push(
                at.put(
                    Diagnostic::error(format!("{what} name is empty")).with_hint(
                        "tables and traces refer to tasks as `dag/task`: give it a name",
                    ),
                ),
            );
        } else if name.contains('/') {
            out.push(at.put(
                Diagnostic::error(format!("{what} name `{name}` contains '/'")).with_hint(
                    "tables and traces refer to tasks as `dag/task`: use another character",
                ),
            ));
        } else if let Some(first) = seen.get(name.as_str()) {
            out.push(at.put(
                Diagnostic::error(format!(
                    "duplicate {what} name `{name}`{within} (also {})",
                    first.path
                ))
                .with_hint(format!(
                    "{what} names must be unique{within}: tables and traces refer to tasks as `dag/task`"
                )),
            ));
        } else {
            seen.insert(name, owner);
        }
    }
}

/// Every rule about one DAG; the DAG when it is complete enough to build.
fn dag_rules(dag: &DagParts, levels: &LevelNames<'_>, out: &mut Diagnostics) -> Option<Dag> {
    if let (Some((period, _)), Some(Some((deadline, at)))) = (&dag.period, &dag.deadline) {
        if deadline > period {
            out.push(
                at.put(
                    Diagnostic::error(format!("deadline {deadline} exceeds the period {period}"))
                        .with_hint(
                            "MC-DAG deadlines are constrained: at most the period (the default)",
                        ),
                ),
            );
        }
    }
    if dag.tasks_complete && dag.tasks.is_empty() {
        out.push(
            dag.tasks_loc.put(
                Diagnostic::error("the DAG has no tasks")
                    .with_hint("add at least one task with a name and a wcet list"),
            ),
        );
    }
    unique_names(
        dag.tasks
            .iter()
            .filter_map(|t| Some((t.name.as_ref()?, &t.loc))),
        "task",
        " in the DAG",
        out,
    );
    for task in &dag.tasks {
        if let Some(wcet) = &task.wcet {
            wcet_rules(wcet, &task.wcet_loc, levels, out);
        }
    }
    let (edges, all_resolved) = edge_rules(dag, out);
    // Cycles are found among the edges that resolved, whatever else is broken.
    let acyclic = dag.all_named && {
        let shape = Dag {
            name: String::new(),
            period: Duration::ZERO,
            deadline: Duration::ZERO,
            tasks: dag
                .tasks
                .iter()
                .map(|t| McTask {
                    name: t.name.as_ref().map_or_else(String::new, |(n, _)| n.clone()),
                    wcet: Vec::new(),
                })
                .collect(),
            edges: edges.clone(),
        };
        cycles(&shape, &dag.edges_loc, &dag.loc, out)
    };
    if !dag.complete() || !all_resolved {
        return None;
    }
    let period = dag.period.as_ref()?.0;
    let deadline = dag.deadline.as_ref()?.as_ref().map_or(period, |(d, _)| *d);
    let built = Dag {
        name: dag.name.as_ref()?.0.clone(),
        period,
        deadline,
        tasks: dag
            .tasks
            .iter()
            .map(|t| {
                Some(McTask {
                    name: t.name.as_ref()?.0.clone(),
                    wcet: t.wcet.as_ref()?.iter().map(|(w, _)| *w).collect(),
                })
            })
            .collect::<Option<Vec<_>>>()?,
        edges,
    };
    if acyclic {
        if let Some(count) = levels.count() {
            work_and_critical_paths(&built, count, levels, &dag.loc, out);
        }
    }
    Some(built)
}

fn wcet_rules(
    wcet: &[Located<Duration>],
    loc: &Loc,
    levels: &LevelNames<'_>,
    out: &mut Diagnostics,
) {
    if wcet.is_empty() {
        out.push(
            loc.put(Diagnostic::error("the wcet list is empty").with_hint(
                "give one budget per level, from the lowest up to the task's own level",
            )),
        );
    }
    if let Some(count) = levels.count() {
        if wcet.len() > count && count > 0 {
            let names: Vec<String> = (0..count).map(|l| levels.name(l)).collect();
            out.push(
                loc.put(
                    Diagnostic::error(format!("{} wcet values for {count} level(s)", wcet.len()))
                        .with_hint(format!(
                            "one budget per level, lowest first ({}), up to the task's own level",
                            names.join(", ")
                        )),
                ),
            );
        }
    }
    for (level, (value, at)) in wcet.iter().enumerate() {
        if value.is_zero() {
            out.push(at.put(
                Diagnostic::error(format!("wcet at {} is zero", levels.name(level))).with_hint(
                    "a task runs at every level up to its own: end the list at its own level (it is discarded above)",
                ),
            ));
        }
    }
    for pair in wcet.windows(2).enumerate() {
        let (level, [(lower, _), (higher, at)]) = pair else {
            continue;
        };
        if !higher.is_zero() && higher < lower {
            out.push(
                at.put(
                    Diagnostic::error(format!(
                        "wcet at {} ({higher}) is below wcet at {} ({lower})",
                        levels.name(level + 1),
                        levels.name(level)
                    ))
                    .with_hint("a task's wcet must not decrease with the level"),
                ),
            );
        }
    }
}

/// Unknown tasks, self-loops, duplicates; the edges that resolved (without duplicates and
/// self-loops), and whether every edge did.
fn edge_rules(dag: &DagParts, out: &mut Diagnostics) -> (Vec<(usize, usize)>, bool) {
    // An edge naming no task is reported even when some task's name is unreadable (every
    // problem at once); the hint then says the unnamed task may be the one meant. The edges
    // only count as all resolved against a complete task list.
    let all_named = dag.all_named;
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, task) in dag.tasks.iter().enumerate() {
        if let Some((name, _)) = &task.name {
            index.entry(name.as_str()).or_insert(i);
        }
    }
    let known: Vec<&str> = dag
        .tasks
        .iter()
        .filter_map(|t| t.name.as_ref().map(|(n, _)| n.as_str()))
        .collect();
    let mut resolved = Vec::new();
    let mut seen: HashMap<(usize, usize), &Loc> = HashMap::new();
    let mut all_resolved = all_named;
    for edge in &dag.edges {
        let mut resolve = |(name, at): &Located<String>| -> Option<usize> {
            let found = index.get(name.as_str()).copied();
            if found.is_none() {
                let mut hint = match closest_name(name, &known) {
                    Some(best) => format!("did you mean `{best}`?"),
                    None => format!("the DAG's tasks: {}", list_names(&known)),
                };
                if !all_named {
                    hint.push_str(
                        " (a task without a readable name, reported above, may be the one meant)",
                    );
                }
                out.push(
                    at.put(Diagnostic::error(format!("unknown task `{name}`")).with_hint(hint)),
                );
            }
            found
        };
        let (from, to) = (resolve(&edge.from), resolve(&edge.to));
        let (Some(from), Some(to)) = (from, to) else {
            all_resolved = false;
            continue;
        };
        if from == to {
            out.push(
                edge.loc.put(
                    Diagnostic::error(format!("edge from `{}` to itself", edge.from.0))
                        .with_hint("a task cannot precede itself: remove the edge"),
                ),
            );
            all_resolved = false;
        } else if let Some(first) = seen.get(&(from, to)) {
            out.push(
                edge.loc.put(
                    Diagnostic::warning(format!(
                        "duplicate edge `{}` -> `{}` (also {})",
                        edge.from.0, edge.to.0, first.path
                    ))
                    .with_hint("remove the repeated edge"),
                ),
            );
        } else {
            seen.insert((from, to), &edge.loc);
            resolved.push((from, to));
        }
    }
    (resolved, all_resolved)
}

/// The candidate closest to `name` by edit distance, if close enough to be a typo.
pub fn closest_name<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(name, k), *k))
        // Close means a third of the name at most (one edit for short names), and never every
        // letter of it: `zz` is not a misspelling of `b`.
        .filter(|(distance, k)| {
            let len = k.chars().count();
            *distance <= (len / 3).max(1) && *distance < len.max(name.chars().count())
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

fn list_names(names: &[&str]) -> String {
    const SHOWN: usize = 10;
    let mut text = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(", ... ({} in all)", names.len()));
    }
    if names.is_empty() {
        text.push_str("none");
    }
    text
}

/// Reports one cycle per strongly connected component; whether the DAG is acyclic.
fn cycles(dag: &Dag, edges_loc: &Loc, dag_loc: &Loc, out: &mut Diagnostics) -> bool {
    if dag.topological_order().is_some() {
        return true;
    }
    let loc = if edges_loc.path.is_empty() {
        dag_loc
    } else {
        edges_loc
    };
    let succs = dag.successors();
    for component in strongly_connected(&succs) {
        if component.len() < 2 {
            continue;
        }
        let start = *component.iter().min().expect("non-empty");
        let cycle = shortest_cycle(start, &succs, &component);
        let names: Vec<&str> = cycle.iter().map(|&t| dag.tasks[t].name.as_str()).collect();
        out.push(
            loc.put(
                Diagnostic::error(format!("cycle {}", names.join(" -> ")))
                    .with_hint("precedence edges must form a DAG: remove one edge of the cycle"),
            ),
        );
    }
    false
}

/// Tarjan's algorithm, iterative; components in no particular order, each sorted.
fn strongly_connected(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (vertex, next successor to visit)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = succs[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort_unstable();
                components.push(component);
            }
        }
    }
    components.sort();
    components
}

/// The shortest cycle through `start` within `component`: `start, ..., start`.
fn shortest_cycle(start: usize, succs: &[Vec<usize>], component: &[usize]) -> Vec<usize> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &succs[v] {
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    at = parent[&at];
                    path.push(at);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if component.binary_search(&w).is_ok() && !parent.contains_key(&w) && w != start {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}

/// The work of the DAG at each level must fit 64-bit nanoseconds (so utilizations can be
/// computed), and its critical path at each level must fit within the deadline.
fn work_and_critical_paths(
    dag: &Dag,
    level_count: usize,
    levels: &LevelNames<'_>,
    loc: &Loc,
    out: &mut Diagnostics,
) {
    let order = dag.topological_order().expect("acyclic");
    let preds = dag.predecessors();
    for level in 0..level_count {
        let weight =
            |t: usize| u128::from(dag.tasks[t].wcet_at(level).map_or(0, Duration::as_nanos));
        let work: u128 = (0..dag.tasks.len()).map(weight).sum();
        if work > u128::from(MAX_DURATION.as_nanos()) {
            out.push(loc.put(
                Diagnostic::error(format!(
                    "the DAG's total wcet at {} exceeds the supported maximum of 2^60 ns (about 36.5 years)",
                    levels.name(level)
                ))
                .with_hint("real-time budgets are far shorter; check the units"),
            ));
            continue;
        }
        // Longest path ending at each task; ties keep the first predecessor in edge order.
        let mut finish = vec![0u128; dag.tasks.len()];
        let mut via: Vec<Option<usize>> = vec![None; dag.tasks.len()];
        for &t in &order {
            let mut best: Option<usize> = None;
            for &p in &preds[t] {
                if best.is_none_or(|b| finish[p] > finish[b]) {
                    best = Some(p);
                }
            }
            finish[t] = best.map_or(0, |b| finish[b]) + weight(t);
            via[t] = best;
        }
        let Some(end) = (0..dag.tasks.len()).max_by_key(|&t| (finish[t], std::cmp::Reverse(t)))
        else {
            continue;
        };
        let length = finish[end];
        if length <= u128::from(dag.deadline.as_nanos()) {
            continue;
        }
        let mut path = vec![end];
        while let Some(p) = via[*path.last().expect("non-empty")] {
            path.push(p);
        }
        path.reverse();
        // Tasks that do not run at this level weigh nothing: leave them off both ends.
        let runs = |t: &usize| dag.tasks[*t].runs_at(level);
        let first = path.iter().position(runs).unwrap_or(0);
        let last = path.iter().rposition(runs).unwrap_or(path.len() - 1);
        let names: Vec<&str> = path[first..=last]
            .iter()
            .map(|&t| dag.tasks[t].name.as_str())
            .collect();
        out.push(loc.put(
            Diagnostic::error(format!(
                "critical path at {} is {}, longer than the deadline {}: {}",
                levels.name(level),
                Duration::from_nanos(length as u64),
                dag.deadline,
                names.join(" -> ")
            ))
            .with_hint("no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline"),
        ));
    }
}

/// The hyper-period must not exceed the longest supported duration; whether it does not.
fn hyperperiod(dags: &[Dag], loc: &Loc, out: &mut Diagnostics) -> bool {
    let h = dags
        .iter()
        .try_fold(1u64, |acc, dag| checked_lcm(acc, dag.period.as_nanos()));
    if h.is_some_and(|h| h <= MAX_DURATION.as_nanos()) {
        return true;
    }
    out.push(loc.put(
        Diagnostic::error(
            "the hyper-period (lcm of the DAG periods) exceeds the supported maximum of 2^60 ns (about 36.5 years)",
        )
        .with_hint("tables cover one hyper-period: choose periods on a common grid (e.g. whole milliseconds from a small set)"),
    ));
    false
}

fn utilization(system: &McSystem, loc: &Loc, out: &mut Diagnostics) {
    for level in 0..system.level_count() {
        let u = system.utilization_at(level);
        if u > system.cores as f64 {
            out.push(loc.put(
                Diagnostic::warning(format!(
                    "utilization at {} is {u:.3}, above the {} core(s)",
                    system.levels[level], system.cores
                ))
                .with_hint("deadlines will be missed at that level under any scheduler: add cores or lower the wcets"),
            ));
        }
    }
}

// ---- writing ----------------------------------------------------------------------------

/// The system as a kairos TOML file that [`check_mc_source`] reads back to the same system.
/// The deadline is written only when it differs from the period; duplicate-free edges as they
/// are.
pub fn to_toml(system: &McSystem) -> String {
    let mut out = String::new();
    if let Some(name) = &system.name {
        out.push_str(&format!("name = {}\n", toml_string(name)));
    }
    out.push_str(&format!("cores = {}\n", system.cores));
    let levels: Vec<String> = system.levels.iter().map(|l| toml_string(l)).collect();
    out.push_str(&format!("levels = [{}]\n", levels.join(", ")));
    for dag in &system.dags {
        out.push_str("\n[[dags]]\n");
        out.push_str(&format!("name = {}\n", toml_string(&dag.name)));
        out.push_str(&format!("period = \"{}\"\n", dag.period));
        if dag.deadline != dag.period {
            out.push_str(&format!("deadline = \"{}\"\n", dag.deadline));
        }
        if !dag.edges.is_empty() {
            out.push_str("edges = [\n");
            for &(from, to) in &dag.edges {
                out.push_str(&format!(
                    "    [{}, {}],\n",
                    toml_string(&dag.tasks[from].name),
                    toml_string(&dag.tasks[to].name)
                ));
            }
            out.push_str("]\n");
        }
        for task in &dag.tasks {
            out.push_str("\n[[dags.tasks]]\n");
            out.push_str(&format!("name = {}\n", toml_string(&task.name)));
            let wcet: Vec<String> = task.wcet.iter().map(|w| format!("\"{w}\"")).collect();
            out.push_str(&format!("wcet = [{}]\n", wcet.join(", ")));
        }
    }
    out
}

/// The system as a kairos JSON file that [`check_mc_source`] reads back to the same system.
pub fn to_json(system: &McSystem) -> String {
    use serde_json::{json, Map, Value as J};
    let mut root = Map::new();
    if let Some(name) = &system.name {
        root.insert("name".into(), J::String(name.clone()));
    }
    root.insert("cores".into(), json!(system.cores));
    root.insert("levels".into(), json!(system.levels));
    let dags: Vec<J> = system
        .dags
        .iter()
        .map(|dag| {
            let mut d = Map::new();
            d.insert("name".into(), J::String(dag.name.clone()));
            d.insert("period".into(), J::String(dag.period.to_string()));
            if dag.deadline != dag.period {
                d.insert("deadline".into(), J::String(dag.deadline.to_string()));
            }
            if !dag.edges.is_empty() {
                let edges: Vec<J> = dag
                    .edges
                    .iter()
                    .map(|&(f, t)| json!([dag.tasks[f].name, dag.tasks[t].name]))
                    .collect();
                d.insert("edges".into(), J::Array(edges));
            }
            let tasks: Vec<J> = dag
                .tasks
                .iter()
                .map(|t| {
                    let wcet: Vec<String> = t.wcet.iter().map(Duration::to_string).collect();
                    json!({"name": t.name, "wcet": wcet})
                })
                .collect();
            d.insert("tasks".into(), J::Array(tasks));
            J::Object(d)
        })
        .collect();
    root.insert("dags".into(), J::Array(dags));
    let mut text = serde_json::to_string_pretty(&J::Object(root)).expect("JSON values serialize");
    text.push('\n');
    text
}

/// A TOML basic string, escaped as the TOML specification requires.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_cycle_through_the_smallest_task() {
        // 0 -> 1 -> 2 -> 0, and 1 -> 3 -> 1
        let succs = vec![vec![1], vec![2, 3], vec![0], vec![1]];
        let components = strongly_connected(&succs);
        assert_eq!(components, vec![vec![0, 1, 2, 3]]);
        assert_eq!(shortest_cycle(0, &succs, &components[0]), vec![0, 1, 2, 0]);
        assert_eq!(shortest_cycle(3, &succs, &components[0]), vec![3, 1, 3]);
    }

    #[test]
    fn separate_components() {
        let succs = vec![vec![1], vec![0], vec![3], vec![2], vec![]];
        assert_eq!(
            strongly_connected(&succs),
            vec![vec![0, 1], vec![2, 3], vec![4]]
        );
    }

    #[test]
    fn toml_strings_escape() {
        assert_eq!(toml_string("a\"b\\c\u{7f}"), "\"a\\\"b\\\\c\\u007F\"");
    }
}
