//! Why each raise of the mode happened in a table run. A table raises the mode when a job is
//! unfinished at the end of its last interval in the current mode (Pautet, Robert, Tardieu,
//! "Litmus-RT plugins for global static scheduling of mixed criticality systems", section
//! 6.1). On real cores that is one of three things:
//! - **asked**: the job was asked for more work than its task's WCET at that level (an
//!   injected or drawn overrun, what mode changes are for);
//! - **host**: the job lacked work at its stop, and the host took at least that much from it,
//!   so without the host it would have finished. The host's take is the larger of the stalls
//!   ([`crate::stalls`]) inside its intervals while that mode was in force, each on its
//!   interval's core, and the time a slowed core took from its segments before the stop
//!   ([`Slowness`]). The larger, not the sum: the two can overlap;
//! - **schedule**: otherwise. The dispatcher's own costs took more than the room its intervals
//!   left over its work, which is what an overhead-aware table (the slot guard) promises they
//!   do not; a job that had done its work by its stop, seen finished only after it, is late
//!   by the dispatcher's latency.
//!
//! A raise with several overrunning jobs is the host's only if each of them is (any of them
//! would have raised the mode), and asked if any was asked.
//!
//! The work it lacked is its asked work less the work of its segments before the stop, and a
//! segment that runs past the stop counts only what it surely did before it: its work less the
//! part after the stop outside the watcher's stalls there (a late stop is often the host
//! holding the core, and no thread of the run runs in a watcher's stall), its slowed time less
//! the whole part after the stop. The host's take is measured from below (holes
//! under the stall watcher's floor are not seen, and a core slowed for the whole run is not
//! counted), so the rule errs towards `schedule`, as the attribution of deadline misses does
//! ([`crate::attribution`]).
//!
//! A deadline miss in a table run is the same event: a job unfinished at the end of its last
//! interval in the mode in force, stopped for good (its task is not above the mode). Its cause
//! is weighed by the same rule ([`attribute_misses`]), not by the rule of work-conserving runs,
//! whose backlog argument does not hold for a table (a job waits for its interval on an idle
//! core); an `asked` one counts as the schedule's, and so does one whose job has no interval
//! in the mode in force.

use crate::attribution::{idle_only, lost_in, Cause, SlackFrom, Slowness, StallIndex};
use crate::dispatcher::ModeChangeRecord;
use crate::measure::{RunResult, SegmentRecord};
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};
use kairos_policy::table::TablePlan;
use kairos_policy::JobId;
use serde::Serialize;
use std::collections::HashMap;

/// Why the mode rose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RaiseCause {
    Asked,
    Host,
    Schedule,
}

/// One raise of the mode (or one stop for good), the job weighed, and the evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raise {
    /// The job's stop: the end of its last interval in the mode it left (ns since the start).
    pub nominal: u64,
    pub job: JobId,
    pub cause: RaiseCause,
    /// Its work less what it had surely done by `nominal`.
    pub lacked: Duration,
    /// Stall time inside its intervals while the mode was in force.
    pub stalled: Duration,
    /// The longest of those stalls.
    pub stall: Option<Stall>,
    /// What a slowed core took from its segments before `nominal`.
    pub slowed: Duration,
}

/// Each raise of `changes` with its cause: `asked[task][job]` is the work each job was asked
/// for (as its body ran it), the run's segments and stalls the evidence.
pub fn raises(
    plan: &TablePlan,
    result: &RunResult,
    changes: &[ModeChangeRecord],
    asked: &[Vec<u64>],
) -> Vec<Raise> {
    let evidence = Evidence::new(plan, result);
    (changes.iter())
        .filter(|m| m.to > m.from)
        .filter_map(|m| {
            let since = mode_since(changes, m.nominal);
            let weighed: Vec<Raise> = (m.triggers.iter())
                .map(|&job| {
                    let work = Duration::from_nanos(work_of(asked, job)?);
                    Some(evidence.raise(m.from, (job, since, m.nominal), work))
                })
                .collect::<Option<_>>()?;
            combined(weighed)
        })
        .collect()
}

