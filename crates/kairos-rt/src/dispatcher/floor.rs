//! The floor under a same-core switch of the user-space dispatcher: what
//! [`super::REQUEST_TO_START`] cannot go below on this machine. A thread at the dispatchers'
//! priority wakes from a timed futex sleep, asks a thread parked at the workers' priority on
//! the same CPU to run (a store and a futex wake) and goes back to its timed sleep, as a
//! dispatcher does ([`super::percore`]); a sample is the waker's time stamp before the wake to
//! the woken thread's first one. No decision, no hand-off word and no stopped worker in the
//! way: the wake, the waker's sleep and one context switch.

use crate::measure::Distribution;
use kairos_os::{clock, futex, memory, priority, thread, PlatformError};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Time between two samples; the waker sleeps it with a futex timeout, as a dispatcher sleeps
/// until its next event.
const GAP_NS: u64 = 200_000;
/// Longest park of the woken thread without looking for the end.
const PARK_STEP_NS: u64 = 100_000_000;

#[derive(Default)]
struct Words {
    /// Sample number asked for (`u32::MAX`: the end), the woken thread's futex word.
    go: AtomicU32,
    /// The waker's time stamp before its wake.
    asked_at: AtomicU64,
    /// The waker's own futex word (never rung: it sleeps to its timeout).
    bell: AtomicU32,
}

/// `samples` same-core hand-offs on `cpu`, ns (see the module documentation).
pub fn same_core_floor(cpu: usize, samples: u32) -> Result<Distribution, PlatformError> {
    memory::lock_all_memory()?;
    let words = Arc::new(Words::default());
    let parked = Arc::clone(&words);
    let woken = thread::spawn(
        thread::ThreadSpec::fifo("kairos-floor-w", priority::WORKER_MAX, vec![cpu]),
        move || park_and_stamp(&parked),
    )?;
    let waker = thread::spawn(
        thread::ThreadSpec::fifo("kairos-floor-d", priority::DISPATCHER, vec![cpu]),
        move || ask(&words, samples),
    )?;
    waker.join()?;
    woken.join()
}

/// The waker: sleeps [`GAP_NS`] on its futex, then asks for the next sample.
fn ask(words: &Words, samples: u32) {
    memory::prefault_stack();
    for sample in 1..=samples.min(u32::MAX - 1) {
        sleep_on(&words.bell, clock::now_ns() + GAP_NS);
        words.asked_at.store(clock::now_ns(), Ordering::Release);
        words.go.store(sample, Ordering::Release);
        futex::wake(&words.go);
    }
    sleep_on(&words.bell, clock::now_ns() + GAP_NS);
    words.go.store(u32::MAX, Ordering::Release);
    futex::wake(&words.go);
}

fn sleep_on(bell: &AtomicU32, deadline: u64) {
    while clock::now_ns() < deadline {
        futex::wait_until(bell, 0, deadline);
    }
}

/// The woken thread: parked until asked, then records the time since the waker's stamp.
fn park_and_stamp(words: &Words) -> Distribution {
    memory::prefault_stack();
    let mut floor = Distribution::new();
    let mut seen = 0;
    loop {
        let asked = words.go.load(Ordering::Acquire);
        if asked == seen {
            futex::wait_until(&words.go, seen, clock::now_ns() + PARK_STEP_NS);
            continue;
        }
        let woke = clock::now_ns();
        if asked == u32::MAX {
            return floor;
        }
        floor.record(woke.saturating_sub(words.asked_at.load(Ordering::Acquire)));
        seen = asked;
    }
}
