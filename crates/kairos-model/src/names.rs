//! What a name may hold. Names (of workloads, tasks, DAGs, levels, domains, VCPUs, programs)
//! label text tables, traces, Perfetto files and SVG charts, so every input format checks them
//! with the one rule here: at most [`MAX_NAME_CHARS`] characters, and no character that a
//! terminal, a table or an XML document cannot carry (XML 1.0, section 2.2, production `Char`).

use crate::diagnostics::Diagnostic;

/// The longest name accepted, in characters: far above any label a table or a chart shows.
pub const MAX_NAME_CHARS: usize = 256;

/// Whether XML 1.0 allows `c` in a document (production `Char`; Rust's `char` already excludes
/// the surrogates).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || !(c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}')
}

/// `text` without the characters XML forbids: the last guard of every SVG and XML writer.
pub fn xml_safe(text: &str) -> std::borrow::Cow<'_, str> {
    match text.chars().all(is_xml_char) {
        true => std::borrow::Cow::Borrowed(text),
        false => std::borrow::Cow::Owned(text.chars().filter(|&c| is_xml_char(c)).collect()),
    }
}

/// A character a name must not hold: a control character (C0, DEL, C1) or one XML forbids.
fn forbidden(c: char) -> bool {
    c.is_control() || !is_xml_char(c)
}

/// What is wrong with `name`, without its location (the caller adds the field's path and
/// position). The message never repeats the name: it may be huge or hold the control character.
pub fn name_problem(name: &str) -> Option<Diagnostic> {
    if name.trim().is_empty() {
        let what = if name.is_empty() {
            "empty"
        } else {
            "only blanks"
        };
        return Some(Diagnostic::error(format!("the name is {what}")).with_hint(
            "names tell tasks apart in tables, traces and charts: give it a visible name",
        ));
    }
    if let Some((at, c)) = name.chars().enumerate().find(|&(_, c)| forbidden(c)) {
        return Some(
            Diagnostic::error(format!(
                "the name holds the control character U+{:04X} (character {})",
                u32::from(c),
                at + 1
            ))
            .with_hint("names label tables, traces and SVG charts, which cannot carry control characters: remove it"),
        );
    }
    let length = name.chars().count();
    (length > MAX_NAME_CHARS).then(|| {
        Diagnostic::error(format!(
            "the name is {length} characters long, over the limit of {MAX_NAME_CHARS}"
        ))
        .with_hint("names label tables, traces and charts: shorten it")
    })
}

/// What is wrong with `name` as the name of an output folder (an experiment's `results/NAME`):
/// a name's problems, or a path separator or dot name that would put the folder elsewhere.
pub fn folder_name_problem(name: &str) -> Option<Diagnostic> {
    if let Some(problem) = name_problem(name) {
        return Some(problem);
    }
    let elsewhere = name.contains(['/', '\\']) || name == "." || name == "..";
    elsewhere.then(|| {
        Diagnostic::error("the name holds a path separator, or is `.` or `..`")
            .with_hint("the name is the output folder results/NAME: use a plain name (choose another folder with --out-dir)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_up_to_the_limit_of_printable_characters_pass() {
        assert!(name_problem("flight/sense é ✓").is_none());
        assert!(name_problem(&"é".repeat(MAX_NAME_CHARS)).is_none());
    }

    #[test]
    fn empty_and_blank_names_are_refused() {
        for (name, what) in [
            ("", "empty"),
            ("   ", "only blanks"),
            ("\u{3000}", "only blanks"),
        ] {
            let d = name_problem(name).unwrap_or_else(|| panic!("{name:?} passed"));
            assert_eq!(d.message, format!("the name is {what}"));
        }
        assert!(name_problem(" a ").is_none());
    }

    #[test]
    fn a_folder_name_stays_in_its_folder() {
        for name in ["../x", "a/b", "a\\b", ".", ".."] {
            assert!(folder_name_problem(name).is_some(), "{name:?} passed");
        }
        assert!(folder_name_problem("").is_some());
        assert!(folder_name_problem("study-1.2").is_none());
    }

    #[test]
    fn a_name_one_character_over_the_limit_is_refused() {
        let d = name_problem(&"é".repeat(MAX_NAME_CHARS + 1)).expect("refused");
        assert!(d.is_error());
        assert!(d.message.contains("257 characters"), "{}", d.message);
    }

    #[test]
    fn every_control_character_is_refused_with_its_place() {
        for c in [
            '\0', '\u{1}', '\t', '\n', '\r', '\u{1b}', '\u{7f}', '\u{85}', '\u{FFFF}',
        ] {
            let d = name_problem(&format!("ab{c}")).unwrap_or_else(|| panic!("{c:?} passed"));
            let code = format!("U+{:04X} (character 3)", u32::from(c));
            assert!(d.message.contains(&code), "{}", d.message);
        }
    }

    #[test]
    fn xml_safe_drops_what_xml_forbids_and_keeps_the_rest() {
        assert_eq!(xml_safe("a\0b\u{1}c\td\u{FFFE}e\u{FFFF}"), "abc\tde");
        assert!(matches!(xml_safe("plain é"), std::borrow::Cow::Borrowed(_)));
    }
}