/// The raise of several overrunning jobs: the first one's evidence, asked if any was, the
/// host's only if every one was.
fn combined(weighed: Vec<Raise>) -> Option<Raise> {
    let cause = |c| weighed.iter().any(|r: &Raise| r.cause == c);
    let first = *weighed.first()?;
    let cause = match (cause(RaiseCause::Asked), cause(RaiseCause::Schedule)) {
        (true, _) => RaiseCause::Asked,
        (false, true) => RaiseCause::Schedule,
        (false, false) => RaiseCause::Host,
    };
    Some(Raise { cause, ..first })
}

fn work_of(asked: &[Vec<u64>], job: JobId) -> Option<u64> {
    asked.get(job.task)?.get(job.number as usize).copied()
}

/// Gives each deadline miss of `result` its cause by the rule of raises (see the module
/// documentation), in the mode in force just before its deadline read from `changes`; counts
/// them again, their slack being the work each lacked.
pub fn attribute_misses(
    plan: &TablePlan,
    result: &mut RunResult,
    changes: &[ModeChangeRecord],
    asked: &[Vec<u64>],
) {
    let evidence = Evidence::new(plan, result);
    let deadlines: HashMap<(usize, u64), u64> = (result.jobs.iter())
        .map(|j| ((j.task, j.job), j.deadline))
        .collect();
    let mut causes = result.miss_causes.clone();
    for miss in &mut causes {
        let job = JobId {
            task: miss.task,
            number: miss.job,
        };
        let due = deadlines.get(&(miss.task, miss.job)).copied();
        let raise = due
            .zip(work_of(asked, job))
            .and_then(|(due, work)| evidence.miss(changes, (job, due), Duration::from_nanos(work)));
        (miss.cause, miss.stall, miss.slack) = match raise {
            Some(r) if r.cause == RaiseCause::Host => (Cause::Host, r.stall, Some(r.lacked)),
            Some(r) => (Cause::Schedule, None, Some(r.lacked)),
            None => (Cause::Schedule, None, None),
        };
        miss.own_slack = miss.slack;
        miss.slowed = raise.map_or(Duration::ZERO, |r| r.slowed);
        // The general rule's figures were weighed against another slack: none here.
        (miss.evidence, miss.backlog_evidence) = (Duration::ZERO, Duration::ZERO);
    }
    let host = causes.iter().filter(|m| m.cause == Cause::Host).count() as u64;
    result.misses_by_cause.host = host;
    result.misses_by_cause.schedule = causes.len() as u64 - host;
    result.misses_by_cause.slack_from = SlackFrom::Tables;
    result.miss_causes = causes;
}

/// The mode in force just before `at` and since when: the lowest from 0 until the first change.
fn mode_before(changes: &[ModeChangeRecord], at: u64) -> (usize, u64) {
    (changes.iter())
        .take_while(|m| m.nominal < at)
        .last()
        .map_or((0, 0), |m| (m.to, m.nominal))
}

/// When the mode in force at `at` (before any change at `at` itself) began.
fn mode_since(changes: &[ModeChangeRecord], at: u64) -> u64 {
    mode_before(changes, at).1
}

/// What the host took from a run's jobs, and the plan that says where each job runs.
struct Evidence<'a> {
    plan: &'a TablePlan,
    stalls: StallIndex,
    /// Each job's segments that counted their work.
    segments: HashMap<(usize, u64), Vec<SegmentRecord>>,
    slowness: Slowness,
}

impl<'a> Evidence<'a> {
    fn new(plan: &'a TablePlan, result: &RunResult) -> Self {
        Evidence::of(plan, &result.stall_intervals, &result.segments)
    }

    fn of(plan: &'a TablePlan, stalls: &[Stall], segments: &[SegmentRecord]) -> Self {
        let mut by_job: HashMap<(usize, u64), Vec<SegmentRecord>> = HashMap::new();
        for s in segments.iter().filter(|s| s.worker_time.is_some()) {
            by_job.entry((s.task, s.job)).or_default().push(*s);
        }
        // A late wake-up of a dispatcher counts only where its core ran no job: a worker's own
        // clocks say what it lost (`crate::attribution`).
        let ran = segments.iter().map(|s| {
            let at = Instant::from_nanos;
            (s.cpu, at(s.start), at(s.end))
        });
        Evidence {
            plan,
            stalls: StallIndex::new(&idle_only(stalls, ran)),
            segments: by_job,
            slowness: Slowness::of(segments),
        }
    }

