//! When each core's dispatcher must next run a pass (`super::shared::CoreShared::wake_at`),
//! as the passes publish it.
//!
//! A pass, of any core, computes every core's next wake time from the scheduler's state
//! (`super::scheduler::Scheduler::wake_times`: the core's home releases, the policy's timers
//! on the timer core, its servers' events) and must make each core whose time came earlier wake
//! for it: it rings that core, unless the core is its own. Whether a time came earlier is
//! decided against the time the core last had published, which is only right if that is the
//! time it sleeps to: so a pass publishes its times **while it holds the scheduler's lock**,
//! and the next pass, which takes the lock after it, compares against them.
//!
//! So a core's published time is never earlier than the time it sleeps to, unless a ring is on
//! its way: its own pass publishes what it will sleep to, any later pass that lowers it rings
//! it, and before the first pass every time is `u64::MAX`. Published after the lock is let go,
//! the times of two passes could land out of order (a pass of the timer core computes its own
//! next wake past an optional deadline another core's pass is about to arm; that pass compares
//! with the time published before, earlier still, so it does not ring; then the older time
//! lands over its own), and the timer core slept past the deadline. `tests/loom_wakes.rs`
//! checks both orders with loom: this one loses no wake-up, the old one does.

use crate::sync::{AtomicU64, Ordering};

/// Publishes `wake` (one time per core, ns since the origin) over `published`, and sets
/// `earlier[c]` when core `c`'s time is earlier than the one it replaces (the core must then be
/// rung, unless the pass is its own). To be called with the scheduler's lock held, which
/// orders every publication with the next pass's (see the module documentation).
pub fn publish<'a>(
    published: impl IntoIterator<Item = &'a AtomicU64>,
    wake: &[u64],
    earlier: &mut [bool],
) {
    for ((at, &new), earlier) in published.into_iter().zip(wake).zip(earlier) {
        // The lock orders the passes; nothing else reads these words.
        let old = at.swap(new, Ordering::Relaxed);
        *earlier = new < old;
    }
}
