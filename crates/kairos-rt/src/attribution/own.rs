//! What the host took from a job's own segments, and which stalls are evidence where.
//!
//! A watcher's stall is a hole of its whole core. A late wake-up of a dispatcher
//! ([`Seen::Dispatcher`]) says only that the dispatcher was held: while a worker of that core
//! ran, the worker's own clocks say what it lost ([`Slowness`](super::Slowness)), and a ring's
//! lateness is timed from the ringing core's stamp, so the hole may even have been there. Such
//! a stall is therefore kept only where its core ran no job ([`idle_only`]): a wait, where a
//! late dispatcher is what holds the next job back.
//!
//! A late start of a worker ([`Seen::Worker`]) is a hole of its core between its dispatcher's
//! request and the job's first instruction, which no job's segment covers: cut the same way.
//!
//! Inside a job's own segments the host took the watcher's stalls there and what a slowed
//! core took ([`OwnLoss`]); both see a hole the worker sat out, so in each segment the larger
//! of the two counts, never their sum. Before each segment the host took its worker's late
//! start, if it had one: the job was due to run there and did not, so it counts with them
//! towards the job's lateness, though not against its execution.

use super::windup::{OptionalDeadline, WindUpWait};
use super::{lost_in, timer, Path, RunView, Segment, SlowedSegments, StallIndex};
use crate::measure::JobRecord;
use crate::stalls::{Seen, Stall};
use kairos_model::{Duration, Instant};
use std::collections::BTreeMap;

/// `stalls` with each dispatcher's late wake-up cut to the time its core ran none of the
/// segments `ran` (every job's).
pub fn idle_only(stalls: &[Stall], ran: impl IntoIterator<Item = Segment>) -> Vec<Stall> {
    let mut busy: BTreeMap<usize, Vec<(Instant, Instant)>> = BTreeMap::new();
    for (core, start, end) in ran {
        busy.entry(core).or_default().push((start, end));
    }
    busy.values_mut().for_each(|b| b.sort_unstable());
    let mut kept = Vec::with_capacity(stalls.len());
    for stall in stalls {
        match stall.seen {
            Seen::Watcher => kept.push(*stall),
            Seen::Dispatcher | Seen::Worker | Seen::Path => {
                let ran = busy.get(&stall.core).map_or(&[][..], |b| &b[..]);
                kept.extend(cut_out(stall, ran));
            }
        }
    }
    kept
}

/// The pieces of `stall` outside every interval of `ran` (sorted by start). Two workers may
/// overlap a little at a promised switch, so the intervals are searched by start only.
fn cut_out(stall: &Stall, ran: &[(Instant, Instant)]) -> Vec<Stall> {
    let past = ran.partition_point(|&(start, _)| start < stall.end());
    let inside = ran[..past].iter().filter(|&&(_, end)| end > stall.start);
    let mut pieces = Vec::new();
    let mut from = stall.start;
    for &(start, end) in inside {
        if start > from {
            pieces.push((from, start));
        }
        from = from.max(end);
    }
    if stall.end() > from {
        pieces.push((from, stall.end()));
    }
    (pieces.into_iter())
        .map(|(start, end)| Stall {
            start,
            length: end.saturating_since(start),
            ..*stall
        })
        .collect()
}

/// The late start of the worker of a segment: the stall of its worker that ends where the
/// segment begins ([`crate::dispatcher`] records it so), from the end of the job's previous
/// segment at the earliest: after a migration the hole, placed at its end, may reach back
/// into time the job was still running on its previous core.
fn late_start(&(core, start, _): &Segment, own: &[Segment], index: &StallIndex) -> Option<Stall> {
    let just_before = Instant::from_nanos(start.as_nanos().saturating_sub(1));
    let hole = (index.overlapping(core, just_before, start).iter())
        .find(|s| s.seen == Seen::Worker && s.end() == start)?;
    let previous = (own.iter())
        .filter(|&&(_, from, _)| from < start)
        .map(|&(_, _, end)| end.min(start))
        .max();
    let from = previous.map_or(hole.start, |end| end.max(hole.start));
    (from < start).then(|| Stall {
        start: from,
        length: start.saturating_since(from),
        ..*hole
    })
}

