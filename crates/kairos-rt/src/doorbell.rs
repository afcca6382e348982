//! A core dispatcher's doorbell: a futex word another thread bumps to make the dispatcher look
//! at the shared state again (a worker that completed a job or a part, another core's decision
//! that changed this core's job, a policy's cut of an optional part).
//!
//! The protocol that makes a ring impossible to lose: the dispatcher takes a [`Ticket`] (the
//! word's value) **before** it reads the state a ring announces, and sleeps only while the word
//! still holds that ticket; a ringer writes the state first, then bumps the word (release). So
//! either the dispatcher's read saw the new state, or the bump comes after the ticket and the
//! sleep returns at once. Reading the state first and taking the ticket after loses a ring
//! that falls in between: the dispatcher sleeps on a job another core took from it until its
//! own next timer. The atomics come from [`crate::sync`] so this very code is model checked
//! with loom (`tests/loom_doorbell.rs`).

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

    /// Taken before reading the state: a ring after it wakes the next [`Self::wait_until`].
    pub fn ticket(&self) -> Ticket {
        Ticket(self.word.load(Ordering::Acquire))
    }

    /// The time of the last ring (CLOCK_MONOTONIC ns) if the doorbell rang since `ticket`.
    pub fn rang_since(&self, ticket: Ticket) -> Option<u64> {
        (self.word.load(Ordering::Acquire) != ticket.0)
            .then(|| self.rung_at.load(Ordering::Relaxed))
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
