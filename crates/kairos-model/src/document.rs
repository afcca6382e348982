//! A format-neutral tree of the input with source positions.
//!
//! TOML and JSON are first parsed into this tree, then decoded into the model by
//! [`crate::decode`]. Decoding from a tree, rather than with serde derive, lets `kairos check`
//! report every problem at once (serde stops at the first) with the position of the offending
//! value, and keeps one set of rules for both formats.

use crate::diagnostics::{Diagnostic, Diagnostics, Position};
use crate::nesting;
use crate::positions::LineIndex;

/// A value of the input and where it starts in the source (TOML always; JSON has no positions
/// for values).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub position: Option<Position>,
}

/// The shapes a value can take.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    String(String),
    Integer(i128),
    Float(f64),
    Bool(bool),
    /// TOML dates and times; no field of the model takes them.
    Other(&'static str),
    Array(Vec<Node>),
    /// Entries in source order (key, key position, value).
    Table(Vec<Entry>),
}

/// One `key = value` of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_position: Option<Position>,
    pub node: Node,
}

impl Value {
    /// What the user wrote, in words, for "expected X, found Y" messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Other(kind) => kind,
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// The input formats, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Format {
    /// `.json` is JSON; everything else is TOML.
    pub fn from_path(path: &str) -> Format {
        if path.to_ascii_lowercase().ends_with(".json") {
            Format::Json
        } else {
            Format::Toml
        }
    }
}

/// Parses `source` into a tree; on syntax errors returns every one the parser could recover.
pub fn parse(source: &str, format: Format) -> Result<Node, Diagnostics> {
    match format {
        Format::Toml => parse_toml(source),
        Format::Json => parse_json(source),
    }
}

fn parse_toml(source: &str) -> Result<Node, Diagnostics> {
    let lines = LineIndex::new(source);
    if let Some(offset) = nesting::toml_too_deep(source) {
        let what = "table headers, dotted keys, arrays and inline tables";
        return Err(Diagnostics(vec![nesting::too_deep(&lines, offset, what)]));
    }
    let (table, errors) = toml::de::DeTable::parse_recoverable(source);
    if !errors.is_empty() {
        let mut diagnostics = Diagnostics::default();
        // The parser's nesting limit has no span (met while it recovers from an earlier error,
        // where the scan above read the text otherwise): it is placed at the deepest point.
        for e in errors {
            let deepest = || lines.position(nesting::toml_deepest(source));
            let position = Some(e.span().map_or_else(deepest, |s| lines.position(s.start)));
            diagnostics.push(
                Diagnostic::error(format!("TOML syntax: {}", e.message().trim_end()))
                    .at_position(position)
                    .with_hint(
                        "see https://toml.io for the syntax; durations are strings: wcet = \"2ms\"",
                    ),
            );
        }
        return Err(diagnostics);
    }
    let position = Some(lines.position(table.span().start));
    Ok(Node {
        value: toml_table(&lines, table.get_ref()),
        position,
    })
}

fn toml_table(lines: &LineIndex<'_>, table: &toml::de::DeTable<'_>) -> Value {
    Value::Table(
        table
            .iter()
            .map(|(key, value)| Entry {
                key: key.get_ref().to_string(),
                key_position: Some(lines.position(key.span().start)),
                node: toml_node(lines, value),
            })
            .collect(),
    )
}

fn toml_node(lines: &LineIndex<'_>, value: &toml::Spanned<toml::de::DeValue<'_>>) -> Node {
    use toml::de::DeValue;
    let converted = match value.get_ref() {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => i128::from_str_radix(&i.as_str().replace('_', ""), i.radix())
            .map(Value::Integer)
            .unwrap_or(Value::Other("an out-of-range integer")),
        DeValue::Float(f) => f
            .as_str()
            .replace('_', "")
            .parse()
            .map(Value::Float)
            .unwrap_or(Value::Other("a float")),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(_) => Value::Other("a date-time"),
        DeValue::Array(items) => Value::Array(items.iter().map(|v| toml_node(lines, v)).collect()),
        DeValue::Table(t) => toml_table(lines, t),
    };
    Node {
        value: converted,
        position: Some(lines.position(value.span().start)),
    }
}

fn parse_json(source: &str) -> Result<Node, Diagnostics> {
    // Editors on some systems start UTF-8 files with a byte-order mark; TOML accepts it, and so
    // does kairos for JSON (serde_json does not).
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    match serde_json::from_str::<serde_json::Value>(source) {
        Ok(value) => Ok(json_node(value)),
        Err(e) => {
            // serde_json gives column 0 at the very start of a line (e.g. an empty file).
            let position = (e.line() > 0).then(|| Position {
                line: e.line(),
                column: e.column().max(1),
            });
            let message = json_message(&e);
            let mut diagnostic =
                Diagnostic::error(format!("JSON syntax: {message}")).at_position(position);
            if let Some(hint) = json_hint(&message) {
                diagnostic = diagnostic.with_hint(hint);
            }
            let mut diagnostics = Diagnostics::default();
            diagnostics.push(diagnostic);
            Err(diagnostics)
        }
    }
}

/// A hint for the JSON mistakes people make most, by serde_json's message; none otherwise.
fn json_hint(message: &str) -> Option<&'static str> {
    match message {
        "trailing comma" => Some("JSON allows no comma after the last item of an object or array"),
        "key must be a string" => Some("JSON keys are in double quotes: \"wcet\": \"2ms\""),
        m if m.starts_with("expected `,`") => {
            Some("items of a JSON object or array are separated by commas")
        }
        m if m.starts_with("EOF while parsing") => {
            Some("the file ends before the JSON does: it is empty, or a } or ] is missing")
        }
        m if m.starts_with("expected value") => {
            Some("a JSON value is a string in double quotes (durations: \"2ms\"), a number, an object or an array")
        }
        _ => None,
    }
}

/// serde_json appends " at line L column C" to its messages; the position is shown already.
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    }
}

fn json_node(value: serde_json::Value) -> Node {
    use serde_json::Value as J;
    let converted = match value {
        J::Null => Value::Other("null"),
        J::Bool(b) => Value::Bool(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i128::from(i)),
            None => match n.as_u64() {
                Some(u) => Value::Integer(i128::from(u)),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
        },
        J::String(s) => Value::String(s),
        J::Array(items) => Value::Array(items.into_iter().map(json_node).collect()),
        J::Object(map) => Value::Table(
            map.into_iter()
                .map(|(key, v)| Entry {
                    key,
                    key_position: None,
                    node: json_node(v),
                })
                .collect(),
        ),
    };
    Node {
        value: converted,
        position: None,
    }
}
