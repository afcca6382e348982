//! Model checking of the G-RES migration hand-off (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section
//! 5.3) with loom: a cyclic instantaneous migration of 2 and 3 tasks over 2 and 3 cores cannot
//! deadlock (every interleaving terminates) and a task is never running on two cores.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --profile tests -p kairos-rt
//! --test loom_handoff`
#![cfg(loom)]

use kairos_rt::handoff::{Holders, Take};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Core `c` runs task `c` and must run task `c + 1 mod cores` next, all at one instant.
fn cyclic_migration(cores: usize) {
    let holders = Arc::new(Holders::new(cores));
    // running[t] = core + 1 while task t runs there, 0 otherwise.
    let running: Arc<Vec<AtomicUsize>> =
        Arc::new((0..cores).map(|c| AtomicUsize::new(c + 1)).collect());
    for core in 0..cores {
        assert_eq!(holders.take(core, core, false), Take::Acquired);
    }
    let threads: Vec<_> = (0..cores)
        .map(|core| {
            let (holders, running) = (holders.clone(), running.clone());
            thread::spawn(move || {
                let want = (core + 1) % cores;
                let mut held = Some(core);
                loop {
                    match holders.take(want, core, held.is_some()) {
                        Take::Acquired => break,
                        Take::GiveUp { .. } => {
                            let task = held.take().expect("gives up only while holding");
                            running[task].store(0, Ordering::SeqCst);
                            assert!(holders.release(task, core));
                        }
                        Take::Wait { .. } => thread::yield_now(),
                    }
                }
                if let Some(task) = held.take() {
                    running[task].store(0, Ordering::SeqCst);
                    assert!(holders.release(task, core));
                }
                let before = running[want].swap(core + 1, Ordering::SeqCst);
                assert_eq!(before, 0, "task {want} running on two cores");
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    for task in 0..cores {
        assert_eq!(holders.holder(task), Some((task + cores - 1) % cores));
    }
}

#[test]
fn two_core_cyclic_migration_cannot_deadlock() {
    loom::model(|| cyclic_migration(2));
}

#[test]
fn three_core_cyclic_migration_cannot_deadlock() {
    let mut builder = loom::model::Builder::new();
    // Three spinning threads explode the schedule space; three preemptions cover every
    // order in which the three give-ups and takes can interleave.
    builder.preemption_bound = Some(3);
    builder.check(|| cyclic_migration(3));
}
