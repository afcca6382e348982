//! Which kind of input a file is: XML by its root element, a kairos TOML or JSON file by the
//! keys of its top level (the table in [`super`]).

use super::{format_of, refusal, InputKind};
use crate::diagnostics::Diagnostic;
use crate::document::{self, Entry, Node, Value};
use crate::positions::position_of;
use std::path::Path;

/// The top-level keys that make each kind of kairos file.
const MARKERS: [(InputKind, &[&str]); 5] = [
    (
        InputKind::Managed,
        &["manager", "rt", "allocations", "best_effort"],
    ),
    (InputKind::Vm, &["vmm", "domains"]),
    (InputKind::McDag, &["levels", "dags"]),
    (
        InputKind::Experiment,
        &[
            "study",
            "utilization",
            "methods",
            "generator",
            "mcdag",
            "samples",
            "simulation_cap",
        ],
    ),
    (InputKind::Workload, &["tasks"]),
];

fn kind_of_key(key: &str) -> Option<InputKind> {
    MARKERS
        .iter()
        .find(|(_, keys)| keys.contains(&key))
        .map(|(kind, _)| *kind)
}

/// The kind of `source`, read from `path`; a file with the keys of two kinds, or XML with a
/// root kairos does not read, is refused with the place that says so. A kairos file that does
/// not parse, or that has none of the kinds' keys, is a periodic workload: its checker reports
/// what is wrong.
pub fn detect(path: &Path, source: &str) -> Result<InputKind, Diagnostic> {
    if looks_like_xml(path, source) {
        return xml_kind(source);
    }
    let Ok(Node {
        value: Value::Table(entries),
        ..
    }) = document::parse(source, format_of(path))
    else {
        return Ok(InputKind::Workload);
    };
    // A study's config names its own parameters, some alike other kinds' keys (the RT-Xen
    // study's `domains` is a count).
    if entries.iter().any(|e| e.key == "study") {
        return Ok(InputKind::Experiment);
    }
    let mut first: Option<(InputKind, &Entry)> = None;
    for entry in &entries {
        let Some(kind) = kind_of_key(&entry.key) else {
            continue;
        };
        match first {
            None => first = Some((kind, entry)),
            Some((seen, by)) if seen != kind => return Err(mixed(seen, by, kind, entry)),
            Some(_) => {}
        }
    }
    Ok(match first {
        Some((kind, _)) => kind,
        None if entries.iter().any(|e| e.key == "overheads") => InputKind::Overheads,
        None => InputKind::Workload,
    })
}

fn mixed(seen: InputKind, by: &Entry, kind: InputKind, entry: &Entry) -> Diagnostic {
    refusal(
        format!(
            "`{}` makes this file {}, but `{}` makes it {}",
            by.key,
            seen.describe(),
            entry.key,
            kind.describe()
        ),
        entry.key_position,
        "a file holds one kind of input: split it, or remove the keys of the other kind",
    )
    .at_path(entry.key.clone())
}

/// XML by the name `.xml` (in any case), or by a first character `<`.
fn looks_like_xml(path: &Path, source: &str) -> bool {
    let named = (path.extension()).is_some_and(|e| e.eq_ignore_ascii_case("xml"));
    named
        || source
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('<')
}

fn xml_kind(source: &str) -> Result<InputKind, Diagnostic> {
    let hint = "kairos reads the MC-DAG framework's <mcsystem> and SimSo's <simulation>";
    let Some((name, offset)) = root_element(source) else {
        // Located at the start, where the root element belongs.
        let start = Some(position_of(source, 0));
        return Err(refusal("no XML element in the file".into(), start, hint));
    };
    match name {
        "mcsystem" => Ok(InputKind::McDagXml),
        "simulation" => Ok(InputKind::SimsoXml),
        other => Err(refusal(
            format!("the root element is <{other}>"),
            Some(position_of(source, offset)),
            hint,
        )),
    }
}

/// The name of the first element of an XML text and its byte offset, past the declaration,
/// comments and a DOCTYPE.
fn root_element(source: &str) -> Option<(&str, usize)> {
    let mut at = 0;
    loop {
        let start = at + source[at..].find('<')?;
        let after = &source[start + 1..];
        let skip = match after {
            _ if after.starts_with('?') => after.find("?>").map(|e| e + 2),
            _ if after.starts_with("!--") => after.find("-->").map(|e| e + 3),
            _ if after.starts_with('!') => after.find('>').map(|e| e + 1),
            _ => {
                let end = after
                    .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                    .unwrap_or(after.len());
                return Some((&after[..end], start));
            }
        };
        at = start + 1 + skip?;
    }
}
