//! What the host took from the work ahead of a job on its core: a way of the rule's first case
//! under a partitioned policy whose cores each run their jobs in a static order
//! ([`CoreOrder`]: P-EDF, P-FP, P-RM, P-RMWP).
//!
//! Weighed only for a job `j`, completed at `c`, whose core completed by `c` every job ahead of
//! it in that order released before `c`, or whose worker had begun its optional part, best
//! effort, with its optional deadline still to come (no real-time work pending): then, while
//! `j` had real-time work pending, the core ran `j`, jobs ahead of it, jobs behind it (a
//! priority inversion, the schedule's) or nothing (a gap of dispatching, a hole of the host),
//! and `j` completed once the work ahead of it released by then was done. Take away the time
//! the host took inside the real-time segments of `j` and of those jobs, and in the gaps, while
//! `j` waited, `X`, and the same work, and no more, is done `X` earlier: a job released later
//! than that no longer comes first, and none runs before its release. So `j` completes by `c -
//! X` (a priority-driven, preemptive, work-conserving schedule of independent jobs on one
//! processor is predictable: less execution completes no job later, Ha and Liu, "Validating
//! timing constraints in multiprocessor and distributed real-time systems", ICDCS 1994; the `X`
//! is the busy window's). When `X` reaches the job's lateness, the job would have met its
//! deadline without the host's time: the counterfactual of the own-time way ([`super::own`]),
//! which counts only the job's own segments and misses a job held behind work the host slowed
//! on its core (a P-EDF job 1.1 ms late behind jobs that ran at half speed for milliseconds). A
//! job ahead of `j` still unfinished at `c` had waited behind it: without the host's time it
//! could have run first and delayed `j` instead, so the way does not apply.
//!
//! Stalls that reach the lateness decide without the job's slack: the rest of its delay, the
//! schedule's and whatever the host took unrecorded, fit in its room, since without the
//! stalls it completes by its deadline (the oracle replays such runs without their stalls and
//! finds each such job done by its completion less those stalls). The job's own segments
//! are among those counted, so on these runs the own-time way's slack test
//! ([`super::own`]) is left to the slowing: a slowed core's loss is measured against the
//! run's median share, and a job preempted more often than most refills its cache more than
//! most, which is the run's own cost; so the larger of the stalls and the slowing in each
//! segment decides only when it also outlasted the slack, as in the own-time way.
//!
//! Where it begins: at the job's release, or, for an imprecise job, at its optional deadline,
//! and then only if it had reached its optional part by then (only its wind-up is real-time
//! work from then on). An imprecise job whose mandatory part ran past its optional deadline is
//! not weighed so: with less work it would have waited for the optional deadline's timer
//! before its wind-up, and that path is not predictable so.
//!
//! In each counted segment the host took the larger of the stalls inside it and what a slowed
//! core took from it before the job's completion, as in the job's own segments. A segment of
//! work ahead already running when the window begins counts from then on, by its stalls only
//! (the work it had left was ahead too, but a slowed core's loss is known per segment, not
//! placed in time). In a gap, where the core ran no job's real-time part while `j` waited, a
//! work-conserving policy would have run `j` or work ahead of it: the stalls there count too.
//! An imprecise job's wind-up becomes runnable only once the timer core's pass handles its
//! optional deadline, so on another core the gaps count from an ordinary such pass after the
//! instant ([`ORDINARY_START`](super::timer::ORDINARY_START)).
//! A P-RMWP study's job showed why: its optional deadline fell inside an 8.8 ms stall of its
//! idle core, during which work ahead of it came due (two releases and two optional
//! deadlines, by its set's periods); that work ran once the stall ended, and its wind-up after
//! it, 1.9 ms late, with no stall inside any of those segments. By the same periods three jobs
//! ahead of it were in their optional parts at its completion, which had kept this way from
//! weighing it at all.
//!
//! On several cores a stall of one delays a job of another only when no other core could take
//! its work; the backlog's case weighs that, not this one.

use super::slowed::Slowed;
use super::{lost_in, Segment, StallIndex};
use crate::measure::{JobRecord, SegmentRecord};
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};
use kairos_policy::{CoreOrder, JobTimes};
use std::collections::{BTreeMap, HashMap};

/// Each job's real-time segments.
type ByJob = HashMap<(usize, u64), Vec<Segment>>;

/// One real-time segment as the index keeps it: start, end, the job's key.
type Ran = (Instant, Instant, (usize, u64));

