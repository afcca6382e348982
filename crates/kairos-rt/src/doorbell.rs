//! A core dispatcher's doorbell: a futex word another thread bumps to make the dispatcher look
//! at the shared state again (a worker that completed a job or a part, another core's decision
//! that changed this core's job, a policy's cut of an optional part).
//!
//! The protocol that makes a ring impossible to lose: the dispatcher moves its [`Ticket`] (the
//! word's value) on **before** it reads the state a ring announces, in one load that also says
//! whether the word moved ([`Doorbell::advance`]: then it runs a pass), and sleeps only while
//! the word still holds that ticket; a ringer writes the state first, then bumps the word
//! (release). So every ring is either reported by the advance, whose pass then sees its state,
//! or comes after it and the next sleep returns at once. Reading the state first and taking the
//! ticket after, or asking and taking in two loads, loses a ring that falls in between: the
//! dispatcher sleeps on a job another core took from it until its own next timer.
//! The atomics come from [`crate::sync`] so this very code is model checked with loom
//! (`tests/loom_doorbell.rs`).

use crate::sync::{AtomicU32, AtomicU64, Ordering};
use kairos_os::futex::Woke;

/// The word and when it last rang.
#[derive(Debug)]
pub struct Doorbell {
    word: AtomicU32,
    /// CLOCK_MONOTONIC ns of the last ring, for the ring-to-handler latency.
    rung_at: AtomicU64,
}

/// The doorbell's value when the dispatcher began to look at the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u32);

impl Ticket {
    /// The value of a doorbell no one has rung: a dispatcher's first ticket, so that a ring
    /// before its thread first looks (another core's first pass) wakes its first sleep.
    pub const UNRUNG: Ticket = Ticket(0);
}

impl Default for Doorbell {
    fn default() -> Doorbell {
        Doorbell {
            word: AtomicU32::new(0),
            rung_at: AtomicU64::new(0),
        }
    }
}

impl Doorbell {
    /// Makes the dispatcher look again, from any thread, after the state it must see is
    /// written.
    pub fn ring(&self) {
        (self.rung_at).store(kairos_os::clock::now_ns(), Ordering::Relaxed);
        self.word.fetch_add(1, Ordering::Release);
        #[cfg(not(loom))]
        kairos_os::futex::wake(&self.word);
    }

    /// Moves `ticket` on to now, before the state is read, and says whether the doorbell rang
    /// since it (the time of the last ring): one load, so a ring is either reported here, and
    /// handled by the look that follows, or after the new ticket, and wakes the next sleep.
    /// (Asking whether it rang and taking a new ticket in two loads would lose a ring between
    /// them: `tests/loom_doorbell.rs` shows loom finding it.)
    pub fn advance(&self, ticket: &mut Ticket) -> Option<u64> {
        let now = self.word.load(Ordering::Acquire);
        let rang = now != ticket.0;
        *ticket = Ticket(now);
        rang.then(|| self.rung_at.load(Ordering::Relaxed))
    }

    /// Sleeps while the doorbell holds `ticket`, until `deadline_ns` (CLOCK_MONOTONIC) at most;
    /// returns at once if it rang since.
    #[cfg(not(loom))]
    pub fn wait_until(&self, ticket: Ticket, deadline_ns: u64) -> Woke {
        kairos_os::futex::wait_until(&self.word, ticket.0, deadline_ns)
    }

    /// Under loom, a sleep is a yield to the other threads: the model checks what the
    /// dispatcher reads, not the kernel's futex.
    #[cfg(loom)]
    pub fn wait_until(&self, ticket: Ticket, _deadline_ns: u64) -> Woke {
        if self.word.load(Ordering::Acquire) == ticket.0 {
            loom::thread::yield_now();
        }
        Woke::Early
    }
}
