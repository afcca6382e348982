//! Late wake-ups of a core's dispatcher, kept as host stalls.
//!
//! A dispatcher is the most important thread of its core below the watchdog and the stall
//! watcher, which only sleep and read the clock. Once its timer expires, or another core rings
//! its doorbell while it sleeps, nothing of the run can keep it from running: only the kernel
//! (interrupts, a non-preemptible section), a thread above the run, or the hypervisor (a vCPU
//! that halted while its core was idle and is not run again at once) can. So the delay from
//! that instant to its first instruction after the sleep is time the host took, seen exactly
//! where the schedule needed the core.
//!
//! Its wait for the scheduler's lock counts too, beyond [`LATE_WAKE_FLOOR_NS`]
//! ([`acted_at`]): a dispatcher that is awake but cannot decide serves its core no better.
//! Another core's pass holds that lock a few microseconds (under 100 at its maximum in the
//! runs measured here, a table policy's mode change included), which the analysis charges as
//! scheduling; holding it hundreds is the host's doing: that core's vCPU was taken in the
//! middle of its pass (lock-holder preemption). Probing a G-RMWP run on this machine showed
//! one: the timer core woke for an optional deadline on time and waited 511 us for the lock
//! while the other core's pass, begun at the part end it reported, finished 570 us later; the
//! wind-up it decided began 540 us late, with no stall and no late wake-up seen.
//!
//! The stall watcher sees the same kind of hole, but only at its own wake-ups (a 1 ms grid) and
//! above its floor (500 us). A hole of a few hundred microseconds on the path of an optional
//! deadline's timer, of a release or of a cross-core ring, unseen by it, is enough to make a job
//! with little slack miss; on this 2-vCPU cloud machine such wake-ups came 150-300 us late with
//! no stall, no steal and a typical wake-up of 4-16 us.
//!
//! Only wake-ups later than [`LATE_WAKE_FLOOR_NS`] are kept, each as a stall
//! ([`Seen::Dispatcher`]) from the instant the wake-up was due, as long as its delay less the
//! usual wake-up of its kind (the dispatcher's median): what the hole holds beyond the
//! machine's ordinary wake-up cost, which the analysis charges as release latency and doorbell
//! cost. It starts at the due instant so that a stall covering an event's instant says the
//! event was held ([`crate::attribution`] weighs an optional deadline's timer so). A ring is timed from the later of
//! the ring and the start of the sleep: a ring that came while the dispatcher was still busy
//! in a pass found it awake, and its wait is the run's own.

use crate::stalls::{Seen, Stall};
use kairos_model::{Duration, Instant};

/// The least delay kept: several times this machine's typical wake-up (timer 13-16 us, ring
/// 3-4 us at the median) and above their 99th percentiles (about 30-60 us), so that only holes
/// no ordinary wake-up makes are counted.
pub const LATE_WAKE_FLOOR_NS: u64 = 100_000;

/// When a dispatcher that woke at `woke` could act, for its late wake-up: its pass waited
/// `lock_wait` for the scheduler's lock, of which only what lies beyond the floor counts
/// (module documentation).
pub fn acted_at(woke: u64, lock_wait: u64) -> u64 {
    woke + lock_wait.saturating_sub(LATE_WAKE_FLOOR_NS)
}

/// Late wake-ups a dispatcher keeps without growing its list; the rest are dropped.
const LATE_WAKES_RESERVED: usize = 4096;

/// What woke the dispatcher late.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woken {
    /// Its alarm, whose typical lateness is the histogram `timer`.
    Timer,
    /// Its doorbell, rung while it slept (the histogram `ring`).
    Ring,
}

/// One dispatcher's late wake-ups: `(what, due, acted)` in run time, `acted` being when it woke
/// or, later, could act ([`acted_at`]).
#[derive(Debug)]
pub struct LateWakes {
    kept: Vec<(Woken, u64, u64)>,
    dropped: u64,
}

impl Default for LateWakes {
    fn default() -> Self {
        LateWakes {
            kept: Vec::with_capacity(LATE_WAKES_RESERVED),
            dropped: 0,
        }
    }
}

