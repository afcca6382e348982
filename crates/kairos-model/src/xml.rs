//! The one XML parse of the readers of other tools' files (the MC-DAG framework's and SimSo's):
//! no DTD (its entities can expand a small file into a huge one), every syntax error located,
//! and elements nested no deeper than [`MAX_NESTING`].

use crate::diagnostics::{Diagnostic, Position};
use crate::nesting::{too_deep, MAX_NESTING};
use crate::positions::LineIndex;
use roxmltree::{Document, ParsingOptions};

/// `source` as an XML document, or the error that stops reading it, located, with `hint`.
pub(crate) fn parse<'s>(
    source: &'s str,
    lines: &LineIndex<'_>,
    hint: &str,
) -> Result<Document<'s>, Diagnostic> {
    let parsing = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    let document = Document::parse_with_options(source, parsing)
        .map_err(|e| syntax(source, lines, &e).with_hint(hint))?;
    match too_deep_at(&document) {
        Some(offset) => Err(too_deep(lines, offset, "elements")),
        None => Ok(document),
    }
}

fn syntax(source: &str, lines: &LineIndex<'_>, e: &roxmltree::Error) -> Diagnostic {
    let pos = e.pos();
    let message = e.to_string().replace(&format!(" at {pos}"), "");
    let position = match e {
        // These carry no position: the problem is at the end of the text.
        roxmltree::Error::UnexpectedEndOfStream | roxmltree::Error::UnclosedRootNode => {
            lines.position(source.len())
        }
        roxmltree::Error::DtdDetected => lines.position(source.find("<!DOCTYPE").unwrap_or(0)),
        _ => Position {
            line: pos.row as usize,
            column: pos.col as usize,
        },
    };
    Diagnostic::error(format!("XML syntax: {message}")).at_position(Some(position))
}

/// The offset of the first element deeper than [`MAX_NESTING`], found in one pass over the
/// nodes in document order (each node's depth is its parent's, already known, plus one).
fn too_deep_at(document: &Document<'_>) -> Option<usize> {
    let mut depth = vec![0usize; document.descendants().count() + 1];
    for node in document.root().descendants().skip(1) {
        let parent = node.parent().map_or(0, |p| depth[p.id().get_usize()]);
        let own = parent + usize::from(node.is_element());
        if own > MAX_NESTING {
            return Some(node.range().start);
        }
        depth[node.id().get_usize()] = own;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `<root>` holding `n` elements each inside the one before.
    fn nested(n: usize) -> String {
        format!("<root>\n{}{}\n</root>", "<a>".repeat(n), "</a>".repeat(n))
    }

    #[test]
    fn elements_one_level_too_deep_are_refused_where_they_start() {
        let hint = "a hint";
        let fits = nested(MAX_NESTING - 1);
        assert!(parse(&fits, &LineIndex::new(&fits), hint).is_ok());
        let deep = nested(MAX_NESTING);
        let refused = parse(&deep, &LineIndex::new(&deep), hint).unwrap_err();
        // <root> is level one: the MAX_NESTING-th <a> (three characters each) passes.
        let column = 3 * (MAX_NESTING - 1) + 1;
        assert_eq!(refused.position, Some(Position { line: 2, column }));
        assert!(refused.message.contains("nest deeper"), "{refused:?}");
        let far = nested(100_000);
        let refused = parse(&far, &LineIndex::new(&far), hint).unwrap_err();
        assert_eq!(refused.position, Some(Position { line: 2, column }));
    }

    #[test]
    fn syntax_errors_are_located_with_the_hint() {
        let source = "<root>\n  <a>\n</root>";
        let refused = parse(source, &LineIndex::new(source), "a hint").unwrap_err();
        assert_eq!(refused.position.map(|p| p.line), Some(3));
        assert_eq!(refused.hint.as_deref(), Some("a hint"));
        let cut = "<root>\n  <a>";
        let refused = parse(cut, &LineIndex::new(cut), "a hint").unwrap_err();
        assert_eq!(refused.position, Some(Position { line: 2, column: 6 }));
    }
}
