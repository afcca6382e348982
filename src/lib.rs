//! The `kairos` command line: each command's arguments (clap), the request it makes of the
//! library (`kairos_lab`, which the Python package in `python/` calls too), and how the result
//! is printed and written. The binary (`src/main.rs`) parses and dispatches.
#![forbid(unsafe_code)]

pub mod args;
pub mod commands;
pub mod input;
pub mod progress;

pub use kairos_lab::error::exit;
