//! The MC-DAG framework's XML: import (with located diagnostics and every rule of
//! [`crate::mc_load`]) and export.
//!
//! ```xml
//! <mcsystem>
//!   <mcdag name="g1" deadline="10">              <!-- period = deadline, in slots -->
//!     <actor name="a"> <wcet number="0">1</wcet> <wcet number="1">2</wcet> </actor>
//!     <actor name="b"> <wcet number="0">3</wcet> <wcet number="1">0</wcet> </actor>
//!     <ports> <port name="p0" srcActor="a" dstActor="b"/> </ports>
//!   </mcdag>
//!   <cores number="4"/>
//!   <levels number="2"/>
//! </mcsystem>
//! ```
//!
//! - Times are integer slots; one slot lasts `slot` (the format has no unit).
//! - Level `0` is the lowest. A WCET of `0` at a level means the task does not run there (the
//!   discard model): after a `0`, every higher level must be `0` too. A missing `<wcet>` for a
//!   level counts as `0`.
//! - Levels are named `LO`, `HI` for two levels, `LO`, `MID`, `HI` for three, `L0`, `L1`, ...
//!   otherwise ([`level_names`]).
//! - Actor names are unique within a DAG; a `<port>` is an edge `srcActor -> dstActor` within
//!   its DAG.
//! - Elements the framework writes for itself (`<rank>`, `<fprob>`) are ignored; other unknown
//!   elements are ignored with a warning.
//!
//! Diagnostic paths follow the XML: `mcdag[0].actor[3].wcet[1]` is the second `<wcet>` of the
//! fourth `<actor>` of the first `<mcdag>`.

use crate::decode::{MAX_CORES, MAX_DURATION, MAX_LEVELS};
use crate::diagnostics::{Diagnostic, Diagnostics, Position};
use crate::document::LineIndex;
use crate::mc::McSystem;
use crate::mc_load::{
    apply_rules, finish, DagParts, EdgeParts, Loc, Located, McChecked, SystemParts, TaskParts,
};
use crate::time::Duration;
use roxmltree::{Document, Node, ParsingOptions};

/// How to read an XML file: the length of one slot, and optionally a core count that replaces
/// the file's `<cores>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    pub slot: Duration,
    pub cores: Option<usize>,
}

/// Reads an MC-DAG framework XML file where one slot lasts `slot`.
pub fn import(source: &str, slot: Duration) -> McChecked {
    import_with(source, &ImportOptions { slot, cores: None })
}

/// Reads an MC-DAG framework XML file.
pub fn import_with(source: &str, options: &ImportOptions) -> McChecked {
    let mut reader = Reader {
        lines: LineIndex::new(source),
        slot: options.slot,
        out: Diagnostics::default(),
    };
    if options.slot.is_zero() || options.slot > MAX_DURATION {
        reader.out.push(
            Diagnostic::error(format!("the slot length {} is not usable", options.slot))
                .with_hint("a slot lasts more than zero and at most 2^60 ns, e.g. --slot 1ms"),
        );
        return finish(None, reader.out);
    }
    let parsing = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    let document = match Document::parse_with_options(source, parsing) {
        Ok(document) => document,
        Err(e) => {
            let pos = e.pos();
            let message = e.to_string().replace(&format!(" at {pos}"), "");
            let position = match e {
                // These carry no position: the problem is at the end of the text.
                roxmltree::Error::UnexpectedEndOfStream | roxmltree::Error::UnclosedRootNode => {
                    Position::of_offset(source, source.len())
                }
                roxmltree::Error::DtdDetected => {
                    Position::of_offset(source, source.find("<!DOCTYPE").unwrap_or(0))
                }
                _ => Position {
                    line: pos.row as usize,
                    column: pos.col as usize,
                },
            };
            reader.out.push(
                Diagnostic::error(format!("XML syntax: {message}"))
                    .at_position(Some(position))
                    .with_hint("the MC-DAG framework writes <mcsystem> with <mcdag>, <cores> and <levels> elements"),
            );
            return finish(None, reader.out);
        }
    };
    let parts = reader.system(document.root_element(), options.cores);
    let system = parts.and_then(|parts| apply_rules(&parts, &mut reader.out));
    finish(system, reader.out)
}

/// The names the importer gives to `count` levels.
pub fn level_names(count: usize) -> Vec<String> {
    match count {
        2 => vec!["LO".into(), "HI".into()],
        3 => vec!["LO".into(), "MID".into(), "HI".into()],
        n => (0..n).map(|l| format!("L{l}")).collect(),
    }
}

/// Elements the MC-DAG framework writes that carry nothing kairos uses.
const IGNORED: [&str; 2] = ["rank", "fprob"];

struct Reader<'s> {
    lines: LineIndex<'s>,
    slot: Duration,
    out: Diagnostics,
}

