use super::*;
use crate::document::{parse, Format};
use crate::Position;

/// `n` segments of a dotted key: `k.k.k`.
fn dotted(n: usize) -> String {
    vec!["k"; n].join(".")
}

/// Where `source` is refused as TOML, if it is refused for its nesting.
fn refused_at(source: &str) -> Option<Position> {
    let diagnostics = parse(source, Format::Toml).err()?;
    let d = diagnostics
        .iter()
        .find(|d| d.message.contains("nest deeper"))?;
    assert!(d.position.is_some(), "{d:?}");
    d.position
}

#[test]
fn a_dotted_key_one_segment_too_long_is_refused_at_that_segment() {
    let fits = format!("x = 1\n{} = 1\n", dotted(MAX_NESTING));
    assert!(parse(&fits, Format::Toml).is_ok());
    // The segment past the bound starts after MAX_NESTING segments of "k." (two characters).
    let deep = format!("x = 1\n{} = 1\n", dotted(MAX_NESTING + 1));
    let column = 2 * MAX_NESTING + 1;
    assert_eq!(refused_at(&deep), Some(Position { line: 2, column }));
    // Thousands of segments: the TOML parser's own refusal would have no position.
    let far = format!("{} = 1\n", dotted(5000));
    assert_eq!(refused_at(&far), Some(Position { line: 1, column }));
}

#[test]
fn table_headers_count_with_the_keys_under_them() {
    let header = format!("[{}]\nv = 1\n", dotted(MAX_NESTING - 1));
    assert!(parse(&header, Format::Toml).is_ok());
    let under = format!("[{}]\nv.w = 1\n", dotted(MAX_NESTING - 1));
    assert_eq!(refused_at(&under), Some(Position { line: 2, column: 3 }));
    let array = format!("[[{}]]\n", dotted(MAX_NESTING + 1));
    let column = 2 + 2 * MAX_NESTING + 1;
    assert_eq!(refused_at(&array), Some(Position { line: 1, column }));
}

#[test]
fn arrays_and_inline_tables_are_refused_at_the_bracket_past_the_bound() {
    let arrays = |n: usize| format!("a = {}{}\n", "[".repeat(n), "]".repeat(n));
    assert!(parse(&arrays(MAX_NESTING - 1), Format::Toml).is_ok());
    // The key `a` is one level, each bracket one more: the bracket at depth MAX_NESTING + 1.
    let column = 4 + MAX_NESTING;
    assert_eq!(
        refused_at(&arrays(MAX_NESTING)),
        Some(Position { line: 1, column })
    );
    assert_eq!(
        refused_at(&arrays(5000)),
        Some(Position { line: 1, column })
    );
    let tables = |n: usize| format!("a = {}1{}\n", "{b = ".repeat(n), "}".repeat(n));
    assert!(parse(&tables(MAX_NESTING / 2 - 1), Format::Toml).is_ok());
    // `a` 1, then each `{b = ` two levels (the table and its key): the table that passes.
    let refused = refused_at(&tables(3000)).unwrap();
    let column = 6 + 5 * (MAX_NESTING / 2 - 1);
    assert_eq!(refused, Position { line: 1, column });
}

#[test]
fn strings_and_comments_do_not_count() {
    let brackets = "[".repeat(200);
    let dots = dotted(200);
    let source = format!(
        "# {dots} {brackets}\nname = \"{brackets}\\\"{dots}\"\nnote = '{dots}'\n\
         text = \"\"\"\n{brackets}\n{dots}\"\"\"\"\nraw = '''{brackets}\n''''\n\
         \"{dots}\".b = 1\nlist = [\n  [1.5, 2.5],\n  {{ x.y = \"{brackets}\" }},\n]\n\
         [table]\nwhen = 1979-05-27T07:32:00.999\n"
    );
    assert!(toml_too_deep(&source).is_none());
    assert!(parse(&source, Format::Toml).is_ok(), "{source}");
}

#[test]
fn every_example_is_within_the_bound() {
    for source in [
        include_str!("../../../../examples/demo.toml"),
        include_str!("../../../../examples/imprecise.toml"),
        include_str!("../../../../examples/mcdag/three-levels.toml"),
        include_str!("../../../../examples/vm/two-domains.toml"),
    ] {
        assert_eq!(toml_too_deep(source), None);
    }
}

#[test]
fn a_header_of_dots_without_keys_is_refused_at_the_dot_past_the_bound() {
    // `[a.....b]`: the parser recurses at each dot before it sees the empty keys.
    let dots = ".".repeat(MAX_NESTING + 40);
    let header = format!("x = 1\n[a{dots}b]\n");
    // "a" (column 2) is segment 1; the dots start at column 3 and the k-th makes segment k
    // from the second on: segment MAX_NESTING + 1 is the dot at column 3 + MAX_NESTING.
    assert_eq!(
        refused_at(&header),
        Some(Position {
            line: 2,
            column: 3 + MAX_NESTING
        })
    );
    let fits = format!("[a{}b]\n", ".".repeat(MAX_NESTING - 2));
    assert!(refused_at(&fits).is_none());
}