/// What the host took from one job's own segments.
///
/// Only its real-time segments count, and of an imprecise job that had reached its optional
/// part by its optional deadline only those from that instant on: it begins its wind-up at
/// the instant whatever its mandatory and optional parts lost before, so a hole there delays
/// its completion only through the path to its wind-up ([`super::timer`], [`super::windup`]).
pub struct OwnLoss {
    /// In each counted segment the larger of its stalls and its slowing, summed.
    pub real_time: Duration,
    /// The stalls inside them in all, and the longest of those and their late starts.
    pub stalled: Duration,
    pub longest: Option<Stall>,
    /// What a slowed core took from them, in all.
    pub slowed: Duration,
    /// The late starts of their workers, in all, and each.
    pub late_starts: Duration,
    starts: Vec<Stall>,
}

impl OwnLoss {
    /// The loss of the job whose segments are `own` in its `counted` ones (module
    /// documentation of [`OwnLoss`]).
    pub fn of(
        own: &[Segment],
        counted: &[Segment],
        slowed: Option<&SlowedSegments>,
        index: &StallIndex,
    ) -> OwnLoss {
        let inside = |&(core, start, end): &Segment| index.overlapping(core, start, end);
        let late_starts: Vec<Stall> = (counted.iter())
            .filter_map(|s| late_start(s, own, index))
            .collect();
        let mut loss = OwnLoss {
            real_time: Duration::ZERO,
            stalled: Duration::ZERO,
            longest: (counted.iter().flat_map(inside).chain(&late_starts))
                .max_by_key(|s| s.length)
                .copied(),
            slowed: Duration::ZERO,
            late_starts: (late_starts.iter()).fold(Duration::ZERO, |a, s| a + s.length),
            starts: late_starts,
        };
        for &(core, start, end) in counted {
            let stalled = lost_in((start, end), &[core], index);
            let (from, to) = (start.as_nanos(), end.as_nanos());
            let slowed = slowed.map_or(Duration::ZERO, |s| s.begun_in(from, to));
            loss.stalled += stalled;
            loss.slowed += slowed;
            loss.real_time += stalled.max(slowed);
        }
        loss
    }

    /// What the host took from the job where it was due to run: inside its counted segments
    /// and at their late starts.
    pub fn held(&self) -> Duration {
        self.real_time + self.late_starts
    }

    /// What the host took from the job, and what the platform took, given its wait for its
    /// wind-up `wait` ([`WindUpWait`]): with [`OwnLoss::held`], the wait's part in place of the
    /// late start of the wind-up's worker when larger (that late start is one of the holes on
    /// the wait's path, so they count once).
    fn with_wait(&self, wait: Option<&WindUpWait>) -> (Duration, Duration) {
        let held = self.held();
        let Some(w) = wait else {
            return (held, held);
        };
        let its_start = (self.starts.iter())
            .find(|s| s.core == w.core && s.end() == w.start)
            .map_or(Duration::ZERO, |s| s.length);
        let rest = held.saturating_sub(its_start);
        (
            rest + its_start.max(w.host),
            rest + its_start.max(w.platform),
        )
    }

    /// Whether the host took from the job ([`OwnLoss::held`], and the holes on the path of its
    /// wait for its wind-up, [`WindUpWait::host`]) at least its lateness, and the platform
    /// (that, and the path's ordinary cost the analysis charges and the twin does not,
    /// [`WindUpWait::platform`]) more than its slack `s_j`. Without the host's time the job
    /// would have done its work that much earlier in the time its core was its own, so it
    /// would have completed by its deadline (the counterfactual of the tables' rule,
    /// `crate::table::cause`); and the platform's time alone overran the room the schedule
    /// left it. When only one holds, the schedule's own delay was needed too, and the miss
    /// stays the schedule's. An unfinished job has no lateness to weigh. The stall to name:
    /// the wait's when it was the largest part, else the longest stall when the stalls were
    /// larger than the slowing.
    pub fn took_its_lateness(
        &self,
        job: &JobRecord,
        slack: Duration,
        wait: Option<&WindUpWait>,
    ) -> Option<Option<Stall>> {
        let late = job.completion?.checked_sub(job.deadline)?;
        let (host, platform) = self.with_wait(wait);
        if host < Duration::from_nanos(late) || platform <= slack {
            return None;
        }
        let stalls = self.stalled + self.late_starts;
        let path = wait.filter(|w| w.host >= stalls && w.host >= self.slowed);
        Some(match path {
            Some(w) => Some(w.as_stall()),
            None => self.longest.filter(|_| stalls >= self.slowed),
        })
    }
}

