//! The engine's pending events in one queue keyed by (time, kind, sequence).
//!
//! At one instant server replenishments come first (by server index), then releases (by task
//! index), then policy timers (in the order they were armed). A timer re-armed or cancelled leaves its old entry in the heap; the
//! entry is skipped when it surfaces (lazy cancellation: O(log n) per operation, no search).

use kairos_model::Instant;
use kairos_policy::TimerId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const REPLENISH: u8 = 0;
const RELEASE: u8 = 1;
const TIMER: u8 = 2;

/// A due event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    Replenish { server: usize },
    Release { task: usize },
    Timer(TimerId),
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<(Instant, u8, u64)>>,
    /// Per armed timer, the sequence number of its live entry.
    armed: Vec<(TimerId, u64)>,
    next_sequence: u64,
}

impl EventQueue {
    pub fn release(&mut self, at: Instant, task: usize) {
        self.heap.push(Reverse((at, RELEASE, task as u64)));
    }

    pub fn replenish(&mut self, at: Instant, server: usize) {
        self.heap.push(Reverse((at, REPLENISH, server as u64)));
    }

    /// Arms `timer` for `at`, replacing its earlier arming.
    pub fn arm(&mut self, timer: TimerId, at: Instant) {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.cancel(timer);
        self.armed.push((timer, sequence));
        self.heap.push(Reverse((at, TIMER, sequence)));
    }

    pub fn cancel(&mut self, timer: TimerId) {
        self.armed.retain(|&(t, _)| t != timer);
    }

    /// The earliest live event's instant.
    pub fn next_time(&mut self) -> Option<Instant> {
        self.drop_stale();
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// Removes and returns the earliest live event if it is due at or before `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<Due> {
        self.drop_stale();
        let &Reverse((at, kind, key)) = self.heap.peek()?;
        if at > now {
            return None;
        }
        self.heap.pop();
        match kind {
            RELEASE => return Some(Due::Release { task: key as usize }),
            REPLENISH => {
                return Some(Due::Replenish {
                    server: key as usize,
                })
            }
            _ => {}
        }
        let index = (self.armed.iter()).position(|&(_, s)| s == key)?;
        Some(Due::Timer(self.armed.swap_remove(index).0))
    }

    /// Pops timer entries whose arming was replaced or cancelled.
    fn drop_stale(&mut self) {
        while let Some(&Reverse((_, TIMER, sequence))) = self.heap.peek() {
            if self.armed.iter().any(|&(_, s)| s == sequence) {
                break;
            }
            self.heap.pop();
        }
    }
}
