//! The migration hand-off of G-RES (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 5.1 definitions
//! 5.2-5.3 "instantaneous" and "cyclic instantaneous task migrations", section 5.3 "Support
//! for cyclic instantaneous migrations"; `notes/mixed-criticality.md`, "Online: G-RES").
//!
//! Each task has one holder word: free, or the core that holds it. A core takes a task with a
//! compare-and-set from free, so a task is held by at most one core, and the holder releases it
//! only once the task has stopped there; a task therefore never runs on two cores, even when
//! its interval on the next core starts exactly where the one on the previous core ends.
//!
//! Waiting for a task that another core still holds is what deadlocks a cyclic instantaneous
//! migration (every core waits for the next one). The plugin's rule breaks every cycle: a core
//! that wants a task held elsewhere **gives up for now if it still holds a task itself** (it
//! releases what it holds, schedules nothing and retries at once); only a core that holds
//! nothing **waits**. A waiting core holds nothing, so no core can wait on it: a chain of waits
//! ends at a core that gives up and releases, and a cycle of waits cannot form.
//!
//! The atomics come from [`crate::sync`] so the protocol is model checked with loom
//! (`tests/loom_handoff.rs`).

use crate::sync::{AtomicUsize, Ordering};

/// What a core should do about a task it wants ([`Holders::take`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// The core now holds the task and may start it.
    Acquired,
    /// Another core holds it and this core still holds a task: release that one, schedule
    /// nothing, retry as soon as the release is done.
    GiveUp { holder: usize },
    /// Another core holds it and this core holds nothing: waiting is safe.
    Wait { holder: usize },
}

const FREE: usize = 0;

/// The holder word of every task.
#[derive(Debug)]
pub struct Holders {
    slots: Vec<AtomicUsize>,
}

impl Holders {
    /// `tasks` tasks, all free.
    pub fn new(tasks: usize) -> Self {
        Holders {
            slots: (0..tasks).map(|_| AtomicUsize::new(FREE)).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The core holding `task`, if any.
    pub fn holder(&self, task: usize) -> Option<usize> {
        match self.slots[task].load(Ordering::Acquire) {
            FREE => None,
            core_plus_one => Some(core_plus_one - 1),
        }
    }

    /// Core `core` wants `task`; `holds_other` says whether it still holds some other task
    /// (one it has asked to stop whose release has not happened yet). A task the core already
    /// holds counts as held elsewhere for this purpose: its stop is still in progress.
    pub fn take(&self, task: usize, core: usize, holds_other: bool) -> Take {
        // Acquire pairs with the Release of `release`: everything the previous holder wrote
        // about the task (its progress) is visible to the new one.
        match self.slots[task].compare_exchange(FREE, core + 1, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Take::Acquired,
            Err(current) => {
                let holder = current - 1;
                if holds_other || holder == core {
                    Take::GiveUp { holder }
                } else {
                    Take::Wait { holder }
                }
            }
        }
    }

    /// Core `core` releases `task` once it has stopped there. Returns false (and changes
    /// nothing) if `core` did not hold it.
    pub fn release(&self, task: usize, core: usize) -> bool {
        self.slots[task]
            .compare_exchange(core + 1, FREE, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize as StdUsize};
    use std::sync::{Arc, Barrier};

    #[test]
    fn take_release_and_the_rule() {
        let holders = Holders::new(2);
        assert_eq!(holders.take(0, 0, false), Take::Acquired);
        assert_eq!(holders.holder(0), Some(0));
        // Core 1 holds nothing: it may wait for task 0.
        assert_eq!(holders.take(0, 1, false), Take::Wait { holder: 0 });
        // Core 1 still holds a task: it must give up.
        assert_eq!(holders.take(0, 1, true), Take::GiveUp { holder: 0 });
        // A core never "re-takes" its own task while the stop is in progress.
        assert_eq!(holders.take(0, 0, false), Take::GiveUp { holder: 0 });
        assert!(!holders.release(0, 1));
        assert!(holders.release(0, 0));
        assert_eq!(holders.holder(0), None);
        assert_eq!(holders.take(0, 1, false), Take::Acquired);
    }

    /// `cores` threads, each holding task `c` and wanting task `c + 1 mod cores` at every round
    /// (a cyclic instantaneous migration per round); a per-task "running on" word proves a
    /// task never runs on two cores, and the test finishing proves there is no deadlock.
    fn cyclic_rounds(cores: usize, rounds: usize) {
        let holders = Arc::new(Holders::new(cores));
        let running: Arc<Vec<StdUsize>> = Arc::new((0..cores).map(|_| StdUsize::new(0)).collect());
        let overlaps = Arc::new(AtomicU64::new(0));
        let barrier = Arc::new(Barrier::new(cores));
        let threads: Vec<_> = (0..cores)
            .map(|core| {
                let (holders, running, overlaps, barrier) = (
                    holders.clone(),
                    running.clone(),
                    overlaps.clone(),
                    barrier.clone(),
                );
                std::thread::spawn(move || {
                    let mut held = Some((core + cores - 1) % cores);
                    assert_eq!(holders.take(held.unwrap(), core, false), Take::Acquired);
                    for round in 0..rounds {
                        barrier.wait();
                        let want = (core + round) % cores;
                        loop {
                            match holders.take(want, core, held.is_some()) {
                                Take::Acquired => break,
                                Take::GiveUp { .. } => {
                                    let task = held.take().expect("gave up while holding");
                                    running[task].store(0, Ordering::SeqCst);
                                    assert!(holders.release(task, core));
                                }
                                Take::Wait { .. } => std::thread::yield_now(),
                            }
                        }
                        if let Some(task) = held.take() {
                            running[task].store(0, Ordering::SeqCst);
                            assert!(holders.release(task, core));
                        }
                        if running[want].swap(core + 1, Ordering::SeqCst) != 0 {
                            overlaps.fetch_add(1, Ordering::SeqCst);
                        }
                        held = Some(want);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(overlaps.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn two_core_cycles_never_deadlock() {
        cyclic_rounds(2, 5_000);
    }

    #[test]
    fn three_core_cycles_never_deadlock() {
        cyclic_rounds(3, 3_000);
    }
}
