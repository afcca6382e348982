//! Names from every input kind: `kairos check` refuses, at the field, a name longer than 256
//! characters or holding a control character (which would break the text tables and make the
//! SVG charts unreadable), accepts one of exactly 256, and the commands print their tables for
//! the longest names accepted without a line growing with the name.

mod common;

use common::{stderr, stdout, Scratch};
use std::path::Path;

/// One name field of one input kind: the file (an example, or inline), the name in it (every
/// quoted occurrence is replaced, so references follow) and the field path the checker names.
struct Field {
    file: &'static str,
    source: String,
    name: &'static str,
    path: &'static str,
}

fn example(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("example")
}

const PERIODIC: &str =
    "name = \"w\"\ncores = 1\n\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n";
const VM_VCPUS: &str = "cores = 1\n[[domains]]\nname = \"d\"\nguest = \"gedf\"\n[[domains.vcpus]]\nname = \"v\"\nbudget = \"5ms\"\nperiod = \"10ms\"\n[[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n";

fn fields() -> Vec<Field> {
    let field = |file, source: String, name, path| Field {
        file,
        source,
        name,
        path,
    };
    vec![
        field("w.toml", PERIODIC.into(), "w", "name"),
        field("w.toml", PERIODIC.into(), "a", "tasks[0].name"),
        field(
            "i.toml",
            example("examples/imprecise.toml"),
            "slam",
            "tasks[0].name",
        ),
        field(
            "vm.toml",
            example("examples/vm/two-domains.toml"),
            "two-domains",
            "name",
        ),
        field(
            "vm.toml",
            example("examples/vm/two-domains.toml"),
            "control",
            "domains[0].name",
        ),
        field(
            "vm.toml",
            example("examples/vm/two-domains.toml"),
            "attitude",
            "domains[0].tasks[0].name",
        ),
        field("vm.toml", VM_VCPUS.into(), "v", "domains[0].vcpus[0].name"),
        field(
            "m.toml",
            example("examples/manage/free.toml"),
            "control",
            "rt.name",
        ),
        field(
            "m.toml",
            example("examples/manage/free.toml"),
            "memory-load",
            "best_effort[0].name",
        ),
        field(
            "mc.toml",
            example("examples/mcdag/two-levels.toml"),
            "uav",
            "name",
        ),
        field(
            "mc.toml",
            example("examples/mcdag/two-levels.toml"),
            "flight",
            "dags[0].name",
        ),
        field(
            "mc.toml",
            example("examples/mcdag/two-levels.toml"),
            "sense",
            "dags[0].tasks[0].name",
        ),
        field(
            "mc.xml",
            example("examples/mcdag/xml/test-6-0.xml"),
            "genned-1-ed-40.0-1",
            "mcdag[0].name",
        ),
        field(
            "mc.xml",
            example("examples/mcdag/xml/test-6-0.xml"),
            "D1N25",
            "mcdag[0].actor[0].name",
        ),
    ]
}

/// `field`'s file with its name written as `written` (already escaped for the format), and the
/// 1-based line of the name's definition (`name = ...` in TOML, `name="..."` in XML).
fn with_name(field: &Field, written: &str) -> (String, usize) {
    let source = field
        .source
        .replace(&format!("\"{}\"", field.name), &format!("\"{written}\""));
    let definition = match field.file.ends_with(".xml") {
        true => format!("name=\"{written}\""),
        false => format!("name = \"{written}\""),
    };
    let line = source
        .lines()
        .position(|l| l.contains(&definition))
        .expect("the definition")
        + 1;
    (source, line)
}

/// `kairos check` on `field` named `written`: exit code and report.
fn check(field: &Field, written: &str) -> (i32, String, usize) {
    let (source, line) = with_name(field, written);
    let scratch = Scratch::new("names");
    scratch.write(field.file, source);
    let out = scratch.kairos(&["check", field.file]);
    (out.status.code().expect("an exit code"), stdout(&out), line)
}

