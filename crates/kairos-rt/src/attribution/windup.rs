//! The path from an imprecise job's optional deadline to its wind-up, when nothing of the
//! schedule stood on it.
//!
//! At its optional deadline a job that reached its optional part waits for its wind-up. On
//! kairos's user-space dispatcher that wait is a chain of the platform's own steps: the timer
//! core's wake-up at the instant, its pass, a ring to the job's core, that dispatcher's wake-up
//! and pass, the worker's start. Each is recorded as a stall only when it alone is held past
//! the late wake-up or late start floor (100 us), so a chain of steps each somewhat late goes
//! unseen: probing the imprecise study on this machine showed wind-ups begun 300-380 us after
//! their optional deadline on an idle core, with one late wake-up of 209 us on the path and
//! nothing else recorded, where the same wind-up usually begins 3-60 us after it.
//!
//! So when the job's wind-up core ran no other job from the instant to the wind-up's start,
//! the whole wait is the platform's, less what the schedule itself made the job wait: the
//! same wait in the run's simulation (its twin), which runs the same policy code. Of it,
//! [`ORDINARY_START`] is the path's ordinary cost (the timer's and the ring's wake-ups and
//! the worker's start at about their 99th percentiles, which the overhead-aware analysis
//! charges and the twin does not) and the rest the host's ([`WindUpWait::held`]).
//! [`crate::attribution`] adds it to what the host took from the job's own segments.

use super::own::OwnLoss;
use super::timer::{self, ORDINARY_START};
use super::{RunView, Segment, StallIndex};
use crate::measure::{JobRecord, SegmentRecord};
use crate::stalls::{Seen, Stall};
use kairos_model::{Duration, Instant};
use std::collections::HashMap;

/// A missed job's optional deadline and what the run saw around it.
pub struct OptionalDeadline<'a> {
    /// The instant, before the job's deadline.
    pub at: Instant,
    /// The job's own segments as its workers recorded them.
    pub own: Vec<&'a SegmentRecord>,
    job: (usize, u64),
    all: &'a [SegmentRecord],
}

impl<'a> OptionalDeadline<'a> {
    /// The optional deadline of `job` in `run`, if its task has one before the job's deadline.
    pub fn of(job: &JobRecord, run: &RunView<'a>) -> Option<Self> {
        let od = (run.measured.optional_deadlines.get(job.task))
            .copied()
            .flatten()?;
        let at = Instant::from_nanos(job.release) + od;
        let own = (run.worker_segments.iter())
            .filter(|s| (s.task, s.job) == (job.task, job.job))
            .collect();
        (at.as_nanos() < job.deadline).then_some(OptionalDeadline {
            at,
            own,
            job: (job.task, job.job),
            all: run.worker_segments,
        })
    }

    /// Whether another job's real-time part ran on `cpu` in `[from, to)` (ns). A best-effort
    /// (optional) part runs only while no real-time work is ready on its core and yields to
    /// any at once, so a job never waits behind one: one running after the instant says only
    /// that the wind-up was not yet ready to run there.
    pub fn busy(&self, cpu: usize, from: u64, to: u64) -> bool {
        let best_effort = |s: &SegmentRecord| s.worker_time.is_some_and(|w| w.optional);
        (self.all.iter()).any(|s| {
            s.cpu == cpu
                && (s.task, s.job) != self.job
                && s.start < to
                && s.end > from
                && !best_effort(s)
        })
    }

    /// The job's wait for its wind-up ([`wind_up_wait`]), its twin's segments `twin` giving
    /// the schedule's own (none when the twin did not run the job after the instant: no
    /// evidence).
    pub fn wind_up_wait(&self, twin: Option<&[Segment]>) -> Option<WindUpWait> {
        let twin_start = match twin {
            None => None,
            Some(segments) => Some(
                (segments.iter())
                    .map(|&(_, start, _)| start)
                    .filter(|&start| start >= self.at)
                    .min()?,
            ),
        };
        wind_up_wait(self.at, &self.own, twin_start, |c, f, t| self.busy(c, f, t))
    }
}