/// What the rule's first case weighs of a job's own time, besides the stalls of its window
/// (`attribution`'s module documentation).
pub struct OwnTime<'a> {
    pub job: &'a JobRecord,
    /// Its segments, and its real-time ones.
    pub segments: (&'a [Segment], &'a [Segment]),
    pub slowed: Option<&'a SlowedSegments>,
    /// Its segments in the run's simulation and what the analysis charges for the path to a
    /// wind-up that the simulation does not ([`super::Twin::path`]); none without one.
    pub twin: Option<(&'a [Segment], Path)>,
    /// Its optional deadline, if its task has one before its deadline.
    pub od: Option<OptionalDeadline<'a>>,
}

/// The last two ways of the rule's first case: the host took the job's lateness from its own
/// time (its counted segments, their late starts, the holes on the path to its wind-up), or
/// held its optional deadline's timer ([`super::timer`]). Whether it did, with the stall to
/// name if any, and the host's time weighed ([`OwnLoss::held`] with the path's holes).
/// `index` holds the stalls cut to where no job ran, `every` those that are evidence on the
/// timer core, `all` every stall of the run.
pub fn own_time_held(
    own: &OwnTime,
    run: &RunView,
    s_j: Duration,
    (index, every, all): (&StallIndex, &StallIndex, &StallIndex),
) -> (Option<Option<Stall>>, Duration) {
    let (segments, real_time) = own.segments;
    let od = own.od.as_ref();
    let reached = od.filter(|od| od.reached_optional());
    let counted: Vec<Segment> = (real_time.iter())
        .filter(|s| reached.is_none_or(|od| s.1 >= od.at))
        .copied()
        .collect();
    let loss = OwnLoss::of(segments, &counted, own.slowed, index);
    let timer = run.timer_core.map(|core| (every, core));
    let wait = (reached.zip(own.twin)).and_then(|(od, twin)| od.wind_up_wait(all, timer, twin));
    let host = loss.with_wait(wait.as_ref()).0;
    let held = (loss.took_its_lateness(own.job, s_j, wait.as_ref())).or_else(|| {
        let od = od?;
        let busy = |cpu: usize, from: u64, to: u64| od.busy(cpu, from, to);
        timer::timer_held(run.timer_core?, od.at, s_j, every, &od.own, busy).map(Some)
    });
    (held, host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn at(us: u64) -> Instant {
        Instant::from_nanos(us * 1000)
    }

    fn late_wake(core: usize, start_us: u64, length_us: u64) -> Stall {
        Stall {
            core,
            start: at(start_us),
            length: Duration::from_micros(length_us),
            held: Duration::ZERO,
            seen: Seen::Dispatcher,
        }
    }

    fn every(by_job: &HashMap<(usize, u64), Vec<Segment>>) -> Vec<Segment> {
        by_job.values().flatten().copied().collect()
    }

    #[test]
    fn a_late_wake_up_counts_only_where_its_core_ran_no_job() {
        // Core 0 ran [100, 200) and [250, 300) us; a late wake-up over [50, 400) us.
        let segments = HashMap::from([
            ((0, 0), vec![(0, at(100), at(200))]),
            ((1, 0), vec![(0, at(250), at(300)), (1, at(0), at(1000))]),
        ]);
        let pieces: Vec<(u64, u64)> = idle_only(&[late_wake(0, 50, 350)], every(&segments))
            .iter()
            .map(|s| (s.start.as_nanos() / 1000, s.length.as_nanos() / 1000))
            .collect();
        assert_eq!(pieces, vec![(50, 50), (200, 50), (300, 100)]);
        // On core 1, busy throughout: nothing left. A watcher's stall stays whole.
        assert!(idle_only(&[late_wake(1, 50, 350)], every(&segments)).is_empty());
        let watched = Stall {
            seen: Seen::Watcher,
            ..late_wake(1, 50, 350)
        };
        assert_eq!(idle_only(&[watched], every(&segments)), vec![watched]);
    }
}
