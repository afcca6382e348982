//! Lock-free system criticality mode changes of G-MCRES (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 6.2 "System criticality modes and mode changes", Algorithms 1 and 2, and section 6.3
//! "Criticality mode reset").
//!
//! Shared state, exactly as the paper names it:
//! - `scm` (shared current mode): one 64-bit word, `(hyper-period generation << 10) | mode`
//!   (figure 6), written only by the compare-and-set of Algorithm 1;
//! - `lcm[k]` (local current mode): the value core `k` read at its last scheduling pass;
//! - `ac` (access counter): the number of cores inside Algorithm 1.
//!
//! The generation is `floor(now / H)`. A word whose generation is older than the current one
//! reads as the lowest mode, so the system returns to level 0 at every hyper-period boundary
//! with no write and no synchronisation (section 6.3). Extended values compare as plain unsigned
//! integers: a later generation, or the same generation at a higher mode, is greater.
//!
//! One detail section 6.3 leaves implicit: after a rollover `scm` still holds the previous
//! generation while `lcm[k]` was reset to `(g << 10) | 0`, so the literal `CAS(scm, lcm[k],
//! lcm[k] + 1)` could never succeed again. [`ModeState::overrun`] therefore compares the
//! *generation-normalised* `scm` with `lcm[k]` and swaps from the raw value it read; it retries
//! only when `scm` changed from one stale value to another under it (bounded by the number of
//! raises), so it stays lock-free and keeps the single-winner property.
//!
//! The atomics come from [`sync`], which is `loom`'s under `--cfg loom` so the very same code is
//! model checked (`tests/loom_mode.rs`).

/// Atomics and the spin hint, from `std` or, under `--cfg loom`, from `loom`.
pub mod sync {
    #[cfg(loom)]
    pub use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    #[cfg(not(loom))]
    pub use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    /// One iteration of a busy wait: a CPU pause hint, or a yield point under loom (which
    /// otherwise explores an unbounded spin forever).
    #[inline]
    pub fn spin_pause() {
        #[cfg(loom)]
        loom::thread::yield_now();
        #[cfg(not(loom))]
        std::hint::spin_loop();
    }
}

use sync::{spin_pause, AtomicU64, AtomicUsize, Ordering};

/// Bits of the mode field (figure 6: bits 0-9).
pub const MODE_BITS: u32 = 10;
/// The most levels a system may have.
pub const MAX_LEVELS: usize = 1 << MODE_BITS;
const MODE_MASK: u64 = (1 << MODE_BITS) - 1;

/// An extended mode value: hyper-period generation in the high bits, mode in the low ten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ModeWord(pub u64);

impl ModeWord {
    /// The word for `mode` in hyper-period `generation`.
    pub fn new(generation: u64, mode: usize) -> Self {
        debug_assert!(mode < MAX_LEVELS);
        ModeWord((generation << MODE_BITS) | (mode as u64 & MODE_MASK))
    }

    pub fn generation(self) -> u64 {
        self.0 >> MODE_BITS
    }

    /// The mode field, whatever the generation.
    pub fn raw_mode(self) -> usize {
        (self.0 & MODE_MASK) as usize
    }

    /// The value as seen from hyper-period `generation`: an older word reads as the lowest
    /// mode of `generation` (section 6.3); a current or newer one is itself.
    pub fn at_generation(self, generation: u64) -> Self {
        if self.generation() < generation {
            ModeWord::new(generation, 0)
        } else {
            self
        }
    }

    /// The mode in force during hyper-period `generation`.
    pub fn mode_at(self, generation: u64) -> usize {
        if self.generation() == generation {
            self.raw_mode()
        } else {
            0
        }
    }
}

/// What Algorithm 1 did for one detected overrun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overrun {
    /// This core won the compare-and-set and switched the tables: `from` -> `to`.
    Raised { from: ModeWord, to: ModeWord },
    /// The mode was already raised past this core's `lcm` (a simultaneous overrun won, or the
    /// overrun belongs to an obsolete table), or the core is at the highest level: nothing
    /// changed and only a local rescheduling is due.
    Unchanged { lcm: ModeWord, scm: ModeWord },
}

/// The result of one scheduling pass (Algorithm 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass<T> {
    /// What `select` returned in the consistent attempt.
    pub selected: T,
    /// The `lcm[k]` the selection was made under.
    pub lcm: ModeWord,
    /// How many attempts were thrown away because a mode change overlapped them (line 3 or 6).
    pub restarts: u32,
}

/// `scm`, every `lcm[k]` and `ac`.
#[derive(Debug)]
pub struct ModeState {
    scm: AtomicU64,
    lcm: Vec<AtomicU64>,
    ac: AtomicUsize,
    levels: usize,
}

