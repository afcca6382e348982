//! Progress on standard error, decided the same way for every command: drawn only when
//! standard error is a terminal and the command was not asked for JSON or quiet (a script
//! reading the output, or a log, sees no progress bytes). Lines the commands print on
//! standard error while a spinner turns go through [`eprint_line`], above it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

/// The spinner turning now, if any, so that printed lines go above it.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Whether progress is drawn: on a terminal, unless the command prints JSON or was asked to be
/// quiet.
pub fn shown(stderr_is_terminal: bool, quiet: bool) -> bool {
    stderr_is_terminal && !quiet
}

fn here(quiet: bool) -> bool {
    shown(std::io::stderr().is_terminal(), quiet)
}

/// A bar over `len` steps in `template` (indicatif's), hidden when progress is not shown.
pub fn bar(len: u64, template: &str, quiet: bool) -> ProgressBar {
    if !here(quiet) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar
}

/// A spinner saying `message` with the time elapsed while the returned guard lives: for a
/// stage that reports no steps (a simulation, an analysis, reading a big file).
pub fn spinner(message: &str, quiet: bool) -> Spinner {
    if !here(quiet) {
        return Spinner;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    *active() = Some(bar);
    Spinner
}

/// Clears the spinner when dropped.
pub struct Spinner;

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = active().take() {
            bar.finish_and_clear();
        }
    }
}

/// Prints `line` on standard error, above the spinner if one turns.
pub fn eprint_line(line: &str) {
    match active().as_ref() {
        Some(bar) => bar.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

fn active() -> std::sync::MutexGuard<'static, Option<ProgressBar>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn progress_is_drawn_only_on_a_terminal_and_never_with_json_or_quiet() {
        assert!(shown(true, false));
        assert!(!shown(true, true), "--json or --quiet hide it");
        assert!(!shown(false, false), "piped or redirected: nothing drawn");
        assert!(!shown(false, true));
    }
}
