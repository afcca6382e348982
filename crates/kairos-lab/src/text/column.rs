//! Columns of the text tables that hold names or other text of any length. A column is as wide
//! as its widest entry, up to [`MAX_COLUMN`] characters; a longer entry is elided in the middle
//! (`head…tail`), so names that differ only at their end stay apart. Every table pads text here
//! rather than with a width computed at run time in a format string: `std::fmt` refuses a width
//! of `u16::MAX` or more with a panic, and the test below keeps such widths out of the crate and
//! out of the command line.

/// The widest a text column grows, in characters.
pub const MAX_COLUMN: usize = 40;

/// A text column's width in characters, never more than [`MAX_COLUMN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column(usize);

impl Column {
    /// A column for `entries` under a header at least `min` wide (both counted in characters).
    pub fn fitting<'a>(min: usize, entries: impl IntoIterator<Item = &'a str>) -> Column {
        let widest = entries.into_iter().map(|e| e.chars().count()).max();
        Column(widest.unwrap_or(0).max(min).min(MAX_COLUMN))
    }

    /// A column `width` characters wide (at most [`MAX_COLUMN`]), for entries not known yet.
    pub const fn fixed(width: usize) -> Column {
        match width < MAX_COLUMN {
            true => Column(width),
            false => Column(MAX_COLUMN),
        }
    }

    pub fn width(self) -> usize {
        self.0
    }

    /// `text` elided to the column and padded on the right (a left-aligned cell).
    pub fn left(self, text: &str) -> String {
        let mut cell = elide(text, self.0);
        let length = cell.chars().count();
        cell.extend(std::iter::repeat_n(' ', self.0 - length));
        cell
    }

    /// A number right-aligned in the column and never elided: one that does not fit widens its
    /// cell, which keeps at least one space before it.
    pub fn number(self, text: &str) -> String {
        let pad = self.0.saturating_sub(text.chars().count()).max(1);
        std::iter::repeat_n(' ', pad).chain(text.chars()).collect()
    }

    /// `text` elided to the column and padded on the left (a right-aligned cell).
    pub fn right(self, text: &str) -> String {
        let cell = elide(text, self.0);
        let pad = self.0 - cell.chars().count();
        std::iter::repeat_n(' ', pad).chain(cell.chars()).collect()
    }
}

/// `text` if it has at most `width` characters, else its head and tail around `…`, `width`
/// characters in all.
pub fn elide(text: &str, width: usize) -> String {
    let length = text.chars().count();
    if length <= width {
        return text.to_string();
    }
    let kept = width.saturating_sub(1);
    let tail = kept / 2;
    let head = kept - tail;
    let mut out: String = text.chars().take(head).collect();
    if width > 0 {
        out.push('…');
    }
    out.extend(text.chars().skip(length - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_entries_are_padded_to_the_widest() {
        let column = Column::fitting(4, ["a", "sense", "é"]);
        assert_eq!(column.width(), 5);
        assert_eq!(column.left("é"), "é    ");
        assert_eq!(column.right("ab"), "   ab");
        assert_eq!(Column::fitting(4, []).left("x"), "x   ");
    }

    #[test]
    fn long_entries_are_elided_in_the_middle_to_the_cap() {
        let long = format!("{}{}", "a".repeat(70_000), "_end1");
        let column = Column::fitting(4, [long.as_str()]);
        assert_eq!(column.width(), MAX_COLUMN);
        let cell = column.left(&long);
        assert_eq!(cell.chars().count(), MAX_COLUMN);
        // 39 kept: 20 from the head, 19 from the tail.
        assert_eq!(
            cell,
            format!("{}…{}", "a".repeat(20), &long[long.len() - 19..])
        );
        assert_eq!(column.right(&long), cell);
    }

    #[test]
    fn a_number_is_never_elided_and_keeps_a_space_before_it() {
        let column = Column::fixed(7);
        assert_eq!(column.number("42"), "     42");
        assert_eq!(column.number("1234567"), " 1234567");
        assert_eq!(column.number("12345678"), " 12345678");
    }

    #[test]
    fn elision_keeps_exactly_the_width() {
        for width in 0..6 {
            assert_eq!(elide("abcdefgh", width).chars().count(), width, "{width}");
        }
        assert_eq!(elide("abcdefgh", 4), "ab…h");
        assert_eq!(elide("abc", 4), "abc");
    }

    /// The format specifications in `line` that take their width or precision at run time
    /// (`{:<width$}`, `{:>1$}`, `{:.*}`).
    fn runtime_widths(line: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut rest = line;
        while let Some(open) = rest.find('{') {
            rest = &rest[open + 1..];
            let Some(close) = rest.find(['{', '}']) else {
                break;
            };
            if rest.as_bytes()[close] == b'}' {
                let inside = &rest[..close];
                let spec = inside.split_once(':').map_or("", |(_, s)| s);
                if !inside.contains(' ') && (spec.contains('$') || spec.contains(".*")) {
                    found.push(format!("{{{inside}}}"));
                }
            }
        }
        found
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_scanner_sees_runtime_widths() {
        assert_eq!(
            runtime_widths(r#"format!("{:<width$} {:>9}", a, b)"#),
            ["{:<width$}"]
        );
        assert_eq!(
            runtime_widths(r#"format!("{x:>1$.3} {:.*}")"#),
            ["{x:>1$.3}", "{:.*}"]
        );
        assert!(runtime_widths(r#"format!("{:<16} {name:>8.3}")"#).is_empty());
    }

    /// No table of this crate or of the command line pads with a width computed at run time.
    #[test]
    fn no_format_string_takes_its_width_at_run_time() {
        let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        rust_files(&crate_dir.join("src"), &mut files);
        rust_files(&crate_dir.join("../../src"), &mut files);
        files.retain(|f| !f.ends_with("text/column.rs"));
        assert!(files.len() > 50, "found only {} source files", files.len());
        let mut offenders = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).expect("read a source file");
            for (n, line) in text.lines().enumerate() {
                for spec in runtime_widths(line) {
                    offenders.push(format!("{}:{}: {spec}", file.display(), n + 1));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "pad with text::Column instead:\n{}",
            offenders.join("\n")
        );
    }
}
