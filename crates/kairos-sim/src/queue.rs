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

/// A release's (instant, task index) as one integer, the instant in the high half: ordered as
/// the pair is, and compared without a branch, so that the heap's sifts (whose path through
/// the heap no predictor can guess) do not stall on mispredicted comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u128);

impl Key {
    fn new(at: Instant, task: usize) -> Key {
        Key(u128::from(at.as_nanos()) << 64 | task as u128)
    }

    fn at(self) -> Instant {
        Instant::from_nanos((self.0 >> 64) as u64)
    }

    fn task(self) -> usize {
        self.0 as u64 as usize
    }
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Key>>,
}

impl EventQueue {
    pub fn release(&mut self, at: Instant, task: usize) {
        self.heap.push(Reverse(Key::new(at, task)));
    }

    /// The earliest pending release's instant.
    pub fn next_time(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse(key)| key.at())
    }

    /// Removes and returns the earliest release if it is due at or before `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<Due> {
        let &Reverse(key) = self.heap.peek()?;
        if key.at() > now {
            return None;
        }
        self.heap.pop();
        Some(Due::Release { task: key.task() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_queue_hands_out_releases_as_sorting_the_pairs_would(
            releases in prop::collection::vec((any::<u64>(), 0usize..1_000), 0..60)
        ) {
            let mut queue = EventQueue::default();
            for &(at, task) in &releases {
                queue.release(Instant::from_nanos(at), task);
            }
            let mut sorted: Vec<(u64, usize)> = releases.clone();
            sorted.sort_unstable();
            for &(at, task) in &sorted {
                let now = Instant::from_nanos(at);
                prop_assert_eq!(queue.next_time(), Some(now));
                prop_assert_eq!(queue.pop_due(now), Some(Due::Release { task }));
            }
            prop_assert_eq!(queue.next_time(), None);
        }
    }

    #[test]
    fn a_release_not_yet_due_stays_queued() {
        let mut queue = EventQueue::default();
        queue.release(Instant::from_nanos(5), usize::MAX);
        assert_eq!(queue.pop_due(Instant::from_nanos(4)), None);
        let task = usize::MAX;
        assert_eq!(
            queue.pop_due(Instant::from_nanos(5)),
            Some(Due::Release { task })
        );
    }
}
