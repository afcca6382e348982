//! The `kairos` command's library: every command's implementation, so that other front ends
//! (the Python package in `python/`) produce exactly what the command line does, from the
//! same code. The binary (`src/main.rs`) only parses arguments and dispatches.
#![forbid(unsafe_code)]

pub mod api;
pub mod args;
pub mod commands;
pub mod generation;
pub mod imprecise;
pub mod input;
pub mod report;

/// Exit codes shared by every command (docs/cli.md).
pub mod exit {
    /// The answer is "no": e.g. a deadline was missed under `--fail-on-miss`.
    pub const NO: u8 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: u8 = 2;
    /// The environment is missing something (a file cannot be written, ...).
    pub const ENVIRONMENT: u8 = 3;
}
