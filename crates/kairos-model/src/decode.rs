//! Decoding the format-neutral tree ([`crate::document`]) into the model's fields, collecting
//! every problem of shape: unknown keys (with the closest known key), missing fields, wrong
//! types, durations that do not parse. Rules that relate fields to each other live in
//! [`crate::validate`].

mod messages;

use crate::diagnostics::{Diagnostic, Diagnostics, Position};
use crate::document::{Entry, Node, Value};
use crate::duration_text::{parse_duration, DurationTextError};
use crate::time::Duration;
use messages::{below_floor, duration_hint, too_long, type_error, unitless_duration};
use std::collections::HashMap;

/// The longest duration accepted anywhere (2^60 ns, about 36.5 years). Keeping every input
/// below it means sums of a few durations can never overflow 64-bit nanoseconds.
pub const MAX_DURATION: Duration = Duration::from_nanos(1 << 60);

/// The shortest period (of a task, a DAG, a VCPU, a manager, a credit quantum, a minimum
/// inter-arrival time) taken without a warning: each period is at least one event to simulate
/// or dispatch, so below it a millisecond of schedule costs thousands of events per task.
pub const MIN_PERIOD: Duration = Duration::from_micros(1);

/// The most cores a workload may name.
pub const MAX_CORES: usize = 4096;

pub const TOP_LEVEL_KEYS: [&str; 4] = ["name", "cores", "tasks", "overheads"];
pub const TASK_KEYS: [&str; 10] = [
    "name",
    "wcet",
    "bcet",
    "period",
    "deadline",
    "offset",
    "kind",
    "max_interarrival",
    "priority",
    "core",
];
pub const OVERHEAD_KEYS: [&str; 7] = [
    "scheduling",
    "context_switch",
    "migration",
    "release",
    "release_latency",
    "ipi",
    "part_callback",
];

/// The most criticality levels a mixed-criticality system may name.
pub const MAX_LEVELS: usize = 64;

/// Keys of a mixed-criticality system file ([`crate::mc_load`]).
pub const MC_TOP_LEVEL_KEYS: [&str; 4] = ["name", "cores", "levels", "dags"];
/// Keys of one `[[dags]]` table.
pub const DAG_KEYS: [&str; 5] = ["name", "period", "deadline", "edges", "tasks"];
/// Keys of one `[[dags.tasks]]` table.
pub const MC_TASK_KEYS: [&str; 2] = ["name", "wcet"];

/// Where each decoded field came from, by field path, so later checks can point at it. Every
/// field given in the file is present, with no position in JSON.
#[derive(Clone, Debug, Default)]
pub struct SourceMap(HashMap<String, Option<Position>>);

impl SourceMap {
    pub fn get(&self, path: &str) -> Option<Position> {
        self.0.get(path).copied().flatten()
    }
    /// Whether the file gives the field at `path` (in either format).
    pub fn contains(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }

    /// The first position given at `path` or in a field inside it (a table's is its first
    /// field's).
    pub fn first_within(&self, path: &str) -> Option<Position> {
        let inside = |key: &str| {
            key.strip_prefix(path)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        (self.0.iter())
            .filter(|(key, _)| inside(key))
            .filter_map(|(_, at)| *at)
            .min()
    }
}

/// Whether zero is a meaningful value for a duration field.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ZeroAllowed {
    Yes,
    No,
}

/// Collects diagnostics and positions while fields are read.
#[derive(Default)]
pub struct Decoder {
    pub diagnostics: Diagnostics,
    pub source_map: SourceMap,
}