/// How long a job waited for its wind-up after its optional deadline with its core idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindUpWait {
    /// The wind-up's core and first instruction.
    pub core: usize,
    pub start: Instant,
    /// The wait beyond the twin's own: the platform's part of it.
    pub platform: Duration,
}

impl WindUpWait {
    /// The part of the wait beyond an ordinary path: the host's.
    pub fn held(&self) -> Duration {
        self.platform.saturating_sub(ORDINARY_START)
    }

    /// The host's part as a stall ([`Seen::Path`]) ending at the wind-up's start.
    pub fn as_stall(&self) -> Stall {
        let held = self.held();
        Stall {
            core: self.core,
            start: Instant::from_nanos(self.start.as_nanos() - held.as_nanos()),
            length: held,
            held: Duration::ZERO,
            seen: Seen::Path,
        }
    }
}

/// The wait of the job whose worker segments are `own` for its wind-up after its optional
/// deadline `at`, when it had reached its optional part by then (its last segment begun by
/// `at` ran it) and `busy(core, from, to)` says no other job ran on the wind-up's core in
/// `[at, start)`; `twin_start`, the first segment of the job beginning at or after `at` in the
/// run's simulation, gives the schedule's own wait (none without a twin).
pub fn wind_up_wait(
    at: Instant,
    own: &[&SegmentRecord],
    twin_start: Option<Instant>,
    busy: impl Fn(usize, u64, u64) -> bool,
) -> Option<WindUpWait> {
    let t = at.as_nanos();
    let optional = |s: &SegmentRecord| s.worker_time.is_some_and(|w| w.optional);
    let last_begun = (own.iter())
        .filter(|s| s.start <= t)
        .max_by_key(|s| s.start)?;
    if !optional(last_begun) {
        return None;
    }
    let windup = (own.iter())
        .filter(|s| s.start >= t && !optional(s))
        .min_by_key(|s| s.start)?;
    if busy(windup.cpu, t, windup.start) {
        return None;
    }
    let schedules_own = twin_start.map_or(0, |s| s.as_nanos().saturating_sub(t));
    let waited = windup.start - t;
    Some(WindUpWait {
        core: windup.cpu,
        start: Instant::from_nanos(windup.start),
        platform: Duration::from_nanos(waited.saturating_sub(schedules_own)),
    })
}

/// The last two ways of the rule's first case: the host took the job's lateness from its own
/// time (its segments, their late starts, its wait for its wind-up, [`windup`]), or held its
/// optional deadline's timer ([`timer`]). The stall to name, if any.
pub fn own_time_held(
    job: &JobRecord,
    run: &RunView,
    loss: &OwnLoss,
    twins: Option<&HashMap<(usize, u64), Vec<Segment>>>,
    s_j: Duration,
    every: &StallIndex,
) -> Option<Option<Stall>> {
    let od = OptionalDeadline::of(job, run);
    let twin = twins.map(|t| twin_of(t, job));
    let wait = od.as_ref().and_then(|od| od.wind_up_wait(twin));
    (loss.took_its_lateness(job, s_j, wait.as_ref()))
        .or_else(|| timer_stall(od.as_ref()?, run, s_j, every).map(Some))
}

/// A stall on the run's timer core that held the job's optional-deadline timer past its
/// slack `s_j` ([`timer`]).
fn timer_stall(
    od: &OptionalDeadline,
    run: &RunView,
    s_j: Duration,
    every: &StallIndex,
) -> Option<Stall> {
    let busy = |cpu: usize, from: u64, to: u64| od.busy(cpu, from, to);
    timer::timer_held(run.timer_core?, od.at, s_j, every, &od.own, busy)
}