impl ModeState {
    /// Generation 0, lowest mode, on `cores` cores of a system with `levels` levels
    /// (`1..=MAX_LEVELS`, clamped).
    pub fn new(cores: usize, levels: usize) -> Self {
        ModeState {
            scm: AtomicU64::new(0),
            lcm: (0..cores).map(|_| AtomicU64::new(0)).collect(),
            ac: AtomicUsize::new(0),
            levels: levels.clamp(1, MAX_LEVELS),
        }
    }

    /// The raw shared word (for reports; use [`ModeWord::mode_at`] to interpret it).
    pub fn scm(&self) -> ModeWord {
        ModeWord(self.scm.load(Ordering::SeqCst))
    }

    /// Core `core`'s local word.
    pub fn lcm(&self, core: usize) -> ModeWord {
        ModeWord(self.lcm[core].load(Ordering::SeqCst))
    }

    /// The number of cores currently inside Algorithm 1.
    pub fn access_count(&self) -> usize {
        self.ac.load(Ordering::SeqCst)
    }

    /// Algorithm 1, run by core `core` when the job of a task whose criticality is above
    /// `lcm[core]`'s mode is still unfinished at the end of its last interval.
    ///
    /// Lines 1-2: `INC(ac); CAS(scm, lcm[k], lcm[k] + 1)`. The single winner runs `switch(from,
    /// to)`, which must deactivate the old tables, activate the new ones and request the
    /// rescheduling of every core (lines 3-5), before DEC(ac) (line 6). A loser only does
    /// DEC(ac) (line 8); the local rescheduling of line 9 is the caller's next pass.
    pub fn overrun(&self, core: usize, switch: impl FnOnce(ModeWord, ModeWord)) -> Overrun {
        let lcm = self.lcm(core);
        if lcm.raw_mode() + 1 >= self.levels {
            return Overrun::Unchanged {
                lcm,
                scm: self.scm(),
            };
        }
        let raised = ModeWord(lcm.0 + 1);
        self.ac.fetch_add(1, Ordering::SeqCst);
        let won = self.compare_and_raise(lcm, raised);
        match won {
            Ok(()) => {
                switch(lcm, raised);
                self.ac.fetch_sub(1, Ordering::SeqCst);
                Overrun::Raised {
                    from: lcm,
                    to: raised,
                }
            }
            Err(scm) => {
                self.ac.fetch_sub(1, Ordering::SeqCst);
                Overrun::Unchanged { lcm, scm }
            }
        }
    }

    /// Line 2 with the section 6.3 normalisation: succeeds iff `scm`, read in `lcm`'s
    /// generation, equals `lcm`; on failure returns the `scm` that was seen.
    fn compare_and_raise(&self, lcm: ModeWord, raised: ModeWord) -> Result<(), ModeWord> {
        let mut seen = self.scm.load(Ordering::SeqCst);
        loop {
            if ModeWord(seen).at_generation(lcm.generation()) != lcm {
                return Err(ModeWord(seen));
            }
            match self
                .scm
                .compare_exchange(seen, raised.0, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Ok(()),
                // Only possible when `seen` was stale and another stale raise replaced it, or a
                // winner of this generation did: the check above decides which.
                Err(now) => seen = now,
            }
        }
    }

    /// Algorithm 2 on core `core` during hyper-period `generation`: `lcm[k] <- scm` (read in
    /// this generation); restart while ac != 0; `select` under mode `lcm`; restart if `scm`
    /// moved or `ac != 0` meanwhile. Returns only a selection made from one consistent state.
    pub fn schedule<T>(
        &self,
        core: usize,
        generation: u64,
        mut select: impl FnMut(ModeWord) -> T,
    ) -> Pass<T> {
        let mut restarts = 0;
        loop {
            let lcm = self.refresh(core, generation);
            if self.ac.load(Ordering::SeqCst) != 0 {
                restarts += 1;
                spin_pause();
                continue;
            }
            let selected = select(lcm);
            let scm = ModeWord(self.scm.load(Ordering::SeqCst)).at_generation(generation);
            if scm != lcm || self.ac.load(Ordering::SeqCst) != 0 {
                restarts += 1;
                spin_pause();
                continue;
            }
            return Pass {
                selected,
                lcm,
                restarts,
            };
        }
    }

