//! A job whose release waited for a core the host held.
//!
//! kairos's user-space dispatcher takes a task's release in at a pass of the core that wakes
//! for it: the core its task's last job was switched in on ([`JobRecord::release_core`]), or
//! any other core's pass that comes first (every pass takes in each release due by then).
//! Under a global policy that core need not be the one the job then runs on: a stall of it
//! covering the release leaves the job unseen while another core idles. The rule's other ways
//! miss it: no stall touched a core the job ran on, and the room its backlog left on all the
//! cores can be larger than the stall. A real run with a hold injected over such releases
//! (`tests/release_held.rs`) shows it: without this way, each of its held jobs was counted as
//! the schedule's miss. A study on this machine had two misses of that shape under G-FP and
//! G-EDF: jobs begun 6.3-6.7 ms late on CPU 1 while CPU 0 lost 8.7-9.1 ms to one stall (its
//! steal time), the backlog's room 0.2-1.2 ms more than the stall.
//!
//! The release is held as the optional deadline's timer of [`super::timer`] is, and weighed
//! the same way: a stall of the release's core covering the release, with the job's first
//! segment begun after the stall ended, or earlier (another core's pass took it in) but that
//! late beyond [`ORDINARY_START`](super::timer::ORDINARY_START), held the job from the release to then, provided the
//! schedule stood on nothing else on the core it began on from the release to its start
//! ([`OptionalDeadline::busy`](super::windup::OptionalDeadline::busy)'s test: no other job's
//! real-time part ran there, no optional part began there), so that the job waited for the
//! release alone. Held more than its slack, the miss is the host's. A stall begun after the
//! release, a job that never ran, and a job that waited behind another all err towards
//! `schedule`. An imprecise job weighed from its optional deadline (it had reached its
//! optional part by then) is not weighed so: its wind-up began at the instant whatever held
//! its release.
//!
//! The core is its task's home as the pass that took the release in found it: a catch-up pass
//! over several instants may have switched the task's previous job in elsewhere first, and
//! the old home, not rung when its wake-up moves later, may take the release in too; either
//! way the job's late start is needed as evidence, so both err towards `schedule`.

use super::timer::held_by;
use super::{Segment, StallIndex};
use crate::measure::JobRecord;
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};

/// The stall on the core that was to take in `job`'s release that held the job past `slack`,
/// and how long it held it, given its segments `own`, the instant `from` it is weighed from
/// (its release, or its optional deadline: then none) and `busy(cpu, from, to)`: whether the
/// schedule stood on `cpu` in `[from, to)` (ns).
pub fn release_held(
    (job, from): (&JobRecord, Instant),
    own: &[Segment],
    slack: Duration,
    stalls: &StallIndex,
    busy: impl Fn(usize, u64, u64) -> bool,
) -> Option<(Stall, Duration)> {
    let core = job
        .release_core
        .filter(|_| from.as_nanos() <= job.release)?;
    let &(cpu, first, _) = own.iter().min_by_key(|s| s.1)?;
    let (at, first) = (Instant::from_nanos(job.release), first.as_nanos());
    // A core's stalls are disjoint: at most one covers the instant.
    let stall = *stalls
        .overlapping(core, at, at + Duration::from_nanos(1))
        .first()?;
    if first <= job.release || busy(cpu, job.release, first) {
        return None;
    }
    let held = held_by(&stall, at, first);
    (held > slack).then_some((stall, held))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watcher's stall of `core` from `start_us` for `length_us`.
    fn stall(core: usize, start_us: u64, length_us: u64) -> Stall {
        crate::attribution::tests::stall(core, start_us * 1000, length_us * 1000)
    }

    /// Task 1's job released at 1 ms, due at 3 ms, its release taken in on core 0.
    fn job() -> JobRecord {
        JobRecord {
            task: 1,
            job: 0,
            release: 1_000_000,
            deadline: 3_000_000,
            requested: None,
            start: None,
            completion: None,
            discarded: None,
            cpu: Some(1),
            release_core: Some(0),
        }
    }

    /// The job, weighed from its release.
    fn weighed(job: &JobRecord) -> (&JobRecord, Instant) {
        (job, Instant::from_nanos(job.release))
    }

    /// A segment of the job on core 1 over `[from, to)` us.
    fn ran(from: u64, to: u64) -> Segment {
        (
            1,
            Instant::from_nanos(from * 1000),
            Instant::from_nanos(to * 1000),
        )
    }

    #[test]
    fn a_stall_of_the_releasing_core_over_the_release_holds_the_job_until_it_ends() {
        let slack = Duration::from_micros(500);
        let idle = |_: usize, _: u64, _: u64| false;
        let held = |stalls: &[Stall], first: Segment| {
            let own = [ran(2_900, 2_950), first];
            let found = release_held(weighed(&job()), &own, slack, &StallIndex::new(stalls), idle);
            found.map(|(stall, _)| stall)
        };
        // Core 0 held from 0.9 to 1.7 ms, the job begun on idle core 1 at 1.75 ms: held 700
        // us, past its 500 us of slack (its later segment does not count as its first).
        let long = stall(0, 900, 800);
        assert_eq!(held(&[long], ran(1_750, 2_500)), Some(long));
        let index = StallIndex::new(&[long]);
        let found = release_held(weighed(&job()), &[ran(1_750, 2_500)], slack, &index, idle);
        assert_eq!(found, Some((long, Duration::from_micros(700))));
        // Ends 400 us after the release: within the slack.
        assert_eq!(held(&[stall(0, 900, 500)], ran(1_450, 2_000)), None);
        // Begun after the release, however long: the release may have been taken in first.
        assert_eq!(held(&[stall(0, 1_001, 2_000)], ran(3_050, 3_500)), None);
        // A stall of another core than the release's.
        assert_eq!(held(&[stall(1, 900, 800)], ran(1_750, 2_500)), None);
        // Another core's pass took the release in during the stall: held until the job began,
        // less an ordinary start. 1.65 ms: 550 us, past the slack; 1.55 ms: 450, within it.
        let longer = stall(0, 900, 1_500);
        assert_eq!(held(&[longer], ran(1_650, 2_500)), Some(longer));
        assert_eq!(held(&[longer], ran(1_550, 2_500)), None);
        // Without the release's core (kernel dispatch) or a segment, no evidence.
        let unknown = JobRecord {
            release_core: None,
            ..job()
        };
        let own = [ran(1_750, 2_500)];
        assert_eq!(
            release_held(weighed(&unknown), &own, slack, &index, idle),
            None
        );
        assert_eq!(
            release_held(weighed(&job()), &[], slack, &index, idle),
            None
        );
        // An imprecise job weighed from its optional deadline, at 2.6 ms: its wind-up began
        // then whatever held its release.
        let od = (&job(), Instant::from_nanos(2_600_000));
        assert_eq!(release_held(od, &own, slack, &index, idle), None);
    }

    #[test]
    fn a_job_that_waited_behind_another_was_not_held_by_its_release() {
        let slack = Duration::from_micros(500);
        let index = StallIndex::new(&[stall(0, 900, 800)]);
        let own = [ran(1_750, 2_500)];
        // The busy check asks about the job's first core from the release to its start.
        let asked = std::cell::Cell::new(None);
        let busy = |core: usize, from: u64, to: u64| {
            asked.set(Some((core, from, to)));
            true
        };
        assert_eq!(
            release_held(weighed(&job()), &own, slack, &index, busy),
            None
        );
        assert_eq!(asked.get(), Some((1, 1_000_000, 1_750_000)));
    }
}
