//! Problems found in a workload, each with its location and a hint.
//!
//! `kairos check` prints every diagnostic at once; the format is stable because golden tests
//! and users' scripts read it:
//!
//! ```text
//! FILE:LINE:COL: error: tasks[2].wcet: duration "5" has no unit
//!   hint: write a unit after the number: ns, us, ms or s (e.g. "5ms")
//! ```
//!
//! `LINE:COL` is present whenever the format gives positions (TOML always, JSON for syntax
//! errors); the field path is present for every problem of meaning.

use std::fmt;

/// How bad a problem is: errors stop the later stages, warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// A 1-based line and column in the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// One problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Where in the text, when known.
    pub position: Option<Position>,
    /// The field path, such as `tasks[2].wcet`, for problems of meaning.
    pub path: Option<String>,
    pub message: String,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            position: None,
            path: None,
            message: message.into(),
            hint: None,
        }
    }
    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }
    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
    pub fn at_position(mut self, position: Option<Position>) -> Self {
        self.position = position;
        self
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The diagnostic as `kairos check` prints it, for a file named `file`.
    pub fn render(&self, file: &str) -> String {
        let mut out = String::from(file);
        if let Some(p) = self.position {
            out.push_str(&format!(":{}:{}", p.line, p.column));
        }
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.push_str(&format!(": {severity}: "));
        if let Some(path) = &self.path {
            out.push_str(&format!("{path}: "));
        }
        out.push_str(&self.message);
        if let Some(hint) = &self.hint {
            out.push_str(&format!("\n  hint: {hint}"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render("<input>"))
    }
}

/// Every diagnostic found, in the order of the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }
    pub fn warning_count(&self) -> usize {
        self.0.len() - self.error_count()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    /// Keeps diagnostics in source order: positioned ones by position, the rest after them in
    /// the order they were found.
    pub fn sort_by_position(&mut self) {
        self.0.sort_by_key(|d| {
            d.position
                .map_or((usize::MAX, usize::MAX), |p| (p.line, p.column))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_shows_position_path_and_hint() {
        let d = Diagnostic::error("duration \"5\" has no unit")
            .at_path("tasks[2].wcet")
            .at_position(Some(Position {
                line: 12,
                column: 8,
            }))
            .with_hint("add a unit");
        assert_eq!(
            d.render("w.toml"),
            "w.toml:12:8: error: tasks[2].wcet: duration \"5\" has no unit\n  hint: add a unit"
        );
    }
}
