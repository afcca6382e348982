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
use crate::mc::McSystem;
use crate::mc_load::{
    apply_rules, finish, DagParts, EdgeParts, Loc, Located, McChecked, SystemParts, TaskParts,
};
use crate::positions::LineIndex;
use crate::time::Duration;
use crate::xml;
use roxmltree::Node;

mod elements;
mod write;

pub use write::to_xml;

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
    let hint = "the MC-DAG framework writes <mcsystem> with <mcdag>, <cores> and <levels> elements";
    let document = match xml::parse(source, &reader.lines, hint) {
        Ok(document) => document,
        Err(refused) => {
            reader.out.push(refused);
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

    /// The required `name` attribute, checked as every name is ([`crate::names`]).
    fn name_attr(&mut self, node: Node<'_, '_>, path: &str) -> Option<(String, Loc)> {
        let name = self.required_attr(node, "name", path)?;
        let loc = self.attr_loc(node, "name", path);
        match crate::names::name_problem(name) {
            Some(problem) => {
                self.out.push(loc.put(problem));
                None
            }
            None => Some((name.to_string(), loc)),
        }
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
