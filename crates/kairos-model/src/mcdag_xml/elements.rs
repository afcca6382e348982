//! The reader's walk over the document: `<mcsystem>`, each `<mcdag>` with its actors and
//! ports, and the per-level `<wcet>` elements turned into WCET lists once the levels are known.

use super::*;

impl Reader<'_> {
    pub(super) fn system(
        &mut self,
        root: Node<'_, '_>,
        cores_override: Option<usize>,
    ) -> Option<SystemParts> {
        if root.tag_name().name() != "mcsystem" {
            let loc = self.at(root, "");
            self.out.push(
                loc.put(
                    Diagnostic::error(format!(
                        "expected the root element <mcsystem>, found <{}>",
                        root.tag_name().name()
                    ))
                    .with_hint("this is not an MC-DAG framework system file"),
                ),
            );
            return None;
        }
        let mut parts = SystemParts {
            dags_loc: self.at(root, "mcsystem"),
            levels_loc: self.at(root, "levels"),
            ..SystemParts::default()
        };
        let mut cores_seen: Option<Node> = None;
        let mut levels_seen: Option<Node> = None;
        let mut dags = Vec::new();
        for child in root.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "mcdag" => {
                    let path = format!("mcdag[{}]", dags.len());
                    dags.push(self.dag(child, &path));
                }
                "cores" | "levels" => {
                    let name = child.tag_name().name();
                    let seen = if name == "cores" {
                        &mut cores_seen
                    } else {
                        &mut levels_seen
                    };
                    if seen.is_some() {
                        let loc = self.at(child, name);
                        self.out.push(
                            loc.put(
                                Diagnostic::error(format!("<{name}> appears twice"))
                                    .with_hint("keep one"),
                            ),
                        );
                    } else {
                        *seen = Some(child);
                    }
                }
                _ => self.unknown_element(child, "mcsystem", "<mcdag>, <cores>, <levels>"),
            }
        }
        let level_count = match levels_seen {
            Some(node) => {
                parts.levels_loc = self.attr_loc(node, "number", "levels");
                self.required_attr(node, "number", "levels")
                    .and_then(|text| {
                        let loc = parts.levels_loc.clone();
                        self.whole(text, "the number of levels", &loc, MAX_LEVELS as u64)
                    })
            }
            None => {
                self.missing(
                    root,
                    "<levels number=\"N\"/>",
                    "say how many criticality levels the system has: <levels number=\"2\"/>",
                );
                None
            }
        };
        parts.levels = level_count.map(|n| {
            level_names(n as usize)
                .into_iter()
                .map(|name| (name, parts.levels_loc.clone()))
                .collect()
        });
        parts.cores = match (cores_override, cores_seen) {
            (Some(cores), _) => Some((cores, Loc::new("--cores", None))),
            (None, Some(node)) => {
                let loc = self.attr_loc(node, "number", "cores");
                self.required_attr(node, "number", "cores")
                    .and_then(|text| {
                        self.whole(text, "the number of cores", &loc, MAX_CORES as u64)
                    })
                    .map(|c| (c as usize, loc))
            }
            (None, None) => {
                self.missing(
                    root,
                    "<cores number=\"M\"/>",
                    "say how many identical cores: <cores number=\"4\"/> in <mcsystem> (import, synth, simulate, validate-tables and run also take --cores)",
                );
                None
            }
        };
        let dags: Vec<Option<DagParts>> = dags
            .into_iter()
            .map(|dag| {
                let dag = dag?;
                // Level numbers are checked against <levels> once both are read.
                self.resolve_levels(dag, level_count)
            })
            .collect();
        parts.dags_complete =
            level_count.is_some() && dags.iter().all(|d| d.as_ref().is_some_and(complete));
        parts.dags = dags.into_iter().flatten().collect();
        Some(parts)
    }

    fn missing(&mut self, root: Node<'_, '_>, element: &str, hint: &str) {
        let loc = self.at(root, "mcsystem");
        self.out.push(
            loc.put(Diagnostic::error(format!("missing {element} in <mcsystem>")).with_hint(hint)),
        );
    }

    fn dag(&mut self, node: Node<'_, '_>, path: &str) -> Option<PendingDag> {
        let loc = self.at(node, path);
        let name = self.name_attr(node, path);
        let deadline_loc = self.attr_loc(node, "deadline", path);
        let deadline = self
            .required_attr(node, "deadline", path)
            .and_then(|text| self.whole(text, "the deadline", &deadline_loc, u64::MAX))
            .and_then(|slots| {
                if slots == 0 {
                    self.out
                        .push(deadline_loc.put(Diagnostic::error("must be greater than zero")));
                    return None;
                }
                self.slots(slots, &deadline_loc)
            });
        let mut actors = Vec::new();
        let mut edges = Vec::new();
        let mut edges_complete = true;
        let mut ports_loc = None;
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "actor" => {
                    let actor_path = format!("{path}.actor[{}]", actors.len());
                    actors.push(self.actor(child, &actor_path));
                }
                "ports" => {
                    ports_loc.get_or_insert_with(|| self.at(child, format!("{path}.ports")));
                    for port in child.children().filter(Node::is_element) {
                        if port.tag_name().name() == "port" {
                            let port_path = format!("{path}.port[{}]", edges.len());
                            match self.port(port, &port_path) {
                                Some(edge) => edges.push(Some(edge)),
                                None => {
                                    edges.push(None);
                                    edges_complete = false;
                                }
                            }
                        } else {
                            self.unknown_element(port, &format!("{path}.ports"), "<port>");
                        }
                    }
                }
                "port" => {
                    let port_path = format!("{path}.port[{}]", edges.len());
                    match self.port(child, &port_path) {
                        Some(edge) => edges.push(Some(edge)),
                        None => {
                            edges.push(None);
                            edges_complete = false;
                        }
                    }
                }
                _ => self.unknown_element(child, path, "<actor>, <ports>"),
            }
        }
        let tasks_complete = actors.iter().all(Option::is_some);
        let all_named = actors
            .iter()
            .all(|a| a.as_ref().is_some_and(|a| a.name.is_some()));
        Some(PendingDag {
            parts: DagParts {
                loc: loc.clone(),
                name,
                period: deadline.map(|d| (d, deadline_loc.clone())),
                deadline: Some(None),
                tasks: Vec::new(),
                tasks_complete,
                all_named,
                tasks_loc: loc.clone(),
                edges: edges.into_iter().flatten().collect(),
                edges_complete,
                edges_loc: ports_loc.unwrap_or(loc),
            },
            actors: actors.into_iter().flatten().collect(),
        })
    }

    fn actor(&mut self, node: Node<'_, '_>, path: &str) -> Option<PendingActor> {
        let loc = self.at(node, path);
        let name = self.name_attr(node, path);
        let mut wcets = Vec::new();
        let mut complete = name.is_some();
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "wcet" => {
                    let wcet_path = format!("{path}.wcet[{}]", wcets.len());
                    let number_loc = self.attr_loc(child, "number", &wcet_path);
                    let value_loc = self.at(child, wcet_path.clone());
                    let level = self
                        .required_attr(child, "number", &wcet_path)
                        .and_then(|t| self.whole(t, "the level number", &number_loc, u64::MAX));
                    let text = child.text().unwrap_or("");
                    let slots = self.whole(text, "a wcet", &value_loc, u64::MAX);
                    let value = slots.and_then(|s| self.slots(s, &value_loc));
                    match (level, value) {
                        (Some(level), Some(value)) => wcets.push(PendingWcet {
                            level,
                            level_loc: number_loc,
                            value,
                            slots: slots.unwrap_or(0),
                            loc: value_loc,
                        }),
                        _ => complete = false,
                    }
                }
                name if IGNORED.contains(&name) => {}
                _ => self.unknown_element(child, path, "<wcet>, <rank>, <fprob>"),
            }
        }
        Some(PendingActor {
            loc,
            name,
            wcets,
            complete,
        })
    }

    fn port(&mut self, node: Node<'_, '_>, path: &str) -> Option<EdgeParts> {
        let from = self.required_attr(node, "srcActor", path);
        let to = self.required_attr(node, "dstActor", path);
        Some(EdgeParts {
            loc: self.at(node, path),
            from: (from?.to_string(), self.attr_loc(node, "srcActor", path)),
            to: (to?.to_string(), self.attr_loc(node, "dstActor", path)),
        })
    }

    /// Turns per-level `<wcet>` elements into each task's WCET list, now that the number of
    /// levels is known.
    fn resolve_levels(&mut self, pending: PendingDag, levels: Option<u64>) -> Option<DagParts> {
        let mut dag = pending.parts;
        let names = levels.map(|n| level_names(n as usize));
        let name_of = |l: usize| match &names {
            Some(names) if l < names.len() => names[l].clone(),
            _ => format!("level {l}"),
        };
        for actor in pending.actors {
            let mut task = TaskParts {
                loc: actor.loc.clone(),
                name: actor.name,
                wcet: None,
                wcet_loc: actor.loc.clone(),
            };
            let mut ok = actor.complete;
            if let Some(count) = levels {
                let mut by_level: Vec<Option<&PendingWcet>> = vec![None; count as usize];
                for w in &actor.wcets {
                    if w.level >= count {
                        self.out.push(w.level_loc.put(
                            Diagnostic::error(format!(
                                "level {} does not exist: the system has {count} level(s), numbered from 0",
                                w.level
                            ))
                            .with_hint("see <levels number=\"N\"/>"),
                        ));
                        ok = false;
                    } else if let Some(first) = by_level[w.level as usize] {
                        self.out.push(
                            w.level_loc.put(
                                Diagnostic::error(format!(
                                    "a second wcet for level {} (also {})",
                                    w.level, first.loc.path
                                ))
                                .with_hint("give one <wcet> per level"),
                            ),
                        );
                        ok = false;
                    } else {
                        by_level[w.level as usize] = Some(w);
                    }
                }
                let last = by_level
                    .iter()
                    .rposition(|w| w.is_some_and(|w| w.slots > 0));
                match last {
                    None if ok => {
                        self.out.push(
                            actor.loc.put(
                                Diagnostic::error("the actor runs at no level: every wcet is 0")
                                    .with_hint("give it a non-zero wcet at level 0 at least"),
                            ),
                        );
                        ok = false;
                    }
                    None => {}
                    Some(last) => {
                        for level in 0..last {
                            if by_level[level].is_none_or(|w| w.slots == 0) {
                                let higher = by_level[last].expect("non-zero");
                                let at = by_level[level].map_or(&actor.loc, |w| &w.loc);
                                self.out.push(at.put(
                                    Diagnostic::error(format!(
                                        "wcet at {} is 0 but the task runs at {} (wcet {})",
                                        name_of(level),
                                        name_of(last),
                                        higher.slots
                                    ))
                                    .with_hint("a task runs at every level up to its own: a 0 can only be followed by 0 (discard model)"),
                                ));
                                ok = false;
                            }
                        }
                        if ok {
                            task.wcet = by_level[..=last]
                                .iter()
                                .map(|w| w.map(|w| (w.value, w.loc.clone())))
                                .collect();
                        }
                    }
                }
            }
            if !ok || levels.is_none() {
                dag.tasks_complete = false;
            }
            dag.tasks.push(task);
        }
        Some(dag)
    }
}