/// A job's segments in its twin (none when the twin never ran it).
fn twin_of<'a>(twins: &'a HashMap<(usize, u64), Vec<Segment>>, job: &JobRecord) -> &'a [Segment] {
    twins.get(&(job.task, job.job)).map_or(&[][..], |s| &s[..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::WorkerTime;

    /// A segment of the job on core 1 over `[from, to)` us.
    fn ran(from: u64, to: u64, optional: bool) -> SegmentRecord {
        let time = WorkerTime {
            on_cpu: Duration::from_micros(to - from),
            work: Duration::from_micros(to - from),
            dispatching: Duration::ZERO,
            optional,
        };
        SegmentRecord {
            cpu: 1,
            task: 0,
            job: 0,
            start: from * 1000,
            end: to * 1000,
            worker_time: Some(time),
        }
    }

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn an_idle_cores_wait_past_the_twins_is_the_platforms_and_past_an_ordinary_path_the_hosts() {
        let at = Instant::from_nanos(1_000_000);
        let idle = |_: usize, _: u64, _: u64| false;
        // Optional part done at 700 us; the wind-up begins 330 us after the instant.
        let (before, windup) = (ran(0, 700, true), ran(1_330, 1_500, false));
        let wait = wind_up_wait(at, &[&before, &windup], None, idle).unwrap();
        assert_eq!(wait.platform, us(330));
        assert_eq!(wait.held(), us(330) - ORDINARY_START);
        assert_eq!((wait.core, wait.start), (1, Instant::from_nanos(1_330_000)));
        // The host's part ends at the wind-up's first instruction.
        let stall = wait.as_stall();
        assert_eq!(stall.end(), wait.start);
        assert_eq!((stall.length, stall.seen), (wait.held(), Seen::Path));
        // The twin began its wind-up 30 us after the instant: that much was the schedule's.
        let twin = Some(Instant::from_nanos(1_030_000));
        let wait = wind_up_wait(at, &[&before, &windup], twin, idle).unwrap();
        assert_eq!(wait.platform, us(300));
        // An ordinary path holds nothing of the host's.
        let soon = ran(1_060, 1_200, false);
        let wait = wind_up_wait(at, &[&before, &soon], None, idle).unwrap();
        assert_eq!(wait.held(), Duration::ZERO);
        // A twin that began later than the run leaves the platform nothing.
        let late_twin = Some(Instant::from_nanos(1_400_000));
        let wait = wind_up_wait(at, &[&before, &windup], late_twin, idle).unwrap();
        assert_eq!(wait.platform, Duration::ZERO);
    }

    #[test]
    fn no_wait_counts_without_evidence_that_only_the_path_held_the_job() {
        let at = Instant::from_nanos(1_000_000);
        let idle = |_: usize, _: u64, _: u64| false;
        let windup = ran(1_330, 1_500, false);
        // Another job ran on the wind-up's core meanwhile: it may have waited behind it.
        let before = ran(0, 700, true);
        let asked = std::cell::Cell::new(None);
        let busy = |core: usize, from: u64, to: u64| {
            asked.set(Some((core, from, to)));
            true
        };
        assert_eq!(wind_up_wait(at, &[&before, &windup], None, busy), None);
        assert_eq!(asked.get(), Some((1, 1_000_000, 1_330_000)));
        // Its mandatory part ran at the instant: not waiting for the wind-up.
        let mandatory = ran(800, 1_100, false);
        assert_eq!(wind_up_wait(at, &[&mandatory, &windup], None, idle), None);
        // No segment by the instant, or no wind-up after it.
        assert_eq!(wind_up_wait(at, &[&windup], None, idle), None);
        assert_eq!(wind_up_wait(at, &[&before], None, idle), None);
        // Its optional part resumed after the instant is not the wind-up.
        let resumed = ran(1_010, 1_100, true);
        let wait = wind_up_wait(at, &[&before, &resumed, &windup], None, idle).unwrap();
        assert_eq!(wait.start, Instant::from_nanos(1_330_000));
    }
}