impl Decoder {
    fn report(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// The entries of a table, or an error if `node` is not a table.
    pub fn table<'n>(&mut self, node: &'n Node, path: &str) -> Option<&'n [Entry]> {
        match &node.value {
            Value::Table(entries) => Some(entries),
            other => {
                self.report(type_error(node, path, "a table", other));
                None
            }
        }
    }

    /// Reports keys not in `known`, suggesting the closest known key.
    pub fn reject_unknown_keys(&mut self, entries: &[Entry], known: &[&str], path: &str) {
        for entry in entries.iter().filter(|e| !known.contains(&e.key.as_str())) {
            let hint = match closest(&entry.key, known) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!("known keys here: {}", known.join(", ")),
            };
            self.report(
                Diagnostic::error(format!("unknown key `{}`", entry.key))
                    .at_path(join(path, &entry.key))
                    .at_position(entry.key_position.or(entry.node.position))
                    .with_hint(hint),
            );
        }
    }

    /// The value of `key`, remembering its position under its path.
    pub fn field<'n>(&mut self, entries: &'n [Entry], key: &str, path: &str) -> Option<&'n Node> {
        let entry = entries.iter().find(|e| e.key == key)?;
        self.source_map
            .0
            .insert(join(path, key), entry.node.position);
        Some(&entry.node)
    }

    /// Like [`Decoder::field`], but a missing key is an error.
    pub fn required<'n>(
        &mut self,
        entries: &'n [Entry],
        key: &str,
        path: &str,
        table_position: Option<Position>,
        hint: &str,
    ) -> Option<&'n Node> {
        let node = self.field(entries, key, path);
        if node.is_none() {
            let location = if path.is_empty() {
                String::from("the top level")
            } else {
                path.to_string()
            };
            self.report(
                Diagnostic::error(format!("missing field `{key}` in {location}"))
                    .at_path(join(path, key))
                    .at_position(table_position)
                    .with_hint(hint),
            );
        }
        node
    }

    /// The items of an array of tables, or an error naming what was found instead.
    pub fn array_of_tables<'n>(
        &mut self,
        node: &'n Node,
        path: &str,
        hint: &str,
    ) -> Option<&'n [Node]> {
        match &node.value {
            Value::Array(items) => Some(items),
            other => {
                self.report(
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

    pub fn string(&mut self, node: &Node, path: &str) -> Option<String> {
        match &node.value {
            Value::String(s) => Some(s.clone()),
            other => {
                self.report(type_error(node, path, "a string", other));
                None
            }
        }
    }

    /// A name: a string that passes [`crate::names::name_problem`], else `None` with the
    /// problem reported at the field, so a bad name reaches no later rule or message.
    pub fn name(&mut self, node: &Node, path: &str) -> Option<String> {
        self.name_by(node, path, crate::names::name_problem)
    }

    /// The name of an output folder: a name with no path separator
    /// ([`crate::names::folder_name_problem`]).
    pub fn folder_name(&mut self, node: &Node, path: &str) -> Option<String> {
        self.name_by(node, path, crate::names::folder_name_problem)
    }

    fn name_by(
        &mut self,
        node: &Node,
        path: &str,
        problem: fn(&str) -> Option<Diagnostic>,
    ) -> Option<String> {
        let name = self.string(node, path)?;
        match problem(&name) {
            Some(problem) => {
                self.report(problem.at_path(path).at_position(node.position));
                None
            }
            None => Some(name),
        }
    }

    /// A non-negative integer no larger than `max`.
    pub fn count(&mut self, node: &Node, path: &str, max: u64) -> Option<u64> {
        match &node.value {
            Value::Integer(i) if *i < 0 => {
                self.report(
                    Diagnostic::error(format!("must not be negative, found {i}"))
                        .at_path(path)
                        .at_position(node.position),
                );
                None
            }
            Value::Integer(i) if *i > i128::from(max) => {
                self.report(
                    Diagnostic::error(format!("{i} is larger than the supported maximum {max}"))
                        .at_path(path)
                        .at_position(node.position),
                );
                None
            }
            Value::Integer(i) => u64::try_from(*i).ok(),
            other => {
                self.report(type_error(node, path, "an integer", other));
                None
            }
        }
    }

    /// A duration written as a string with a unit.
    pub fn duration(&mut self, node: &Node, path: &str, zero: ZeroAllowed) -> Option<Duration> {
        let text = match &node.value {
            Value::String(s) => s,
            Value::Integer(_) | Value::Float(_) => {
                self.report(unitless_duration(node, path));
                return None;
            }
            other => {
                self.report(type_error(
                    node,
                    path,
                    "a duration string such as \"2ms\"",
                    other,
                ));
                return None;
            }
        };
        let located = |d: Diagnostic| d.at_path(path).at_position(node.position);
        match parse_duration(text) {
            Ok(d) if d.is_zero() && zero == ZeroAllowed::No => {
                self.report(located(Diagnostic::error("must be greater than zero")));
                None
            }
            // Also for values beyond 64-bit nanoseconds, so that users see a single limit.
            Ok(d) if d > MAX_DURATION => {
                self.report(located(too_long(text)));
                None
            }
            Err(DurationTextError::TooLarge(_)) => {
                self.report(located(too_long(text)));
                None
            }
            Ok(d) if d < MIN_PERIOD && recurs(path) => {
                self.report(located(below_floor(text)));
                Some(d)
            }
            Ok(d) => Some(d),
            Err(e) => {
                let hint = duration_hint(&e);
                self.report(located(Diagnostic::error(e.to_string()).with_hint(hint)));
                None
            }
        }
    }
}

/// Whether the field at `path` is a period of something that recurs: every field named
/// `period` or `..._period`, minimum inter-arrival times and the credit scheduler's quantum.
fn recurs(path: &str) -> bool {
    let key = path.rsplit('.').next().unwrap_or(path);
    key.ends_with("period") || key == "max_interarrival" || key == "quantum"
}

/// `path.key`, or `key` at the top level.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The known key closest to `key` by edit distance, if it is close enough to be a typo.
fn closest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let lowered = key.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&lowered, k), *k))
        .filter(|(distance, k)| *distance <= (k.len() / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(closest("perod", &TASK_KEYS), Some("period"));
        assert_eq!(closest("WCET", &TASK_KEYS), Some("wcet"));
        assert_eq!(closest("deadlin", &TASK_KEYS), Some("deadline"));
        assert_eq!(closest("colour", &TASK_KEYS), None);
    }
}
