//! A job held by the core whose dispatcher wakes for its optional deadline's timer.
//!
//! kairos's user-space dispatcher sets the policy's timers on one core
//! ([`crate::dispatcher::TIMER_CORE`]): an imprecise job's optional deadline wakes that core's
//! dispatcher (another core's pass handles it too if one happens to come first), and only then
//! does the job's own core switch from its optional part, or from idling after it, to its
//! wind-up. A stall of the timer core covering the instant can therefore hold a job on another
//! core of a partition. It is weighed only with evidence from the job's own segments that it
//! did: the job had reached its optional part (its last segment begun by the instant ran it:
//! it was in that best-effort part, or done with it and waiting for the wind-up), and its next
//! wind-up began only after the stall ended, or, earlier, on a core where the schedule held
//! nothing (no other job's real-time part ran and no optional part began there)
//! since the instant: another core's pass, due anyway (a release), handled the timer before
//! the timer core came back, and the job waited for nothing else. The delay is then the
//! stall's end less the instant, or, when the wind-up began first, its start less the instant
//! and less [`ORDINARY_START`] (what a timer's pass and a worker's start take without a
//! stall). A stall that begins after the instant is not counted (the timer
//! may have been handled before it), and neither is one after which the wind-up may have
//! waited behind another job, which errs towards `schedule`, as the rest of the rule does.

use super::{windup, StallIndex};
use crate::measure::SegmentRecord;
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};

/// What a wind-up's start takes after its optional deadline without a stall, at most: the
/// timer's pass and the worker's start, several times their medians (about 15 and 5 us) and
/// above their 99th percentiles on this machine, as the dispatchers' late wake-up floor is.
pub const ORDINARY_START: Duration = Duration::from_micros(100);

/// The stall on `timer_core` that held the job's optional-deadline timer at `at` past its
/// `slack`, given the job's own segments `own` as its worker recorded them and `busy(core,
/// from, to)`, whether the schedule stood on `core` in `[from, to)`
/// ([`OptionalDeadline::busy`](super::windup::OptionalDeadline::busy)).
pub fn timer_held(
    timer_core: usize,
    at: Instant,
    slack: Duration,
    stalls: &StallIndex,
    own: &[&SegmentRecord],
    busy: impl Fn(usize, u64, u64) -> bool,
) -> Option<Stall> {
    let t = at.as_nanos();
    if !windup::reached_optional(own, at) {
        return None;
    }
    let next = windup::wind_up(own, at);
    let next_start = next.map_or(u64::MAX, |s| s.start);
    let covering = stalls.overlapping(timer_core, at, at + Duration::from_nanos(1));
    if covering.is_empty() {
        return None;
    }
    // Begun before the stall ended: held until then only if nothing else kept the job waiting.
    let waited_for_nothing_else = next.is_some_and(|n| !busy(n.cpu, t, n.start));
    (covering.iter())
        .filter(|s| s.end().as_nanos() <= next_start || waited_for_nothing_else)
        .find(|s| held_by(s, at, next_start) > slack)
        .copied()
}