impl LateWakes {
    /// Notes a wake-up at `woke` (or the instant it could act, [`acted_at`]) that was due at
    /// `due`, if it was late past the floor; never allocates.
    pub fn note(&mut self, what: Woken, due: u64, woke: u64) {
        if woke.saturating_sub(due) <= LATE_WAKE_FLOOR_NS {
            return;
        }
        if self.kept.len() == self.kept.capacity() {
            self.dropped += 1;
        } else {
            self.kept.push((what, due, woke));
        }
    }

    /// Late wake-ups dropped because the list was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept wake-ups as stalls of `core`, each less the usual wake-up of its kind
    /// (`(timer, ring)`, ns: the dispatcher's medians).
    pub fn stalls(&self, core: usize, (timer, ring): (u64, u64)) -> Vec<Stall> {
        let usual = |what| match what {
            Woken::Timer => timer,
            Woken::Ring => ring,
        };
        (self.kept.iter())
            .map(|&(what, due, woke)| Stall {
                core,
                start: Instant::from_nanos(due),
                length: Duration::from_nanos((woke - due).saturating_sub(usual(what))),
                held: Duration::ZERO,
                seen: Seen::Dispatcher,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Measurements;

    #[test]
    fn a_wait_for_the_lock_counts_only_beyond_the_floor() {
        // A pass behind another core's ordinary one (up to the floor): when it woke.
        assert_eq!(acted_at(5_000_000, 0), 5_000_000);
        assert_eq!(acted_at(5_000_000, LATE_WAKE_FLOOR_NS), 5_000_000);
        // 511 us behind a pass whose vCPU was taken: 411 us later.
        assert_eq!(acted_at(5_000_000, 511_000), 5_411_000);
        // A timer due at 4.98 ms, woken 20 us late: kept only with such a wait.
        let mut late = LateWakes::default();
        late.note(Woken::Timer, 4_980_000, acted_at(5_000_000, 80_000));
        assert!(late.kept.is_empty());
        late.note(Woken::Timer, 4_980_000, acted_at(5_000_000, 511_000));
        assert_eq!(late.kept, vec![(Woken::Timer, 4_980_000, 5_411_000)]);
    }

    #[test]
    fn only_wake_ups_past_the_floor_are_kept_each_less_the_usual_one() {
        let mut m = Measurements::default();
        for ns in [10_000, 15_000, 20_000] {
            m.record("timer", ns);
        }
        for ns in [3_000, 4_000, 5_000] {
            m.record("ring", ns);
        }
        // The histograms keep a median within their precision (0.1 %).
        let (timer, ring) = (m.summary("timer").p50, m.summary("ring").p50);
        assert!((15_000..15_016).contains(&timer) && (4_000..4_005).contains(&ring));
        let mut late = LateWakes::default();
        late.note(Woken::Timer, 1_000_000, 1_000_000 + LATE_WAKE_FLOOR_NS);
        late.note(Woken::Timer, 2_000_000, 2_300_000);
        late.note(Woken::Ring, 3_000_000, 3_150_000);
        let stalls = late.stalls(1, (timer, ring));
        // A wake-up at the floor is ordinary; 300 us late less the median timer wake-up;
        // 150 us late less the median ring.
        let holes: Vec<(u64, u64)> = (stalls.iter())
            .map(|s| (s.start.as_nanos(), s.length.as_nanos()))
            .collect();
        assert_eq!(
            holes,
            vec![(2_000_000, 300_000 - timer), (3_000_000, 150_000 - ring)]
        );
        assert!(stalls
            .iter()
            .all(|s| s.core == 1 && s.seen == Seen::Dispatcher));
        assert_eq!(late.dropped(), 0);
    }

    #[test]
    fn past_its_room_the_list_drops_and_counts_without_growing() {
        let mut late = LateWakes::default();
        let room = late.kept.capacity();
        for i in 0..room as u64 + 3 {
            late.note(Woken::Ring, i * 1_000_000, i * 1_000_000 + 200_000);
        }
        assert_eq!(late.kept.len(), room);
        assert_eq!(late.kept.capacity(), room);
        assert_eq!(late.dropped(), 3);
    }
}
