//! The engine's pending releases, in one heap keyed by (time, task index): releases due at one
//! instant come out by task index. (The policy's timers and the servers' replenishments are
//! the contract's, [`kairos_policy::contract`].)

use kairos_model::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A due event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    Release { task: usize },
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<(Instant, usize)>>,
}

impl EventQueue {
    pub fn release(&mut self, at: Instant, task: usize) {
        self.heap.push(Reverse((at, task)));
    }

    /// The earliest pending release's instant.
    pub fn next_time(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((at, _))| *at)
    }

    /// Removes and returns the earliest release if it is due at or before `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<Due> {
        let &Reverse((at, task)) = self.heap.peek()?;
        if at > now {
            return None;
        }
        self.heap.pop();
        Some(Due::Release { task })
    }
}