/// The real-time segments of a run by core, in order of start, and its jobs, read with the
/// order its cores ran them in.
pub struct WorkAhead<'a> {
    order: &'a CoreOrder,
    jobs: HashMap<(usize, u64), JobTimes>,
    by_core: BTreeMap<usize, Vec<Ran>>,
    /// Each core's jobs, under the core its task's jobs ran on; `None` for a task none of
    /// whose jobs ran, which could have been on any core.
    left: BTreeMap<Option<usize>, Vec<Left>>,
}

/// A job as [`WorkAhead::one_waited_behind`] reads it.
#[derive(Clone, Copy)]
struct Left {
    times: JobTimes,
    /// When it left its core (completed or discarded), if it did.
    at: Option<u64>,
    /// When its worker began its optional part and when its optional deadline came (ns):
    /// between the two it had no real-time work pending.
    optional: Option<(u64, u64)>,
}

/// What the host took from the work ahead of a job in its window, and in its gaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Taken {
    /// In each counted segment the larger of its stalls and its slowing, and in each gap its
    /// stalls, summed.
    pub host: Duration,
    /// The stalls inside them, in all, and the longest.
    pub stalled: Duration,
    pub longest: Option<Stall>,
    /// What a slowed core took from them, in all.
    pub slowed: Duration,
}

impl Taken {
    /// Counts the part `cut` of a segment on `core`, which a slowed core took `slow` from, or
    /// a gap (`slow` zero).
    fn add(
        &mut self,
        cut: (Instant, Instant),
        slow: Duration,
        (core, index): (usize, &StallIndex),
    ) {
        let stalled = lost_in(cut, &[core], index);
        self.host += stalled.max(slow);
        self.stalled += stalled;
        self.slowed += slow;
        let longest = (index.overlapping(core, cut.0, cut.1).iter())
            .chain(self.longest.as_ref())
            .max_by_key(|s| (s.length, std::cmp::Reverse(s.start)));
        self.longest = longest.copied();
    }
}

/// The stretches of `[from, to)` in which none of `held` (one core's real-time segments of
/// every job, by start) ran.
fn gaps(held: &[Ran], (from, to): (Instant, Instant)) -> Vec<(Instant, Instant)> {
    let (mut reach, mut gaps) = (from, Vec::new());
    for &(start, end, _) in held.iter().filter(|h| h.1 > from) {
        if start > reach {
            gaps.push((reach, start.min(to)));
        }
        reach = reach.max(end);
    }
    if reach < to {
        gaps.push((reach, to));
    }
    gaps.retain(|(a, b)| a < b);
    gaps
}

fn times(j: &JobRecord) -> JobTimes {
    JobTimes {
        task: j.task,
        number: j.job,
        release: Instant::from_nanos(j.release),
        deadline: Instant::from_nanos(j.deadline),
    }
}

impl<'a> WorkAhead<'a> {
    /// The index of `jobs`, their real-time segments `real_time`, the run's worker segments
    /// `worker` and each task's optional deadline.
    pub fn new(
        order: &'a CoreOrder,
        jobs: &[JobRecord],
        (real_time, worker): (&ByJob, &[SegmentRecord]),
        optional_deadlines: &[Option<Duration>],
    ) -> Self {
        let mut by_core: BTreeMap<usize, Vec<Ran>> = BTreeMap::new();
        for (&key, segments) in real_time {
            for &(core, start, end) in segments {
                by_core.entry(core).or_default().push((start, end, key));
            }
        }
        by_core.values_mut().for_each(|v| v.sort_unstable());
        let core_of: HashMap<usize, usize> = (jobs.iter())
            .filter_map(|j| Some((j.task, j.cpu?)))
            .collect();
        let mut optional_begun: HashMap<(usize, u64), u64> = HashMap::new();
        for s in worker.iter().filter(|s| s.is_optional()) {
            let first = optional_begun.entry((s.task, s.job)).or_insert(s.start);
            *first = (*first).min(s.start);
        }
        let mut left: BTreeMap<Option<usize>, Vec<Left>> = BTreeMap::new();
        for j in jobs {
            let core = core_of.get(&j.task).copied();
            let od = optional_deadlines.get(j.task).copied().flatten();
            let begun = optional_begun.get(&(j.task, j.job)).copied();
            let optional = (begun.zip(od)).map(|(b, od)| (b, j.release + od.as_nanos()));
            let at = j.completion.or(j.discarded);
            (left.entry(core).or_default()).push(Left {
                times: times(j),
                at,
                optional,
            });
        }
        WorkAhead {
            order,
            jobs: jobs.iter().map(|j| ((j.task, j.job), times(j))).collect(),
            by_core,
            left,
        }
    }

