//! Model checking of the G-MCRES mode-change protocol (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 6.2, Algorithms 1 and 2; section 6.3, the generation in `scm`) with loom: every
//! interleaving of the atomics of [`kairos_rt::mode`] is explored.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --release -p kairos-rt
//! --test loom_mode --test loom_handoff`
#![cfg(loom)]

use kairos_rt::mode::{ModeState, ModeWord, Overrun};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

/// A state where every core has made one scheduling pass in generation 0.
fn fresh(cores: usize, levels: usize) -> Arc<ModeState> {
    let state = Arc::new(ModeState::new(cores, levels));
    for core in 0..cores {
        state.schedule(core, 0, |_| ());
    }
    state
}

#[test]
fn two_simultaneous_overruns_raise_the_mode_once() {
    loom::model(|| {
        let state = fresh(2, 3);
        let switches = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..2)
            .map(|core| {
                let (state, switches) = (state.clone(), switches.clone());
                thread::spawn(move || {
                    state.overrun(core, |_, _| {
                        switches.fetch_add(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        let outcomes: Vec<Overrun> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let raised = outcomes
            .iter()
            .filter(|o| matches!(o, Overrun::Raised { .. }))
            .count();
        assert_eq!(raised, 1);
        assert_eq!(switches.load(Ordering::SeqCst), 1);
        assert_eq!(state.scm(), ModeWord::new(0, 1));
        assert_eq!(state.access_count(), 0);
    });
}

#[test]
fn an_overrun_seen_with_a_stale_lcm_changes_nothing() {
    loom::model(|| {
        let state = fresh(2, 3);
        // Core 0 raised to level 1; core 1 has not rescheduled since.
        state.overrun(0, |_, _| ());
        let stale = {
            let state = state.clone();
            thread::spawn(move || {
                state.overrun(1, |_, _| {
                    panic!("a core with a stale lcm switched the tables")
                })
            })
        };
        let current = {
            let state = state.clone();
            thread::spawn(move || {
                state.schedule(0, 0, |_| ());
                state.overrun(0, |_, _| ())
            })
        };
        assert!(matches!(stale.join().unwrap(), Overrun::Unchanged { .. }));
        assert!(matches!(current.join().unwrap(), Overrun::Raised { .. }));
        assert_eq!(state.scm(), ModeWord::new(0, 2));
    });
}

#[test]
fn a_pass_overlapping_a_table_switch_restarts() {
    loom::model(|| {
        let state = fresh(2, 3);
        // The "tables": two words the switch rewrites one after the other. A pass that read
        // one old and one new word has seen a mixed state.
        let tables = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let switcher = {
            let (state, tables) = (state.clone(), tables.clone());
            thread::spawn(move || {
                state.overrun(0, |_, to| {
                    tables[0].store(to.raw_mode(), Ordering::SeqCst);
                    tables[1].store(to.raw_mode(), Ordering::SeqCst);
                })
            })
        };
        let pass = state.schedule(1, 0, |lcm| {
            (
                lcm.mode_at(0),
                tables[0].load(Ordering::SeqCst),
                tables[1].load(Ordering::SeqCst),
            )
        });
        let (mode, first, second) = pass.selected;
        assert_eq!((first, second), (mode, mode), "decision from a mixed state");
        switcher.join().unwrap();
    });
}

#[test]
fn hyper_period_rollover_returns_to_the_lowest_mode_without_a_write() {
    loom::model(|| {
        let state = fresh(2, 3);
        state.overrun(0, |_, _| ());
        state.schedule(1, 0, |_| ());
        // Core 0 enters hyper-period 1 and overruns there; core 1 still works in hyper-period
        // 0 and overruns in it (a late, obsolete overrun).
        let new_period = {
            let state = state.clone();
            thread::spawn(move || {
                let seen = state.schedule(0, 1, |lcm| lcm.mode_at(1)).selected;
                (seen, state.overrun(0, |_, _| ()))
            })
        };
        let old_period = {
            let state = state.clone();
            thread::spawn(move || state.overrun(1, |_, _| ()))
        };
        let (seen, outcome) = new_period.join().unwrap();
        old_period.join().unwrap();
        assert_eq!(seen, 0, "the new hyper-period starts at the lowest level");
        assert_eq!(
            outcome,
            Overrun::Raised {
                from: ModeWord::new(1, 0),
                to: ModeWord::new(1, 1)
            }
        );
        assert_eq!(state.scm(), ModeWord::new(1, 1));
        assert_eq!(state.schedule(1, 1, |lcm| lcm.mode_at(1)).selected, 1);
    });
}
