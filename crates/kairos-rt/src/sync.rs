//! The atomics of the migration hand-off ([`crate::handoff`]), from `std` or, under
//! `--cfg loom`, from `loom`, so that the very same code is model checked
//! (`tests/loom_handoff.rs`).

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicUsize, Ordering};
#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicUsize, Ordering};
