//! kairos as a library. Each stage a user reaches from the `kairos` command is here first: a
//! typed request in, a typed result out that serializes to the JSON the command prints, and
//! long work reporting progress through a callback. The command line (`src/`) parses arguments
//! and renders; the Python package (`python/`) calls the same functions, so the two cannot
//! disagree. No module here builds or parses a command line.
#![forbid(unsafe_code)]

pub mod analyze;
pub mod api;
pub mod bench;
pub mod check;
pub mod compare;
pub mod demo;
pub mod error;
pub mod experiment;
pub mod generation;
pub mod imprecise;
pub mod input;
pub mod interchange;
pub mod manage;
pub mod platform;
pub mod plot;
pub mod report;
pub mod run;
pub mod simulate;
pub mod synth;
pub mod text;
pub mod vm;

pub use error::{Failure, Notify};