    /// Whether a job ahead of `job` on `core` released before `done` had not left the core by
    /// then, nor had its worker begun its optional part by then with its optional deadline
    /// still to come (an optional part begins only once the mandatory part is done, and the
    /// wind-up only at the optional deadline): it waited behind `job` (module documentation).
    fn one_waited_behind(&self, job: &JobRecord, core: usize, done: u64) -> bool {
        let (mine, at) = (times(job), Instant::from_nanos(done));
        let there = [Some(core), None]
            .into_iter()
            .filter_map(|c| self.left.get(&c));
        there.flatten().any(|k| {
            let waiting = (k.optional).is_some_and(|(begun, od)| begun <= done && done < od);
            k.times.release < at
                && (k.times.task, k.times.number) != (job.task, job.job)
                && self.order.runs_before(k.times, mine)
                && k.at.is_none_or(|t| t > done)
                && !waiting
        })
    }

    /// What the host took from the real-time segments on `core` in `[from, to)` of `job` and of
    /// the jobs ahead of it (module documentation): those begun there, each cut to `to`, and
    /// the one running at `from`, from then on; and in the gaps of `[gaps_from, to)` where
    /// the core ran no job's real-time part.
    pub fn taken(
        &self,
        job: &JobRecord,
        core: usize,
        (from, gaps_from, to): (Instant, Instant, Instant),
        (slowed, index): (&Slowed, &StallIndex),
    ) -> Taken {
        let held = self.by_core.get(&core).map_or(&[][..], |v| &v[..]);
        let first = held.partition_point(|h| h.0 < from);
        let past = held.partition_point(|h| h.0 < to);
        let mine = times(job);
        let ahead = |key: &(usize, u64)| {
            *key == (job.task, job.job)
                || (self.jobs.get(key)).is_some_and(|k| self.order.runs_before(*k, mine))
        };
        let mut taken = Taken::default();
        // Two segments may overlap a little at a promised switch: each is cut from the
        // furthest end counted so far, so no stall counts twice.
        let mut covered = from;
        // The segment running at `from`, the latest begun of those still running: the rest of
        // its work was ahead too, but its slowing is not placed in time.
        let running = held[..first].iter().rev().take(2).find(|h| h.1 > from);
        if let Some((_, end, _)) = running.filter(|h| ahead(&h.2)) {
            covered = (*end).min(to);
            taken.add((from, covered), Duration::ZERO, (core, index));
        }
        for (start, end, key) in held[first..past.max(first)].iter().filter(|h| ahead(&h.2)) {
            let slow = (slowed.get(key)).map_or(Duration::ZERO, |s| {
                s.of_segment(start.as_nanos(), to.as_nanos())
            });
            let cut = ((*start).max(covered), (*end).min(to));
            if cut.1 > cut.0 {
                covered = cut.1;
                taken.add(cut, slow, (core, index));
            }
        }
        for gap in gaps(&held[..past], (gaps_from, to)) {
            taken.add(gap, Duration::ZERO, (core, index));
        }
        taken
    }

    /// Whether the host took from the work ahead of `job` on `core`, from `from` to its
    /// completion, and in the gaps from `gaps_from` ([`WorkAhead::taken`]), at least its
    /// lateness: in stalls, or with the slowing, also more than its slack `s_j` (module
    /// documentation); and the host's time there (zero for a job that did not complete or that
    /// a job ahead of it waited behind).
    /// The stall to name: the longest inside the counted segments, when their stalls were at
    /// least their slowing.
    pub fn took_its_lateness(
        &self,
        job: &JobRecord,
        (core, from, gaps_from): (usize, Instant, Instant),
        s_j: Duration,
        (slowed, index): (&Slowed, &StallIndex),
    ) -> (Option<Option<Stall>>, Duration) {
        let Some(done) = job.completion else {
            return (None, Duration::ZERO);
        };
        let Some(late) = done.checked_sub(job.deadline) else {
            return (None, Duration::ZERO);
        };
        if self.one_waited_behind(job, core, done) {
            return (None, Duration::ZERO);
        }
        let window = (from, gaps_from, Instant::from_nanos(done));
        let taken = self.taken(job, core, window, (slowed, index));
        let late = Duration::from_nanos(late);
        if taken.stalled < late && (taken.host < late || taken.host <= s_j) {
            return (None, taken.host);
        }
        let named = taken.longest.filter(|_| taken.stalled >= taken.slowed);
        (Some(named), taken.host)
    }
}
