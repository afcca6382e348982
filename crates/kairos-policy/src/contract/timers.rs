//! The policy's armed timers ([`crate::Action::ArmTimer`]): a heap keyed by (instant, arming
//! sequence), so timers due at one instant fire in the order they were armed. A timer re-armed
//! or cancelled leaves its old entry in the heap, skipped when it surfaces (lazy cancellation:
//! O(log n) per operation, no search of the heap).

use crate::decision::TimerId;
use kairos_model::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, Default)]
pub struct Timers {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    /// Per armed timer, its instant and the sequence number of its live entry.
    armed: Vec<(TimerId, Instant, u64)>,
    next_sequence: u64,
}

impl Timers {
    /// Room for `timers` armed at once, each with a replaced arming not yet dropped, without
    /// growing (for an engine that must not allocate while it runs).
    pub fn reserve(&mut self, timers: usize) {
        self.armed.reserve(timers);
        self.heap.reserve(2 * timers);
    }

    /// Arms `timer` for `at`, replacing its earlier arming.
    pub(crate) fn arm(&mut self, timer: TimerId, at: Instant) {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.cancel(timer);
        self.armed.push((timer, at, sequence));
        self.heap.push(Reverse((at, sequence)));
    }

    pub(crate) fn cancel(&mut self, timer: TimerId) {
        self.armed.retain(|&(t, _, _)| t != timer);
    }

    /// The earliest armed timer's instant.
    pub fn next_time(&mut self) -> Option<Instant> {
        self.drop_stale();
        self.heap.peek().map(|Reverse((at, _))| *at)
    }

    /// The earliest armed timer's instant, without tidying the heap.
    pub fn earliest(&self) -> Option<Instant> {
        self.armed.iter().map(|&(_, at, _)| at).min()
    }

    /// Disarms and returns the earliest armed timer if it is due at or before `now`.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(TimerId, Instant)> {
        self.drop_stale();
        let &Reverse((at, sequence)) = self.heap.peek()?;
        if at > now {
            return None;
        }
        self.heap.pop();
        let index = (self.armed.iter()).position(|&(_, _, s)| s == sequence)?;
        let (timer, at, _) = self.armed.swap_remove(index);
        Some((timer, at))
    }

    /// Disarms `timer` if it is armed for exactly `at` (a recorded firing); false otherwise.
    pub(crate) fn take(&mut self, timer: TimerId, at: Instant) -> bool {
        let armed = self
            .armed
            .iter()
            .position(|&(t, a, _)| t == timer && a == at);
        armed.map(|i| self.armed.swap_remove(i)).is_some()
    }

    /// Pops entries whose arming was replaced or cancelled.
    fn drop_stale(&mut self) {
        while let Some(&Reverse((_, sequence))) = self.heap.peek() {
            if self.armed.iter().any(|&(_, _, s)| s == sequence) {
                break;
            }
            self.heap.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::Duration;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn timers_fire_by_instant_then_arming_order_and_rearming_moves_them() {
        let mut timers = Timers::default();
        timers.arm(TimerId(1), at(5));
        timers.arm(TimerId(2), at(3));
        timers.arm(TimerId(3), at(5));
        timers.arm(TimerId(1), at(9));
        timers.arm(TimerId(4), at(4));
        timers.cancel(TimerId(4));
        assert_eq!(timers.next_time(), Some(at(3)));
        assert_eq!(timers.earliest(), Some(at(3)));
        assert_eq!(timers.pop_due(at(2)), None);
        let fired: Vec<_> = std::iter::from_fn(|| timers.pop_due(at(9))).collect();
        assert_eq!(
            fired,
            [
                (TimerId(2), at(3)),
                (TimerId(3), at(5)),
                (TimerId(1), at(9))
            ]
        );
        assert_eq!(timers.next_time(), None);
    }

    #[test]
    fn a_recorded_firing_takes_only_the_timer_armed_for_that_instant() {
        let mut timers = Timers::default();
        timers.arm(TimerId(1), at(5));
        assert!(!timers.take(TimerId(1), at(4)));
        assert!(timers.take(TimerId(1), at(5)));
        assert!(!timers.take(TimerId(1), at(5)));
        assert_eq!(timers.next_time(), None);
    }
}
