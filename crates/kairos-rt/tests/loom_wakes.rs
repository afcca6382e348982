//! Model checking of how the dispatchers' passes publish the cores' wake times
//! (`kairos_rt::dispatcher::wakes`) with loom, in the race that once made a core sleep past a
//! timer: core 0's dispatcher handles its event due at 1 (its next, at 10, is its own release),
//! while core 1's pass arms a timer for 5 that core 0, the timer core, must wake for. Each pass
//! takes the scheduler's lock, changes the events, computes core 0's next wake time and
//! publishes it; core 1's rings core 0 when that time came earlier. Core 0 advanced its
//! doorbell's ticket before its pass, as its loop does, and then sleeps to the time its own
//! pass computed: in every interleaving it must either have been rung since, or sleep to 5 at
//! the latest. Published under the lock (kairos's way), no wake-up is lost; published after it
//! (the way kairos's dispatcher once did), loom finds the interleaving that loses it.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --profile tests -p kairos-rt
//! --test loom_wakes`
#![cfg(loom)]

use kairos_rt::dispatcher::wakes::publish;
use kairos_rt::doorbell::{Doorbell, Ticket};
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

/// Core 0's event that its pass handles, its next own event, and core 1's timer for it.
const DUE: u64 = 1;
const NEXT: u64 = 10;
const TIMER: u64 = 5;

/// What both passes share: the events the scheduler holds for core 0, core 0's published wake
/// time, and its doorbell.
struct Model {
    events: Mutex<Vec<u64>>,
    wake_at: AtomicU64,
    doorbell: Doorbell,
}

/// One pass: `change` to the events under the lock, then core 0's next wake time published,
/// before the lock is let go (`under_lock`) or after it, as kairos's dispatcher once did (the
/// old time read under the lock, compared with after the store). Returns core 0's new time and
/// whether it came earlier.
fn pass(model: &Model, change: impl FnOnce(&mut Vec<u64>), under_lock: bool) -> (u64, bool) {
    let mut events = model.events.lock().unwrap();
    change(&mut events);
    let wake = [events.iter().copied().min().unwrap_or(u64::MAX)];
    let mut earlier = [false];
    if under_lock {
        publish([&model.wake_at], &wake, &mut earlier);
        return (wake[0], earlier[0]);
    }
    let old = model.wake_at.load(Ordering::Relaxed);
    drop(events);
    model.wake_at.store(wake[0], Ordering::Relaxed);
    (wake[0], wake[0] < old)
}

/// The race; panics if core 0 sleeps past the timer unrung.
fn timer_armed_while_the_timer_core_passes(under_lock: bool) {
    let model = Arc::new(Model {
        events: Mutex::new(vec![DUE]),
        wake_at: AtomicU64::new(DUE),
        doorbell: Doorbell::default(),
    });
    let core_1 = {
        let model = model.clone();
        thread::spawn(move || {
            let (_, earlier) = pass(&model, |events| events.push(TIMER), under_lock);
            if earlier {
                model.doorbell.ring();
            }
        })
    };
    // As the dispatcher's loop does: a ring from here on is one its pass may not have seen.
    let mut seen = Ticket::UNRUNG;
    model.doorbell.advance(&mut seen);
    let handle = |events: &mut Vec<u64>| {
        events.retain(|&at| at != DUE);
        events.push(NEXT);
    };
    let (sleeps_to, _) = pass(&model, handle, under_lock);
    core_1.join().unwrap();
    let rung = model.doorbell.advance(&mut seen).is_some();
    assert!(
        rung || sleeps_to <= TIMER,
        "core 0 sleeps to {sleeps_to}, past the timer at {TIMER}, and was not rung: a lost wake-up"
    );
}

#[test]
fn a_wake_time_published_under_the_lock_is_never_lost() {
    loom::model(|| timer_armed_while_the_timer_core_passes(true));
}

#[test]
fn a_wake_time_published_after_the_lock_can_be_lost() {
    let lost = std::panic::catch_unwind(|| {
        loom::model(|| timer_armed_while_the_timer_core_passes(false));
    });
    // The model's own assertion, not any panic of loom's (a branch limit, a broken model).
    let said = lost.as_ref().err().and_then(|p| {
        (p.downcast_ref::<String>().cloned())
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
    });
    assert!(
        said.as_deref().is_some_and(|s| s.contains("a lost wake-up")),
        "loom found no interleaving that loses a wake-up when the times are published after the lock: {said:?}"
    );
}
