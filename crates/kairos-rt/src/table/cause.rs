//! Why each raise of the mode happened in a table run. A table raises the mode when a job is
//! unfinished at the end of its last interval in the current mode (Pautet, Robert, Tardieu,
//! "Litmus-RT plugins for global static scheduling of mixed criticality systems", section
//! 6.1). On real cores that is one of three things:
//! - **asked**: the job was asked for more work than its intervals there hold (an injected or
//!   drawn overrun, what mode changes are for);
//! - **host**: the host took at least the work it still lacked at the raise, so without the
//!   host it would have finished. The host's take is the larger of the stalls
//!   ([`crate::stalls`]) inside its intervals at that level, each on its interval's core, and
//!   the time a slowed core took from its segments before the raise ([`Slowness`]). The
//!   larger, not the sum: the two can overlap;
//! - **schedule**: otherwise. The dispatcher's own costs took more than the room its intervals
//!   left over its work, which is what an overhead-aware table (the slot guard) promises they
//!   do not.
//!
//! The work it lacked is its asked work less the work of its segments before the raise (a
//! segment that runs past it counted pro rata).
//!
//! A deadline miss in a table run is the same event: a job unfinished at the end of its last
//! interval in the mode in force, stopped for good (its task is not above the mode). Its cause
//! is weighed by the same rule ([`attribute_misses`]), not by the rule of work-conserving runs
//! ([`crate::attribution`], whose backlog argument does not hold for a table: a job waits for
//! its interval on an idle core); an `asked` one counts as the schedule's. The host's take is measured from below (holes
//! under the stall watcher's floor are not seen, and a core slowed for the whole run is not
//! counted), so the rule errs towards `schedule`, as the attribution of deadline misses does
//! ([`crate::attribution`]).

use crate::attribution::{lost_in, Cause, Slowness, StallIndex};
use crate::dispatcher::ModeChangeRecord;
use crate::measure::{RunResult, SegmentRecord};
use kairos_model::{Duration, Instant};
use kairos_policy::table::TablePlan;
use kairos_policy::JobId;
use serde::Serialize;

/// Why the mode rose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RaiseCause {
    Asked,
    Host,
    Schedule,
}

/// One raise of the mode, its first overrunning job, and the evidence weighed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raise {
    /// The end of the overrunning job's last interval in the mode it left (ns since the start).
    pub nominal: u64,
    pub job: JobId,
    pub cause: RaiseCause,
    /// Its work less what it had done by `nominal`.
    pub lacked: Duration,
    /// Stall time inside its intervals in the mode it left.
    pub stalled: Duration,
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
    let stalls = StallIndex::new(&result.stall_intervals);
    let slowness = Slowness::of(&result.segments);
    let evidence = Evidence {
        plan,
        stalls: &stalls,
        segments: &result.segments,
        slowness,
    };
    (changes.iter())
        .filter(|m| m.to > m.from)
        .filter_map(|m| {
            let job = *m.triggers.first()?;
            let work = asked.get(job.task)?.get(job.number as usize).copied()?;
            Some(evidence.raise(m.from, (job, m.nominal), Duration::from_nanos(work)))
        })
        .collect()
}

/// Gives each deadline miss of `result` its cause by the rule of raises (see the module
/// documentation), the mode in force just before its deadline read from `changes`; a miss
/// whose job has no interval in that mode keeps its cause. Counts them again.
pub fn attribute_misses(
    plan: &TablePlan,
    result: &mut RunResult,
    changes: &[ModeChangeRecord],
    asked: &[Vec<u64>],
) {
    let stalls = StallIndex::new(&result.stall_intervals);
    let evidence = Evidence {
        plan,
        stalls: &stalls,
        segments: &result.segments,
        slowness: Slowness::of(&result.segments),
    };
    let deadline = |task, job| {
        (result.jobs.iter())
            .find(|j| (j.task, j.job) == (task, job))
            .map(|j| j.deadline)
    };
    let mut causes = result.miss_causes.clone();
    for miss in &mut causes {
        let job = JobId {
            task: miss.task,
            number: miss.job,
        };
        let work = asked.get(job.task).and_then(|w| w.get(job.number as usize));
        let (Some(due), Some(&work)) = (deadline(miss.task, miss.job), work) else {
            continue;
        };
        let Some(raise) = evidence.miss(changes, (job, due), Duration::from_nanos(work)) else {
            continue;
        };
        miss.cause = match raise.cause {
            RaiseCause::Host => Cause::Host,
            RaiseCause::Asked | RaiseCause::Schedule => Cause::Schedule,
        };
        miss.slowed = raise.slowed;
    }
    let host = causes.iter().filter(|m| m.cause == Cause::Host).count() as u64;
    result.misses_by_cause.host = host;
    result.misses_by_cause.schedule = causes.len() as u64 - host;
    result.miss_causes = causes;
}

