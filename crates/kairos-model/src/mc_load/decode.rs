//! From the format-neutral document tree to [`SystemParts`]: every field decoded with its
//! location; missing, unknown or mistyped fields reported, never fatal to the rest.

use super::*;

pub(super) const DAG_HINT: &str = "every DAG needs at least name, period and tasks";
pub(super) const TASK_HINT: &str = "every task needs a name and a wcet list (one budget per level)";

pub(super) fn decode_system(decoder: &mut Decoder, root: &Node) -> Option<SystemParts> {
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
        .and_then(|n| decoder.name(n, "name"));
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
            decoder.array_of_tables(node, "dags", "write each DAG as a [[dags]] table")
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

pub(super) fn decode_levels(decoder: &mut Decoder, node: &Node) -> Option<Vec<Located<String>>> {
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
            let name = decoder.name(item, &path)?;
            Some((name, Loc::new(path, item.position)))
        })
        .collect();
    let named: Vec<Located<String>> = names.iter().flatten().cloned().collect();
    if named.len() < names.len() && !named.is_empty() {
        // The levels as a whole are unusable, but a duplicate among the names that are
        // usable is reported now rather than after the bad name is fixed.
        let loc = Loc::new("levels", node.position);
        super::rules::level_rules(&named, &loc, &mut decoder.diagnostics);
    }
    names.into_iter().collect()
}

pub(super) fn decode_dag(decoder: &mut Decoder, node: &Node, path: &str) -> Option<DagParts> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &DAG_KEYS, path);
    let at = |key: &str| join(path, key);
    let name = decoder
        .required(entries, "name", path, node.position, DAG_HINT)
        .and_then(|n| {
            Some((
                decoder.name(n, &at("name"))?,
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
        if let Some(items) = decoder.array_of_tables(
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
pub(super) fn decode_edges(
    decoder: &mut Decoder,
    node: &Node,
    path: &str,
) -> Option<(Vec<EdgeParts>, bool)> {
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

pub(super) fn decode_task(decoder: &mut Decoder, node: &Node, path: &str) -> Option<TaskParts> {
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &MC_TASK_KEYS, path);
    let at = |key: &str| join(path, key);
    let name = decoder
        .required(entries, "name", path, node.position, TASK_HINT)
        .and_then(|n| {
            Some((
                decoder.name(n, &at("name"))?,
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

pub(super) fn decode_wcets(
    decoder: &mut Decoder,
    node: &Node,
    path: &str,
) -> Option<Vec<Located<Duration>>> {
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
