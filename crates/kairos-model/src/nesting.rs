//! How deep an input may nest, checked before a parser builds the tree, with the place where
//! the bound is passed.
//!
//! No kairos file nests more than a handful of levels; a bound keeps the readers (which walk
//! the tree by recursion) within their stack, and a file that passes it is refused where it
//! does, located. The TOML parser has bounds of its own (80 levels of arrays and inline
//! tables, 80 segments of a dotted key), but its error for a dotted key carries no position:
//! the bound here is lower, so a file reaches the parser only within both.

use crate::diagnostics::Diagnostic;
use crate::positions::LineIndex;

/// The deepest nesting any input may have: table headers, dotted keys, arrays and inline
/// tables in TOML; elements in XML.
pub const MAX_NESTING: usize = 64;

/// The error at `offset`, where a text nests deeper than [`MAX_NESTING`].
pub(crate) fn too_deep(lines: &LineIndex<'_>, offset: usize, what: &str) -> Diagnostic {
    Diagnostic::error(format!("{what} nest deeper than {MAX_NESTING} levels"))
        .at_position(Some(lines.position(offset)))
        .with_hint("no kairos input nests more than a few levels: is this the file you meant?")
}

/// The byte offset where a TOML text first nests deeper than [`MAX_NESTING`], counting the
/// segments of a table header or a dotted key and each array or inline table with the keys
/// that lead to it; `None` when it stays within the bound.
pub(crate) fn toml_too_deep(source: &str) -> Option<usize> {
    scan_toml(source).0.err()
}

/// The byte offset where a TOML text nests deepest, as [`toml_too_deep`] counts: where the
/// parser's own nesting limit, which carries no position, is met.
pub(crate) fn toml_deepest(source: &str) -> usize {
    scan_toml(source).1
}

/// The scan's verdict and the offset of the deepest point it saw.
fn scan_toml(source: &str) -> (Result<(), usize>, usize) {
    let mut scan = TomlScan {
        line_start: true,
        ..TomlScan::default()
    };
    let verdict = scan.run(source);
    (verdict, scan.deepest.1)
}

impl TomlScan {
    fn run(&mut self, source: &str) -> Result<(), usize> {
        let scan = self;
        let bytes = source.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let next = match bytes[at] {
                b'#' => source[at..].find('\n').map_or(bytes.len(), |n| at + n),
                b'"' | b'\'' => {
                    scan.segment(at)?;
                    string_end(bytes, at)
                }
                b'.' => {
                    scan.dot(at)?;
                    at + 1
                }
                b' ' | b'\t' | b'\r' => at + 1,
                c if word(c) => {
                    scan.segment(at)?;
                    at + (bytes[at..].iter().position(|&c| !word(c))).unwrap_or(bytes.len() - at)
                }
                c => {
                    scan.punctuation(c, at)?;
                    at + 1
                }
            };
            at = next.max(at + 1);
        }
        Ok(())
    }
}

/// A byte of a bare key, or of a number, date or boolean.
fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"_-+:".contains(&c)
}

/// What the TOML scan knows at a point: the depth of the enclosing arrays and inline tables,
/// the depth the current table header gives its keys, the dotted run being read (a key, or a
/// value such as `1.5` that is never long), and the length of the last key before `=`.
#[derive(Default)]
struct TomlScan {
    /// The depth each open array or inline table gives what it holds.
    open: Vec<usize>,
    /// The depth of the keys under the current table header.
    header: usize,
    /// Whether a table header is being read.
    in_header: bool,
    /// Segments of the dotted run being read, and whether a dot awaits its next segment.
    run: usize,
    after_dot: bool,
    /// Segments of the key of the value being read.
    key: usize,
    /// Whether the last character seen starts a line (outside arrays and inline tables).
    line_start: bool,
    /// The deepest depth seen and where.
    deepest: (usize, usize),
}

impl TomlScan {
    fn base(&self) -> usize {
        self.open.last().copied().unwrap_or(self.header)
    }

    /// One key segment, bare or quoted (or a word of a value), starting at `at`.
    fn segment(&mut self, at: usize) -> Result<(), usize> {
        self.run = if self.after_dot { self.run + 1 } else { 1 };
        self.after_dot = false;
        self.line_start = false;
        let depth = if self.in_header {
            self.run
        } else {
            self.base() + self.run
        };
        self.reach(depth, at);
        if depth > MAX_NESTING {
            return Err(at);
        }
        Ok(())
    }

    fn reach(&mut self, depth: usize, at: usize) {
        if depth > self.deepest.0 {
            self.deepest = (depth, at);
        }
    }

    /// A dot of a dotted run. The parser recurses once per dot, even between two dots with
    /// no key (which it refuses only after): a dot after a dot counts as an empty segment.
    fn dot(&mut self, at: usize) -> Result<(), usize> {
        if self.after_dot {
            self.segment(at)?;
        }
        self.after_dot = true;
        Ok(())
    }

    fn punctuation(&mut self, c: u8, at: usize) -> Result<(), usize> {
        let in_value = !self.open.is_empty();
        let line_start = std::mem::replace(&mut self.line_start, false);
        match c {
            b'[' if self.in_header => {}
            b'[' if !in_value && line_start => {
                self.in_header = true;
            }
            b'[' | b'{' => {
                let depth = self.base() + self.key + 1;
                self.reach(depth, at);
                if depth > MAX_NESTING {
                    return Err(at);
                }
                self.open.push(depth);
                self.key = 0;
            }
            b']' if self.in_header => {
                self.header = self.run;
                self.in_header = false;
            }
            b']' | b'}' => {
                self.open.pop();
            }
            b'=' => self.key = self.run,
            b'\n' if !in_value => {
                self.key = 0;
                self.line_start = true;
            }
            _ => {}
        }
        self.run = 0;
        self.after_dot = false;
        Ok(())
    }
}

/// The offset just past the string that starts at `at` (basic or literal, on one line or
/// several); the end of the text when it does not end.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let quote = bytes[at];
    let escapes = quote == b'"';
    let triple = [quote; 3];
    let open = if bytes[at..].starts_with(&triple) {
        3
    } else {
        1
    };
    let mut i = at + open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if escapes => i += 2,
            b'\n' if open == 1 => return i,
            c if c == quote && open == 1 => return i + 1,
            c if c == quote && bytes[i..].starts_with(&triple) => {
                // A multi-line string may end in one or two quotes of its own before the three.
                let extra = bytes[i + 3..].iter().take(2).take_while(|&&c| c == quote);
                return i + 3 + extra.count();
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests;