    /// Line 1: `lcm[k] <- scm`, where a word from an older hyper-period becomes the lowest mode
    /// of `generation` (no write to `scm`).
    fn refresh(&self, core: usize, generation: u64) -> ModeWord {
        let lcm = ModeWord(self.scm.load(Ordering::SeqCst)).at_generation(generation);
        self.lcm[core].store(lcm.0, Ordering::SeqCst);
        lcm
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;
    use std::sync::{Arc, Barrier};

    #[test]
    fn words_compare_as_integers() {
        assert!(ModeWord::new(1, 0) > ModeWord::new(0, 3));
        assert!(ModeWord::new(2, 1) > ModeWord::new(2, 0));
        assert_eq!(ModeWord::new(5, 3).generation(), 5);
        assert_eq!(ModeWord::new(5, 3).raw_mode(), 3);
        assert_eq!(ModeWord::new(4, 2).mode_at(5), 0);
        assert_eq!(ModeWord::new(4, 2).at_generation(5), ModeWord::new(5, 0));
        assert_eq!(ModeWord::new(6, 1).at_generation(5), ModeWord::new(6, 1));
    }

    #[test]
    fn one_overrun_raises_by_one_and_switches_once() {
        let state = ModeState::new(2, 3);
        state.schedule(0, 0, |_| ());
        let mut switched = Vec::new();
        let outcome = state.overrun(0, |from, to| switched.push((from, to)));
        assert_eq!(
            outcome,
            Overrun::Raised {
                from: ModeWord::new(0, 0),
                to: ModeWord::new(0, 1)
            }
        );
        assert_eq!(switched.len(), 1);
        assert_eq!(state.scm().mode_at(0), 1);
        assert_eq!(state.access_count(), 0);
    }

    #[test]
    fn stale_lcm_changes_nothing() {
        let state = ModeState::new(2, 3);
        state.schedule(0, 0, |_| ());
        state.schedule(1, 0, |_| ());
        state.overrun(0, |_, _| ());
        // Core 1 has not rescheduled since: its overrun belongs to the level-0 table.
        let outcome = state.overrun(1, |_, _| panic!("a stale core must not switch tables"));
        assert!(matches!(outcome, Overrun::Unchanged { .. }));
        assert_eq!(state.scm(), ModeWord::new(0, 1));
    }

    #[test]
    fn highest_level_cannot_rise() {
        let state = ModeState::new(1, 2);
        state.schedule(0, 0, |_| ());
        state.overrun(0, |_, _| ());
        state.schedule(0, 0, |_| ());
        let outcome = state.overrun(0, |_, _| panic!("no level above the highest"));
        assert!(matches!(outcome, Overrun::Unchanged { .. }));
        assert_eq!(state.scm().mode_at(0), 1);
    }

    #[test]
    fn rollover_reads_lowest_mode_and_can_rise_again() {
        let state = ModeState::new(2, 3);
        state.schedule(0, 0, |_| ());
        state.overrun(0, |_, _| ());
        // Next hyper-period: nobody wrote scm, yet the pass sees level 0.
        let pass = state.schedule(1, 1, |lcm| lcm.mode_at(1));
        assert_eq!(pass.selected, 0);
        assert_eq!(pass.lcm, ModeWord::new(1, 0));
        assert_eq!(state.scm(), ModeWord::new(0, 1));
        // An overrun in the new hyper-period raises from its level 0.
        let outcome = state.overrun(1, |_, _| ());
        assert_eq!(
            outcome,
            Overrun::Raised {
                from: ModeWord::new(1, 0),
                to: ModeWord::new(1, 1)
            }
        );
    }

    #[test]
    fn late_overrun_of_the_previous_hyper_period_does_not_leak() {
        let state = ModeState::new(2, 2);
        state.schedule(0, 0, |_| ());
        state.schedule(1, 1, |_| ());
        // Core 0 still works in generation 0 and raises there; generation 1 stays at level 0.
        assert!(matches!(
            state.overrun(0, |_, _| ()),
            Overrun::Raised { .. }
        ));
        assert_eq!(state.schedule(1, 1, |lcm| lcm.mode_at(1)).selected, 0);
    }

    #[test]
    fn simultaneous_overruns_on_threads_raise_once() {
        for _ in 0..200 {
            let cores = 4;
            let state = Arc::new(ModeState::new(cores, 4));
            for core in 0..cores {
                state.schedule(core, 0, |_| ());
            }
            let switches = Arc::new(AtomicU32::new(0));
            let barrier = Arc::new(Barrier::new(cores));
            let handles: Vec<_> = (0..cores)
                .map(|core| {
                    let (state, switches, barrier) =
                        (state.clone(), switches.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        state.overrun(core, |_, _| {
                            switches.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        })
                    })
                })
                .collect();
            let raised = handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .filter(|o| matches!(o, Overrun::Raised { .. }))
                .count();
            assert_eq!(raised, 1);
            assert_eq!(switches.load(std::sync::atomic::Ordering::SeqCst), 1);
            assert_eq!(state.scm(), ModeWord::new(0, 1));
        }
    }

    #[test]
    fn pass_overlapping_a_switch_restarts() {
        let state = ModeState::new(2, 3);
        state.schedule(0, 0, |_| ());
        let mut attempts = Vec::new();
        // Core 0 raises the mode while core 1 is in the middle of its selection.
        let pass = state.schedule(1, 0, |lcm| {
            if attempts.is_empty() {
                state.overrun(0, |_, _| ());
            }
            attempts.push(lcm.mode_at(0));
            lcm.mode_at(0)
        });
        assert_eq!(attempts, vec![0, 1]);
        assert_eq!(pass.selected, 1);
        assert_eq!(pass.restarts, 1);
    }
}
