//! The path from an imprecise job's optional deadline to its wind-up, and the holes the run
//! recorded on it.
//!
//! At its optional deadline a job that reached its optional part waits for its wind-up. On
//! kairos's user-space dispatcher that wait is a chain of the platform's own steps: the timer
//! core's wake-up at the instant, its pass, a ring to the job's core, that dispatcher's wake-up
//! and pass, the worker's start. Each step is kept as a stall only when it alone is more than
//! 100 us late, and the rule weighed such a stall only when one was longer than the job's
//! slack: probing the imprecise study on this machine showed wind-ups begun 300-380 us after
//! their optional deadline on an idle core with a 209 us late wake-up of the timer core at the
//! instant, against 280 us of slack, where that task's wind-ups usually begin 3-60 us after it.
//!
//! So the holes recorded on the path count together ([`WindUpWait::host`]): those of the
//! wind-up's core between the instant and the wind-up's start (late wake-ups of its
//! dispatcher, the late start of its worker, its watcher's stalls) and those of the timer core
//! that cover the instant, each cut to that span and never more than the wait beyond the
//! twin's own (the simulation of the run runs the same policy code: its wait is the
//! schedule's). They count only when nothing of the schedule stood on the path: no other job's
//! real-time part ran on the wind-up's core meanwhile, and no optional part began there (a pass
//! that chose one after the instant either did not know of the wind-up or passed it over).
//!
//! The rest of the wait is the path's ordinary cost, of which the simulation charges only the
//! switch into the wind-up; the overhead-aware analysis also charges the timer's lateness and
//! the ring ([`Twin::path`](super::Twin)). With them, the platform's part
//! ([`WindUpWait::platform`]) weighs against the job's slack from the twin, which does not
//! contain them; [`OwnLoss`](super::own::OwnLoss) adds both to what the job's own segments
//! lost after the instant.

use super::{Path, RunView, Segment, StallIndex};
use crate::measure::{JobRecord, SegmentRecord};
use crate::stalls::{Seen, Stall};
use kairos_model::{Duration, Instant};

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

    /// Whether the job had reached its optional part by the instant: the last of its segments
    /// begun by then ran it (it was in that part, or done with it and waiting for its wind-up).
    pub fn reached_optional(&self) -> bool {
        reached_optional(&self.own, self.at)
    }

    /// Its wind-up: its first real-time segment begun at or after the instant.
    pub fn wind_up(&self) -> Option<&'a SegmentRecord> {
        wind_up(&self.own, self.at)
    }

    /// Whether the schedule stood between the instant and a wind-up on `cpu` in `[from, to)`
    /// (ns): another job's real-time part ran there then, or an optional part (any job's, its
    /// own too) began there after `from`. A best-effort part already running at the instant
    /// yields to a ready wind-up at once, so it holds nothing.
    pub fn busy(&self, cpu: usize, from: u64, to: u64) -> bool {
        schedule_busy(self.all, self.job, cpu, (from, to))
    }

    /// The job's wait for its wind-up, with the holes the run recorded on its path (module
    /// documentation): `holes` every stall of the run by core, `timer` the stalls that are
    /// evidence on the timer core and that core, `twin` the job's segments in the run's
    /// simulation and what the analysis charges for the path. None without evidence.
    pub fn wind_up_wait(
        &self,
        holes: &StallIndex,
        timer: Option<(&StallIndex, usize)>,
        (twin, path): (&[Segment], Path),
    ) -> Option<WindUpWait> {
        let windup = self.wind_up().filter(|_| self.reached_optional())?;
        let (t, start) = (self.at.as_nanos(), windup.start);
        if self.busy(windup.cpu, t, start) {
            return None;
        }
        let twin_start = (twin.iter().map(|s| s.1.as_nanos()))
            .filter(|&s| s >= t)
            .min()?;
        let beyond_twin = Duration::from_nanos(start.saturating_sub(twin_start));
        let end = Instant::from_nanos(start);
        let mut seen: Vec<&Stall> = holes.overlapping(windup.cpu, self.at, end).iter().collect();
        if let Some((index, core)) = timer.filter(|&(_, core)| core != windup.cpu) {
            let covering = index.overlapping(core, self.at, self.at + Duration::from_nanos(1));
            seen.extend(covering);
        }
        let host = covered(&seen, (self.at, end)).min(beyond_twin);
        // The ring is on the path only when another core's pass handles the timer.
        let path = match timer {
            Some((_, core)) if core != windup.cpu => path.timer + path.ring,
            _ => path.timer,
        };
        (host > Duration::ZERO).then_some(WindUpWait {
            core: windup.cpu,
            start: end,
            host,
            platform: (host + path).min(beyond_twin),
        })
    }
}

/// Whether, of the run's segments `all`, another job than `job` ran a real-time part on `cpu`
/// in `[from, to)` (ns), or an optional part (any job's) began there after `from`: the schedule
/// stood there between an instant and `job`'s start ([`OptionalDeadline::busy`]).
pub fn schedule_busy(
    all: &[SegmentRecord],
    job: (usize, u64),
    cpu: usize,
    (from, to): (u64, u64),
) -> bool {
    (all.iter()).any(|s| {
        let overlaps = s.cpu == cpu && s.start < to && s.end > from;
        match s.is_optional() {
            false => overlaps && (s.task, s.job) != job,
            true => overlaps && s.start > from,
        }
    })
}

/// Whether the job whose segments are `own` had reached its optional part by `at`
/// ([`OptionalDeadline::reached_optional`]).
pub fn reached_optional(own: &[&SegmentRecord], at: Instant) -> bool {
    let t = at.as_nanos();
    (own.iter().filter(|s| s.start <= t))
        .max_by_key(|s| s.start)
        .is_some_and(|s| s.is_optional())
}

/// The wind-up of the job whose segments are `own`, after `at` ([`OptionalDeadline::wind_up`]).
pub fn wind_up<'a>(own: &[&'a SegmentRecord], at: Instant) -> Option<&'a SegmentRecord> {
    let t = at.as_nanos();
    (own.iter())
        .filter(|s| s.start >= t && !s.is_optional())
        .min_by_key(|s| s.start)
        .copied()
}

/// The time in `[from, to)` that at least one of `stalls` covers (each cut to it; stalls of two
/// cores can overlap).
fn covered(stalls: &[&Stall], (from, to): (Instant, Instant)) -> Duration {
    let mut spans: Vec<(u64, u64)> = (stalls.iter())
        .map(|s| (s.start.max(from).as_nanos(), s.end().min(to).as_nanos()))
        .filter(|(a, b)| a < b)
        .collect();
    spans.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (a, b) in spans {
        let a = a.max(reach);
        if b > a {
            total += b - a;
        }
        reach = reach.max(b);
    }
    Duration::from_nanos(total)
}

/// How a job's wait for its wind-up after its optional deadline was held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindUpWait {
    /// The wind-up's core and first instruction.
    pub core: usize,
    pub start: Instant,
    /// The holes recorded on its path, beyond the twin's own wait: the host's part.
    pub host: Duration,
    /// The host's part and the path's ordinary cost the analysis charges and the twin does
    /// not, at most the wait beyond the twin's: the platform's part.
    pub platform: Duration,
}

impl WindUpWait {
    /// The host's part as a stall ([`Seen::Path`]) ending at the wind-up's start.
    pub fn as_stall(&self) -> Stall {
        Stall {
            core: self.core,
            start: Instant::from_nanos(self.start.as_nanos() - self.host.as_nanos()),
            length: self.host,
            held: Duration::ZERO,
            seen: Seen::Path,
        }
    }
}

#[cfg(test)]
mod tests;