impl Reader<'_> {
    fn position(&self, offset: usize) -> Option<Position> {
        Some(self.lines.position(offset))
    }

    fn at(&self, node: Node<'_, '_>, path: impl Into<String>) -> Loc {
        Loc::new(path, self.position(node.range().start))
    }

    fn attr_loc(&self, node: Node<'_, '_>, name: &str, path: &str) -> Loc {
        let position = node
            .attributes()
            .find(|a| a.name() == name)
            .map_or(node.range().start, |a| a.range_value().start);
        Loc::new(format!("{path}.{name}"), self.position(position))
    }

    /// A required attribute, or an error on the element.
    fn required_attr<'a>(&mut self, node: Node<'a, '_>, name: &str, path: &str) -> Option<&'a str> {
        let value = node.attribute(name);
        if value.is_none() {
            let loc = self.at(node, path);
            self.out.push(
                loc.put(
                    Diagnostic::error(format!(
                        "missing attribute `{name}` on <{}>",
                        node.tag_name().name()
                    ))
                    .with_hint(format!("write <{} {name}=\"...\">", node.tag_name().name())),
                ),
            );
        }
        value
    }

    /// A whole number no larger than `max` in `text`, reported at `loc`.
    fn whole(&mut self, text: &str, what: &str, loc: &Loc, max: u64) -> Option<u64> {
        match text.trim().parse::<u64>() {
            Ok(v) if v <= max => Some(v),
            Ok(v) => {
                self.out.push(loc.put(Diagnostic::error(format!(
                    "{v} is larger than the supported maximum {max}"
                ))));
                None
            }
            Err(_) => {
                self.out.push(
                    loc.put(
                        Diagnostic::error(format!(
                            "{what} must be a whole number, found {:?}",
                            text.trim()
                        ))
                        .with_hint("the file's times are whole numbers of slots (--slot sets a slot's length)"),
                    ),
                );
                None
            }
        }
    }

    /// `slots` slots as a duration, or an error when beyond the supported maximum.
    fn slots(&mut self, slots: u64, loc: &Loc) -> Option<Duration> {
        match self.slot.checked_mul(slots) {
            Some(d) if d <= MAX_DURATION => Some(d),
            _ => {
                self.out.push(loc.put(
                    Diagnostic::error(format!(
                        "{slots} slots of {} exceed the supported maximum of 2^60 ns (about 36.5 years)",
                        self.slot
                    ))
                    .with_hint("check the slot length (--slot)"),
                ));
                None
            }
        }
    }

    fn unknown_element(&mut self, node: Node<'_, '_>, path: &str, known: &str) {
        let loc = self.at(node, path);
        self.out.push(
            loc.put(
                Diagnostic::warning(format!(
                    "unknown element <{}> (ignored)",
                    node.tag_name().name()
                ))
                .with_hint(format!("known here: {known}")),
            ),
        );
    }

    fn system(&mut self, root: Node<'_, '_>, cores_override: Option<usize>) -> Option<SystemParts> {
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
        let name = self
            .required_attr(node, "name", path)
            .map(|n| (n.to_string(), self.attr_loc(node, "name", path)));
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
        let name = self
            .required_attr(node, "name", path)
            .map(|n| (n.to_string(), self.attr_loc(node, "name", path)));
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

struct PendingDag {
    parts: DagParts,
    actors: Vec<PendingActor>,
}

struct PendingActor {
    loc: Loc,
    name: Option<Located<String>>,
    wcets: Vec<PendingWcet>,
    complete: bool,
}

struct PendingWcet {
    level: u64,
    level_loc: Loc,
    value: Duration,
    slots: u64,
    loc: Loc,
}

fn complete(dag: &DagParts) -> bool {
    dag.name.is_some() && dag.period.is_some() && dag.tasks_complete && dag.edges_complete
}

/// The system in the MC-DAG framework's XML, with one slot lasting `slot`. Fails when a
/// period or WCET is not a whole number of slots, or a deadline differs from its period (the
/// format has only one value).
pub fn to_xml(system: &McSystem, slot: Duration) -> Result<String, String> {
    if slot.is_zero() {
        return Err("the slot length must be greater than zero".into());
    }
    let in_slots = |d: Duration, what: &str| -> Result<u64, String> {
        if d.as_nanos().is_multiple_of(slot.as_nanos()) {
            Ok(d.as_nanos() / slot.as_nanos())
        } else {
            Err(format!("{what} {d} is not a whole number of {slot} slots"))
        }
    };
    let levels = system.level_count();
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<mcsystem>\n");
    for dag in &system.dags {
        if dag.deadline != dag.period {
            return Err(format!(
                "DAG `{}` has a deadline ({}) shorter than its period ({}): the XML format has only one value",
                dag.name, dag.deadline, dag.period
            ));
        }
        out.push_str(&format!(
            "    <mcdag deadline=\"{}\" name=\"{}\">\n",
            in_slots(dag.period, &format!("the period of `{}`", dag.name))?,
            escape(&dag.name)
        ));
        for task in &dag.tasks {
            out.push_str(&format!(
                "        <actor name=\"{}\">\n",
                escape(&task.name)
            ));
            for level in 0..levels {
                let value = match task.wcet_at(level) {
                    Some(w) => in_slots(w, &format!("the wcet of `{}/{}`", dag.name, task.name))?,
                    None => 0,
                };
                out.push_str(&format!(
                    "            <wcet number=\"{level}\">{value}</wcet>\n"
                ));
            }
            out.push_str("        </actor>\n");
        }
        out.push_str("        <ports>\n");
        for (i, &(from, to)) in dag.edges.iter().enumerate() {
            out.push_str(&format!(
                "            <port dstActor=\"{}\" name=\"p{i}\" srcActor=\"{}\"/>\n",
                escape(&dag.tasks[to].name),
                escape(&dag.tasks[from].name)
            ));
        }
        out.push_str("        </ports>\n    </mcdag>\n");
    }
    out.push_str(&format!(
        "    <cores number=\"{}\"/>\n    <levels number=\"{levels}\"/>\n</mcsystem>\n",
        system.cores
    ));
    Ok(out)
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 => out.push_str(&format!("&#{};", c as u32)),
            c => out.push(c),
        }
    }
    out
}
