//! The atomics of the migration hand-off ([`crate::handoff`]) and of the dispatchers'
//! doorbells ([`crate::doorbell`]), from `std` or, under `--cfg loom`, from `loom`, so that the
//! very same code is model checked (`tests/loom_handoff.rs`, `tests/loom_doorbell.rs`).

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
