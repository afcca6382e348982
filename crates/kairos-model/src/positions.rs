//! Line and column of byte offsets in one text. Every reader finds its positions here, built
//! once per text: a position found by rescanning the text from its start (or from the start
//! of its line, which is the whole file when the file is one line) makes a file with many
//! problems quadratic to report.

use crate::diagnostics::Position;

/// Positions of byte offsets in one text, each found in logarithmic time.
pub(crate) struct LineIndex<'s> {
    source: &'s str,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    /// For each character of more than one byte, in text order: its offset, and the bytes
    /// beyond one of it and of every such character before it (so a column is a difference
    /// of byte offsets less a difference of these counts).
    wide: Vec<(usize, usize)>,
}

impl<'s> LineIndex<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut extra = 0;
        let wide = (source.char_indices())
            .filter(|(_, c)| c.len_utf8() > 1)
            .map(|(i, c)| {
                extra += c.len_utf8() - 1;
                (i, extra)
            })
            .collect();
        LineIndex {
            source,
            starts,
            wide,
        }
    }

    /// The position of byte `offset` (the end of the text past it; columns count characters).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.source.len());
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line - 1];
        let column = offset - start - (self.extra_before(offset) - self.extra_before(start)) + 1;
        Position { line, column }
    }

    /// The bytes beyond one of the characters that start before `offset`.
    fn extra_before(&self, offset: usize) -> usize {
        match self.wide.partition_point(|&(at, _)| at < offset) {
            0 => 0,
            n => self.wide[n - 1].1,
        }
    }
}

/// The position of byte `offset` of `source`, for a text with one position to find.
pub(crate) fn position_of(source: &str, offset: usize) -> Position {
    LineIndex::new(source).position(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position by the definition: lines before the offset, characters since the line's
    /// start.
    fn by_scanning(source: &str, offset: usize) -> Position {
        let before = &source[..offset.min(source.len())];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Position {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }

    #[test]
    fn the_index_agrees_with_scanning_at_every_character() {
        let source = "a = 1\nbé = \"ü\"\n\n[[x]]\ny = 2 # 日本\nz€";
        let lines = LineIndex::new(source);
        for (offset, _) in source.char_indices().chain([(source.len(), ' ')]) {
            assert_eq!(
                lines.position(offset),
                by_scanning(source, offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn counts_lines_and_characters() {
        let source = "abc\nxyz";
        assert_eq!(position_of(source, 0), Position { line: 1, column: 1 });
        assert_eq!(position_of(source, 4), Position { line: 2, column: 1 });
        assert_eq!(position_of(source, 6), Position { line: 2, column: 3 });
        assert_eq!(position_of(source, 999), Position { line: 2, column: 4 });
        // Inside a character of two bytes: the character's own position.
        assert_eq!(position_of("é", 1), Position { line: 1, column: 1 });
    }
}