    /// The miss of `job`, due at `due` and asked for `work`, as the stop it was: at the end of
    /// its last interval in the mode in force just before `due` (read from `changes`), or at
    /// that mode's start if none was left; `None` if it has no interval in that mode.
    fn miss(
        &self,
        changes: &[ModeChangeRecord],
        (job, due): (JobId, u64),
        work: Duration,
    ) -> Option<Raise> {
        let (level, since) = mode_before(changes, due);
        let at = self.last_end(level, job)?.max(since);
        Some(self.raise(level, (job, since, at), work))
    }

    /// The stop at `at` of `job` in the table of `level`, in force since `since`, asked for
    /// `work`.
    fn raise(&self, level: usize, (job, since, at): (JobId, u64, u64), work: Duration) -> Raise {
        let (stalled, stall) = self.stalls_inside(level, job, since);
        let (done, slowed) = self.ran_before(job, at);
        let lacked = work.saturating_sub(done);
        let wcet = Duration::from_nanos(self.plan.tasks[job.task].wcet[level]);
        let cause = if work > wcet {
            RaiseCause::Asked
        } else if lacked > Duration::ZERO && stalled.max(slowed) >= lacked {
            RaiseCause::Host
        } else {
            RaiseCause::Schedule
        };
        Raise {
            nominal: at,
            job,
            cause,
            lacked,
            stalled,
            stall,
            slowed,
        }
    }

    /// The end of `job`'s last interval in the table of `level`, if it has one there.
    fn last_end(&self, level: usize, job: JobId) -> Option<u64> {
        let (key, offset) = self.key(job);
        Some(offset + self.plan.tables[level].last_end[key]?)
    }

    /// `job`'s key in the plan's tables and the start of its hyper-period.
    fn key(&self, job: JobId) -> (usize, u64) {
        let plan = self.plan;
        let per_hyperperiod = plan.jobs_per_hyperperiod(job.task);
        let key = plan.tasks[job.task].first_key + (job.number % per_hyperperiod) as usize;
        (key, (job.number / per_hyperperiod) * plan.hyperperiod)
    }

    /// The stall time inside `job`'s intervals in the table of `level` from `since` on (each
    /// cut to them), and the longest of those stalls.
    fn stalls_inside(&self, level: usize, job: JobId, since: u64) -> (Duration, Option<Stall>) {
        let (key, offset) = self.key(job);
        let (mut stalled, mut longest) = (Duration::ZERO, None::<Stall>);
        for (core, slots) in self.plan.tables[level].by_core.iter().enumerate() {
            for slot in slots.iter().filter(|slot| slot.key == key) {
                let (start, end) = ((offset + slot.start).max(since), offset + slot.end);
                if start >= end {
                    continue;
                }
                let window = (Instant::from_nanos(start), Instant::from_nanos(end));
                stalled += lost_in(window, &[core], &self.stalls);
                let inside = self.stalls.overlapping(core, window.0, window.1);
                let here = inside
                    .iter()
                    .max_by_key(|s| (s.length, std::cmp::Reverse(s.start)));
                longest = match (longest, here) {
                    (Some(l), Some(h)) if h.length <= l.length => Some(l),
                    (l, h) => h.copied().or(l),
                };
            }
        }
        (stalled, longest)
    }

    /// The work `job` surely did before `at` and what a slowed core surely took from it
    /// meanwhile: of a segment running past `at`, its work less the time after `at` that its
    /// core was not in a watcher's stall (no thread of the run runs in one: when the
    /// dispatcher's stop came late because the host held the core, the job did not work
    /// meanwhile), and its slowed time less all the time after `at`.
    fn ran_before(&self, job: JobId, at: u64) -> (Duration, Duration) {
        let own = self.segments.get(&(job.task, job.number));
        let (mut done, mut slowed) = (Duration::ZERO, Duration::ZERO);
        for s in own.into_iter().flatten().filter(|s| s.start < at) {
            let (Some(time), Some(excess)) = (s.worker_time, self.slowness.excess(s)) else {
                continue;
            };
            let after = Duration::from_nanos(s.end.saturating_sub(at));
            let past = (Instant::from_nanos(at), Instant::from_nanos(s.end));
            let could_work = after.saturating_sub(lost_in(past, &[s.cpu], &self.stalls));
            done += time.work.saturating_sub(could_work);
            slowed += excess.saturating_sub(after);
        }
        (done, slowed)
    }
}

#[cfg(test)]
mod tests;
