//! The rules `kairos check` applies to the decoded parts of an MC-DAG system (both formats):
//! levels, names, deadlines, WCET lists and edges, then the whole-system rules.

use super::*;

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
pub(super) struct LevelNames<'a>(Option<&'a [String]>);

impl LevelNames<'_> {
    pub(super) fn name(&self, level: usize) -> String {
        match self.0.and_then(|n| n.get(level)) {
            Some(name) => name.clone(),
            None => format!("level {level}"),
        }
    }
    fn count(&self) -> Option<usize> {
        self.0.map(<[String]>::len)
    }
}

pub(super) fn level_rules(levels: &[Located<String>], loc: &Loc, out: &mut Diagnostics) {
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
        if let Some(first) = seen.get(name.as_str()) {
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

/// Names with `/`, and duplicates among `items` (name, owner's location). An empty name never
/// gets here: the decoder refuses it by the rules of every name.
pub(super) fn unique_names<'a>(
    items: impl Iterator<Item = (&'a Located<String>, &'a Loc)>,
    what: &str,
    within: &str,
    out: &mut Diagnostics,
) {
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for ((name, at), owner) in items {
        if name.contains('/') {
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
pub(super) fn dag_rules(
    dag: &DagParts,
    levels: &LevelNames<'_>,
    out: &mut Diagnostics,
) -> Option<Dag> {
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

pub(super) fn wcet_rules(
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
pub(super) fn edge_rules(dag: &DagParts, out: &mut Diagnostics) -> (Vec<(usize, usize)>, bool) {
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

pub(super) fn list_names(names: &[&str]) -> String {
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
