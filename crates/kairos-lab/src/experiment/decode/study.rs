//! Readers the studies' configs share (`study = "..."`): a config read into a study, every
//! problem at once and located, and the values both studies take alike.

use super::Reader;
use kairos_model::decode::{Decoder, ZeroAllowed};
use kairos_model::document::{self, Entry, Node, Value};
use kairos_model::{Diagnostics, Duration, Format};

/// The study `read` makes of `source`, when there is no error, and every problem in source
/// order.
pub fn check_with<T>(
    source: &str,
    read: impl FnOnce(&mut Reader, &Node) -> Option<T>,
) -> (Option<T>, Diagnostics) {
    let root = match document::parse(source, Format::Toml) {
        Ok(root) => root,
        Err(diagnostics) => return (None, diagnostics),
    };
    let mut reader = Reader(Decoder::default());
    let study = read(&mut reader, &root);
    let mut diagnostics = reader.0.diagnostics;
    diagnostics.sort_by_position();
    (study.filter(|_| !diagnostics.has_errors()), diagnostics)
}

impl Reader {
    /// A top-level key read with `read` when present.
    pub(in crate::experiment) fn top<T>(
        &mut self,
        entries: &[Entry],
        key: &str,
        read: impl FnOnce(&mut Reader, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        self.optional(entries, key, "", read)
    }

    /// The study's `name`, its output folder's.
    pub(in crate::experiment) fn folder_name(&mut self, entries: &[Entry]) -> Option<String> {
        self.top(entries, "name", |r, n, p| r.0.folder_name(n, p))
    }

    /// A string that must be one of `allowed`.
    pub(in crate::experiment) fn choice(
        &mut self,
        node: &Node,
        path: &str,
        allowed: &[&str],
        hint: &str,
    ) -> Option<String> {
        let value = self.0.string(node, path)?;
        if allowed.contains(&value.as_str()) {
            return Some(value);
        }
        self.report(node, path, &format!("unknown value {value:?}"), Some(hint));
        None
    }

    /// `periods = ["5ms", "50ms"]`: a range of task periods in positive whole milliseconds.
    pub(in crate::experiment) fn period_range(
        &mut self,
        node: &Node,
        path: &str,
        hint: &str,
    ) -> Option<(u64, u64)> {
        let items = match &node.value {
            Value::Array(items) if items.len() == 2 => items,
            _ => {
                self.report(node, path, "expected [min, max]", Some(hint));
                return None;
            }
        };
        let ms = Duration::from_millis(1).as_nanos();
        let mut bound = |i: usize| {
            let at = format!("{path}[{i}]");
            let d = self.0.duration(&items[i], &at, ZeroAllowed::No)?;
            if d.as_nanos() % ms != 0 {
                self.report(&items[i], &at, "a whole number of milliseconds", Some(hint));
                return None;
            }
            Some(d.as_nanos() / ms)
        };
        // Both bounds read before either refuses: every problem at once.
        let (min, max) = (bound(0), bound(1));
        let (min, max) = (min?, max?);
        if min > max {
            self.report(node, path, &format!("{min}ms is above {max}ms"), Some(hint));
            return None;
        }
        Some((min, max))
    }
}
