//! The `kairos` command's library: every command's implementation, so that other front ends
//! (the Python package in `python/`) produce exactly what the command line does, from the
//! same code. The binary (`src/main.rs`) only parses arguments and dispatches.
#![forbid(unsafe_code)]

pub mod api;
pub mod args;
pub mod commands;
pub mod input;
pub use kairos_lab::{generation, imprecise};

pub use kairos_lab::error::exit;