/// How long `stall`, covering the instant `at`, held what was due then and began at
/// `next_start` (ns): until the stall ended, or, begun before that (another core's pass
/// handled the instant), until it began less [`ORDINARY_START`].
pub fn held_by(stall: &Stall, at: Instant, next_start: u64) -> Duration {
    match stall.end().as_nanos() <= next_start {
        true => stall.end().saturating_since(at),
        false => Duration::from_nanos(next_start.saturating_sub(at.as_nanos()))
            .saturating_sub(ORDINARY_START),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::tests::worked;
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

    /// A segment of the job on core 1 over `[from, to)` us.
    fn ran(from: u64, to: u64, optional: bool) -> SegmentRecord {
        worked(1, (0, 0), (from * 1000, to * 1000), optional)
    }

    #[test]
    fn only_a_stall_covering_the_instant_and_ending_past_the_slack_holds_the_timer() {
        let at = Instant::from_nanos(1_000_000);
        let slack = Duration::from_micros(190);
        // Its optional part done at 900 us, it waits for its wind-up.
        let (before, windup) = (ran(0, 900, true), ran(1_250, 1_400, false));
        let own = [&before, &windup];
        let held = |stalls: &[Stall], own: &[&SegmentRecord]| {
            timer_held(0, at, slack, &StallIndex::new(stalls), own, |_, _, _| true)
        };
        // Covers 1 ms and ends 200 us after it, the wind-up after it: held past the slack.
        assert_eq!(held(&[stall(0, 950, 250)], &own), Some(stall(0, 950, 250)));
        // Ends 150 us after the instant: within the slack.
        assert_eq!(held(&[stall(0, 900, 250)], &own), None);
        // Begins after the instant, however long: the timer may have been handled before it.
        assert_eq!(held(&[stall(0, 1_001, 900)], &own), None);
        // On another core than the timers'.
        assert_eq!(held(&[stall(1, 950, 250)], &own), None);
        // A late wake-up due at the instant itself.
        assert!(held(&[stall(0, 1_000, 191)], &own).is_some());
        // The wind-up began before the stall ended, after another job on its core: it may
        // have waited behind that job rather than for the timer.
        assert_eq!(held(&[stall(0, 950, 400)], &own), None);
        // A mandatory part still ran at the instant, or was preempted before it: the job was
        // not waiting for the timer. Without segments, no evidence either.
        let busy = ran(800, 1_100, false);
        assert_eq!(held(&[stall(0, 950, 250)], &[&busy, &windup]), None);
        let preempted = ran(800, 900, false);
        assert_eq!(held(&[stall(0, 950, 250)], &[&preempted, &windup]), None);
        assert_eq!(held(&[stall(0, 950, 250)], &[]), None);
        // Its optional part ran on past the instant, uncut: held.
        let optional = ran(800, 1_250, true);
        assert!(held(&[stall(0, 950, 250)], &[&optional, &windup]).is_some());
    }

    #[test]
    fn a_wind_up_begun_by_another_pass_during_the_stall_was_held_until_it_began() {
        let at = Instant::from_nanos(1_000_000);
        let slack = Duration::from_micros(190);
        let before = ran(0, 900, true);
        // The timer core stalls from 950 us to 1.4 ms; another core's pass, at a release,
        // begins the wind-up on an idle core 1 at 1.3 ms: held 300 us, 200 beyond an ordinary
        // start, past the slack.
        let idle = |_: usize, _: u64, _: u64| false;
        let held = |windup: &SegmentRecord| {
            let stalls = StallIndex::new(&[stall(0, 950, 450)]);
            timer_held(0, at, slack, &stalls, &[&before, windup], idle)
        };
        assert_eq!(held(&ran(1_300, 1_400, false)), Some(stall(0, 950, 450)));
        // Begun 250 us after the instant: 150 beyond an ordinary start, within the slack.
        assert_eq!(held(&ran(1_250, 1_400, false)), None);
        // An optional segment resumed after the instant is not the wind-up: the timer was held
        // past it, and the wind-up after the stall's end tells.
        let resumed = ran(1_010, 1_100, true);
        let stalls = StallIndex::new(&[stall(0, 950, 450)]);
        let late = ran(1_420, 1_500, false);
        let own = [&before, &resumed, &late];
        assert_eq!(
            timer_held(0, at, slack, &stalls, &own, idle),
            Some(stall(0, 950, 450))
        );
        // The busy check asks about the wind-up's core from the instant to its start.
        let asked = std::cell::Cell::new(None);
        let windup = ran(1_250, 1_400, false);
        let stalls = StallIndex::new(&[stall(0, 950, 400)]);
        timer_held(
            0,
            at,
            slack,
            &stalls,
            &[&before, &windup],
            |core, from, to| {
                asked.set(Some((core, from, to)));
                false
            },
        );
        assert_eq!(asked.get(), Some((1, 1_000_000, 1_250_000)));
    }
}
