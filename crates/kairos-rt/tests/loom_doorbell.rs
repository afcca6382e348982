//! Model checking of a core dispatcher's doorbell (`kairos_rt::doorbell`) with loom, as the
//! dispatcher's loop uses it: another thread (another core's pass, a worker that completed a
//! job) writes what this core must see, then rings; this core's dispatcher, woken by anything
//! (a timer, a ring, a spurious wake-up), advances its ticket and reads the state. In every
//! interleaving the ring is either reported by the advance, and the state then read is the new
//! one (the pass that follows decides on it), or the doorbell no longer holds the new ticket
//! and the next sleep returns at once: no ring is lost. The second model asks and takes the
//! ticket in two loads, as kairos's dispatcher once did, and shows loom finding the ring lost.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --profile tests -p kairos-rt
//! --test loom_doorbell`
#![cfg(loom)]

use kairos_rt::doorbell::{Doorbell, Ticket};
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// The job another thread's decision places here.
const NEW_JOB: u64 = 7;

/// One look of this core's dispatcher racing one ring; `one_load` is the dispatcher's way to
/// advance its ticket. Panics if the ring is lost.
fn look_while_another_thread_rings(one_load: bool) {
    let doorbell = Arc::new(Doorbell::default());
    let wanted = Arc::new(AtomicU64::new(0));
    let ringer = {
        let (doorbell, wanted) = (doorbell.clone(), wanted.clone());
        thread::spawn(move || {
            wanted.store(NEW_JOB, Ordering::Relaxed);
            doorbell.ring();
        })
    };
    let mut seen = Ticket::UNRUNG;
    let rang = match one_load {
        true => doorbell.advance(&mut seen),
        false => {
            // Asks whether it rang, then takes the new ticket: two loads.
            let rang = doorbell.advance(&mut seen.clone());
            doorbell.advance(&mut seen);
            rang
        }
    };
    let job = wanted.load(Ordering::Relaxed);
    ringer.join().unwrap();
    match rang {
        // Reported: the pass that follows reads the ringer's state.
        Some(_) => assert_eq!(job, NEW_JOB, "a reported ring whose state was not seen"),
        // Not reported: the next sleep on `seen` must return at once.
        None => assert!(
            doorbell.advance(&mut seen).is_some(),
            "the dispatcher sleeps through a ring: a lost ring"
        ),
    }
}

#[test]
fn a_ring_is_never_lost() {
    loom::model(|| look_while_another_thread_rings(true));
}

#[test]
fn asking_and_taking_the_ticket_in_two_loads_loses_a_ring() {
    let lost = std::panic::catch_unwind(|| {
        loom::model(|| look_while_another_thread_rings(false));
    });
    assert!(
        lost.is_err(),
        "loom found no interleaving that loses a ring with two loads"
    );
}
