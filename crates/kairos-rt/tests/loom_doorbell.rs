//! Model checking of a core dispatcher's doorbell (`kairos_rt::doorbell`) with loom: another
//! core's dispatcher writes this core's new job, then rings; this core's dispatcher takes its
//! ticket, reads the job, and goes to sleep on the ticket. In every interleaving it either read
//! the new job or its sleep returns at once (the doorbell no longer holds its ticket), so no
//! ring is lost. The order matters: taking the ticket after the read loses a ring, which the
//! second model shows loom finds.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --release -p kairos-rt
//! --test loom_doorbell`
#![cfg(loom)]

use kairos_rt::doorbell::Doorbell;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// The job another core's decision places here.
const NEW_JOB: u64 = 7;

/// One look of this core's dispatcher racing one decision of another core; `ticket_first`
/// is the dispatcher's order. Panics if the dispatcher would sleep on the old job.
fn look_while_another_core_decides(ticket_first: bool) {
    let doorbell = Arc::new(Doorbell::default());
    let wanted = Arc::new(AtomicU64::new(0));
    let decider = {
        let (doorbell, wanted) = (doorbell.clone(), wanted.clone());
        thread::spawn(move || {
            wanted.store(NEW_JOB, Ordering::Relaxed);
            doorbell.ring();
        })
    };
    let (ticket, job) = match ticket_first {
        true => {
            let ticket = doorbell.ticket();
            (ticket, wanted.load(Ordering::Relaxed))
        }
        false => {
            let job = wanted.load(Ordering::Relaxed);
            (doorbell.ticket(), job)
        }
    };
    decider.join().unwrap();
    // The decider has rung: the sleep on `ticket` returns at once iff it rang since.
    let sleep_returns = doorbell.rang_since(ticket).is_some();
    assert!(
        job == NEW_JOB || sleep_returns,
        "the dispatcher sleeps on the old job: a lost ring"
    );
}

#[test]
fn a_ring_after_the_ticket_is_never_lost() {
    loom::model(|| look_while_another_core_decides(true));
}

#[test]
fn the_ticket_after_the_read_loses_a_ring() {
    let lost = std::panic::catch_unwind(|| {
        loom::model(|| look_while_another_core_decides(false));
    });
    assert!(
        lost.is_err(),
        "loom found no interleaving that loses a ring with the ticket taken last"
    );
}