#[track_caller]
fn refused(field: &Field, written: &str, message: &str) {
    let (code, report, line) = check(field, written);
    let at = format!("{}:{line}:", field.file);
    let what = format!(": error: {}: {message}", field.path);
    let found = report
        .lines()
        .any(|l| l.starts_with(&at) && l.contains(&what));
    assert!(
        found,
        "{} {}: no `{at}...{what}` in\n{report}",
        field.file, field.path
    );
    assert_eq!(code, 2, "{report}");
}

#[test]
fn a_name_over_256_characters_is_refused_where_it_is_in_every_kind() {
    for field in fields() {
        let (code, report, _) = check(&field, &"n".repeat(256));
        assert!(
            code != 2 && !report.contains("error"),
            "{} {}: {report}",
            field.file,
            field.path
        );
        refused(&field, &"n".repeat(257), "the name is 257 characters long");
    }
}

#[test]
fn a_control_character_in_a_name_is_refused_where_it_is_in_every_kind() {
    for field in fields() {
        let (written, code) = match field.file.ends_with(".xml") {
            true => ("a&#9;b", "U+0009"),
            false => ("a\\u0000b", "U+0000"),
        };
        refused(
            &field,
            written,
            &format!("the name holds the control character {code} (character 2)"),
        );
        if !field.file.ends_with(".xml") {
            refused(
                &field,
                "a\\u001bb",
                "the name holds the control character U+001B",
            );
        }
    }
}

#[test]
fn an_empty_or_blank_name_is_refused_where_it_is_in_every_kind() {
    for field in fields() {
        refused(&field, "", "the name is ");
        refused(&field, "  ", "the name is only blanks");
    }
}

/// A 65,536-character name used to crash the text table; it is now refused before any run.
#[test]
fn simulate_refuses_a_huge_name_at_its_field_instead_of_crashing() {
    for field in fields()
        .iter()
        .filter(|f| ["w.toml", "vm.toml"].contains(&f.file))
    {
        let (source, line) = with_name(field, &"n".repeat(65_536));
        let scratch = Scratch::new("names-simulate");
        scratch.write(field.file, source);
        let out = scratch.kairos(&["simulate", field.file]);
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            &err[..err.len().min(2000)]
        );
        let at = format!("{}:{line}:", field.file);
        assert!(
            err.contains(&at) && err.contains(field.path),
            "{}",
            &err[..err.len().min(2000)]
        );
    }
}

/// Names of 256 characters that differ only at their end: every command's text keeps its lines
/// short (names are elided in the middle) and tells the two apart.
#[test]
fn tables_elide_the_longest_names_and_keep_them_apart() {
    let long = |end: &str| format!("{}{end}", "n".repeat(254));
    let periodic = format!(
        "cores = 2\n[[tasks]]\nname = \"{}\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n\
         [[tasks]]\nname = \"{}\"\nwcet = \"1ms\"\nperiod = \"5ms\"\n",
        long("_1"),
        long("_2")
    );
    let vm = example("examples/vm/two-domains.toml")
        .replace("\"control\"", &format!("\"{}\"", long("_1")))
        .replace("\"vision\"", &format!("\"{}\"", long("_2")));
    let scratch = Scratch::new("names-tables");
    scratch.write("w.toml", periodic);
    scratch.write("vm.toml", vm);
    for args in [
        vec!["simulate", "w.toml", "--gantt", "w.svg"],
        vec!["simulate", "vm.toml", "--gantt", "vm.svg"],
        vec!["analyze", "w.toml"],
    ] {
        let out = scratch.kairos(&args);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("n…n")).collect();
        if args[0] == "simulate" {
            assert!(rows.iter().any(|r| r.contains("n_1 ")), "{args:?}:\n{text}");
            assert!(rows.iter().any(|r| r.contains("n_2 ")), "{args:?}:\n{text}");
        }
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(
            widest < 200,
            "{args:?}: a line of {widest} characters:\n{text}"
        );
    }
}