/// The mode in force just before `at`: the lowest until the first change.
fn mode_before(changes: &[ModeChangeRecord], at: u64) -> usize {
    (changes.iter())
        .take_while(|m| m.nominal < at)
        .last()
        .map_or(0, |m| m.to)
}

/// What the host took from a run's jobs, and the plan that says where each job runs.
pub struct Evidence<'a> {
    pub plan: &'a TablePlan,
    pub stalls: &'a StallIndex,
    pub segments: &'a [SegmentRecord],
    pub slowness: Slowness,
}

impl Evidence<'_> {
    /// The raise from `level` at `at` by `job`, asked for `work`.
    pub fn raise(&self, level: usize, (job, at): (JobId, u64), work: Duration) -> Raise {
        let (budget, stalled) = self.intervals(level, job);
        let (done, slowed) = self.ran_before(job, at);
        let lacked = work.saturating_sub(done);
        let cause = if work > budget {
            RaiseCause::Asked
        } else if stalled.max(slowed) >= lacked {
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
            slowed,
        }
    }

    /// The miss of `job`, due at `due` and asked for `work`, as the raise it would be: its
    /// overrun at the end of its last interval in the mode in force just before `due` (read
    /// from `changes`); `None` if it has no interval in that mode.
    pub fn miss(
        &self,
        changes: &[ModeChangeRecord],
        (job, due): (JobId, u64),
        work: Duration,
    ) -> Option<Raise> {
        let level = mode_before(changes, due);
        let at = self.last_end(level, job)?;
        Some(self.raise(level, (job, at), work))
    }

    /// The end of `job`'s last interval in the table of `level`, if it has one there.
    pub fn last_end(&self, level: usize, job: JobId) -> Option<u64> {
        let (key, offset) = self.key(job);
        (self.plan.tables[level].by_core.iter())
            .flat_map(|slots| slots.iter().filter(|slot| slot.key == key))
            .map(|slot| offset + slot.end)
            .max()
    }

    /// `job`'s key in the plan's tables and the start of its hyper-period.
    fn key(&self, job: JobId) -> (usize, u64) {
        let plan = self.plan;
        let per_hyperperiod = plan.jobs_per_hyperperiod(job.task);
        let key = plan.tasks[job.task].first_key + (job.number % per_hyperperiod) as usize;
        (key, (job.number / per_hyperperiod) * plan.hyperperiod)
    }

    /// The length of `job`'s intervals in the table of `level`, and the stall time inside them.
    fn intervals(&self, level: usize, job: JobId) -> (Duration, Duration) {
        let (key, offset) = self.key(job);
        let (mut budget, mut stalled) = (Duration::ZERO, Duration::ZERO);
        for (core, slots) in self.plan.tables[level].by_core.iter().enumerate() {
            for slot in slots.iter().filter(|slot| slot.key == key) {
                let (start, end) = (offset + slot.start, offset + slot.end);
                budget += Duration::from_nanos(end - start);
                let window = (Instant::from_nanos(start), Instant::from_nanos(end));
                stalled += lost_in(window, &[core], self.stalls);
            }
        }
        (budget, stalled)
    }

    /// The work `job` did before `at` and what a slowed core took from it meanwhile.
    fn ran_before(&self, job: JobId, at: u64) -> (Duration, Duration) {
        let own = (self.segments.iter())
            .filter(|s| (s.task, s.job) == (job.task, job.number) && s.start < at);
        let (mut done, mut slowed) = (Duration::ZERO, Duration::ZERO);
        for s in own {
            let Some(time) = s.worker_time else { continue };
            let before = |d: Duration| match s.end <= at {
                true => d,
                false => Duration::from_nanos(d.as_nanos() * (at - s.start) / (s.end - s.start)),
            };
            done += before(time.work);
            slowed += before(self.slowness.excess(&time));
        }
        (done, slowed)
    }
}

#[cfg(test)]
mod tests;
