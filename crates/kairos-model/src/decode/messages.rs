//! The decoder's diagnostics: what it says, and the hint it gives, for each problem of shape.

use super::MIN_PERIOD;
use crate::diagnostics::Diagnostic;
use crate::document::{Node, Value};
use crate::duration_text::{DurationTextError, UNITS};

pub(super) fn below_floor(text: &str) -> Diagnostic {
    Diagnostic::warning(format!(
        "period {text:?} is below {MIN_PERIOD}: every period is an event to simulate or dispatch, so each millisecond of schedule would cost over a thousand of them"
    ))
    .with_hint("real-time periods are microseconds to seconds; check the unit (e.g. \"1ms\")")
}

pub(super) fn too_long(text: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "duration {text:?} exceeds the supported maximum of 2^60 ns (about 36.5 years)"
    ))
    .with_hint("real-time periods and budgets are far shorter; check the unit")
}

pub(super) fn duration_hint(e: &DurationTextError) -> String {
    let units: Vec<&str> = UNITS.iter().map(|(u, _)| *u).collect();
    match e {
        DurationTextError::MissingUnit(t) => {
            format!(
                "write a unit after the number: ns, us, ms or s (e.g. \"{}ms\")",
                t.trim()
            )
        }
        DurationTextError::UnknownUnit { .. } => format!("known units: {}", units.join(", ")),
        DurationTextError::Negative(_) => "durations cannot be negative".to_string(),
        DurationTextError::Malformed(_) => {
            "write a decimal number (no exponent) then a unit, e.g. \"1.5ms\"".to_string()
        }
        DurationTextError::TooFine(_) => "kairos counts time in whole nanoseconds".to_string(),
        DurationTextError::TooLarge(_) => "check the unit".to_string(),
    }
}

/// A bare number where a duration belongs; a negative one is told that durations are never
/// negative rather than shown a negative example.
pub(super) fn unitless_duration(node: &Node, path: &str) -> Diagnostic {
    let text = number_text(&node.value);
    let negative = text.starts_with('-');
    let message = match negative {
        true => format!("duration {text} is negative and has no unit"),
        false => format!("duration {text} has no unit"),
    };
    let hint = match negative {
        true => format!(
            "durations are non-negative strings with a unit: ns, us, ms or s (e.g. \"{}ms\")",
            text.trim_start_matches('-')
        ),
        false => format!("durations are strings with a unit: ns, us, ms or s (e.g. \"{text}ms\")"),
    };
    Diagnostic::error(message)
        .at_path(path)
        .at_position(node.position)
        .with_hint(hint)
}

fn number_text(value: &Value) -> String {
    match value {
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        _ => String::new(),
    }
}

pub(super) fn type_error(node: &Node, path: &str, expected: &str, found: &Value) -> Diagnostic {
    let d = Diagnostic::error(format!("expected {expected}, found {}", found.kind_name()))
        .at_position(node.position);
    if path.is_empty() {
        // Only JSON can have a root that is not a table.
        d.with_hint("a workload is an object: {\"cores\": 2, \"tasks\": [...]}")
    } else {
        d.at_path(path)
    }
}
