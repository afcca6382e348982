//! A job held by the core that handles its optional deadline's timer.
//!
//! kairos's user-space dispatcher handles every timer of the policy on one core
//! ([`crate::dispatcher::TIMER_CORE`]): an imprecise job's optional deadline is seen there, and
//! only then does its own core switch from the optional part (or from idling after it) to the
//! wind-up. A stall of that core covering the timer's instant therefore holds the job even
//! when it runs on another core of a partition: the wind-up cannot start before the stall
//! ends. The delay it adds is the stall's end less the instant; a stall that begins after the
//! instant is not counted (the timer may have been handled before it), which errs towards
//! `schedule`, as the rest of the rule does.

use super::StallIndex;
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};

/// The stall on `timer_core` covering the job's optional-deadline instant `at` that delayed it
/// past `slack`, if any.
pub fn timer_held(
    timer_core: usize,
    at: Instant,
    slack: Duration,
    stalls: &StallIndex,
) -> Option<Stall> {
    let covering = stalls.overlapping(timer_core, at, at + Duration::from_nanos(1));
    (covering.iter())
        .find(|s| s.end().saturating_since(at) > slack)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stalls::Seen;

    fn stall(core: usize, start_us: u64, length_us: u64) -> Stall {
        Stall {
            core,
            start: Instant::from_nanos(start_us * 1000),
            length: Duration::from_micros(length_us),
            held: Duration::ZERO,
            seen: Seen::Dispatcher,
        }
    }

    #[test]
    fn only_a_stall_covering_the_instant_and_ending_past_the_slack_holds_the_timer() {
        let at = Instant::from_nanos(1_000_000);
        let slack = Duration::from_micros(190);
        // Covers 1 ms and ends 200 us after it: held past the slack.
        let index = StallIndex::new(&[stall(0, 950, 250)]);
        assert_eq!(timer_held(0, at, slack, &index), Some(stall(0, 950, 250)));
        // Ends 150 us after the instant: within the slack.
        let index = StallIndex::new(&[stall(0, 900, 250)]);
        assert_eq!(timer_held(0, at, slack, &index), None);
        // Begins after the instant, however long: the timer may have been handled first.
        let index = StallIndex::new(&[stall(0, 1_001, 900)]);
        assert_eq!(timer_held(0, at, slack, &index), None);
        // On another core than the timers'.
        let index = StallIndex::new(&[stall(1, 950, 250)]);
        assert_eq!(timer_held(0, at, slack, &index), None);
        // A late wake-up due at the instant itself.
        let index = StallIndex::new(&[stall(0, 1_000, 191)]);
        assert!(timer_held(0, at, slack, &index).is_some());
    }
}
