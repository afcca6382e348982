//! The rule of [`super`] for one missed job, over indexes of the run built once.

use super::ahead::WorkAhead;
use super::backlog::{self, Backlog, Backlogs};
use super::own::{self, own_time_held, OwnTime};
use super::per_job::{completions_of, cores_of, real_time_of, segments_of, window};
use super::release::release_held;
use super::slowed::{slowed_by_job, Slowed};
use super::stalled::{missed_in_stalled_twin, Pair};
use super::timer::ORDINARY_START;
use super::windup::{schedule_busy, OptionalDeadline};
use super::{
    longest_in, own_execution, slack_alone, slack_simulated, Cause, MissCause, Path, RunView,
    Segment, StallIndex, Twin,
};
use crate::measure::JobRecord;
use crate::stalls::{Seen, Stall};
use kairos_model::{Duration, Instant};
use std::collections::HashMap;

type ByJob<T> = HashMap<(usize, u64), T>;

/// Everything the rule reads of a run and its simulation, indexed.
pub struct Judge<'a> {
    run: &'a RunView<'a>,
    segments: ByJob<Vec<Segment>>,
    real_time: ByJob<Vec<Segment>>,
    completions: Option<ByJob<Instant>>,
    twins: Option<(ByJob<Vec<Segment>>, Path)>,
    /// Each job's completion in the calm and the stalled twin ([`super::stalled`]).
    stalled: Option<Pair>,
    slowed: Slowed,
    /// The stalls cut to where no job ran ([`own::idle_only`]), those that are evidence on
    /// the timer core or a release's core, and every one.
    index: StallIndex,
    every: StallIndex,
    all: StallIndex,
    backlogs: Backlogs,
    ahead: Option<WorkAhead<'a>>,
}

/// What the rule decided for one job.
struct Verdict {
    cause: Cause,
    stall: Option<Stall>,
    slack: Option<Duration>,
    evidence: Duration,
    backlog_evidence: Duration,
    stalled_twin: Option<Option<Instant>>,
}

impl Verdict {
    fn host(stall: Option<Stall>, s_j: Duration, evidence: Duration) -> Verdict {
        Verdict {
            cause: Cause::Host,
            stall,
            slack: Some(s_j),
            evidence,
            backlog_evidence: Duration::ZERO,
            stalled_twin: None,
        }
    }
}

impl<'a> Judge<'a> {
    pub fn new(jobs: &'a [JobRecord], run: &'a RunView<'a>, twin: Option<Twin>) -> Self {
        let segments = segments_of(run.measured);
        let ran = segments.values().flatten().copied();
        let index = StallIndex::new(&own::idle_only(run.stalls, ran));
        // A worker's late start is placed at its end, and says nothing of the timer core's
        // dispatcher or of a release's core's: no evidence for the timer or the release way.
        let timer_evidence: Vec<Stall> = (run.stalls.iter())
            .filter(|s| s.seen != Seen::Worker)
            .copied()
            .collect();
        let slowed = slowed_by_job(run.worker_segments);
        let real_time = real_time_of(&segments, run.worker_segments);
        let ods = &run.measured.optional_deadlines;
        let runs = (&real_time, &slowed, &ods[..]);
        let backlogs = Backlogs::new(jobs, runs, &index, (run.cores, run.end));
        let runs = (&real_time, run.worker_segments);
        let ahead = (run.core_order).map(|order| WorkAhead::new(order, jobs, runs, ods));
        Judge {
            run,
            completions: twin.map(|t| completions_of(t.trace)),
            twins: twin.map(|t| (segments_of(t.trace), t.path)),
            stalled: (twin.and_then(|t| t.stalled)).map(|p| Pair {
                calm: completions_of(p.calm),
                stalled: completions_of(p.stalled),
            }),
            segments,
            real_time,
            slowed,
            index,
            every: StallIndex::new(&timer_evidence),
            all: StallIndex::new(run.stalls),
            backlogs,
            ahead,
        }
    }

    /// The cause of `j`'s miss by the rule of [`super`].
    pub fn miss(&self, j: &JobRecord) -> MissCause {
        let key = (j.task, j.job);
        let segs = self.segments.get(&key).map_or(&[][..], |s| &s[..]);
        let rt = self.real_time.get(&key).map_or(&[][..], |s| &s[..]);
        let slowed_segments = self.slowed.get(&key);
        let (release, deadline) = window(j);
        let s_j = match &self.completions {
            Some(done) => slack_simulated(deadline, done.get(&key).copied()),
            None => slack_alone(
                release,
                deadline,
                own_execution(rt, slowed_segments, &self.index),
            ),
        };
        let backlog = self.backlogs.of(j);
        let own = OwnTime {
            job: j,
            segments: (segs, rt),
            slowed: slowed_segments,
            twin: (self.twins.as_ref())
                .map(|(t, path)| (t.get(&key).map_or(&[][..], |s| &s[..]), *path)),
            od: OptionalDeadline::of(j, self.run),
        };
        // A job that reached its optional part by its optional deadline is weighed from then.
        let reached = (own.od.as_ref())
            .filter(|od| od.reached_optional())
            .map(|od| od.at);
        let from = reached.map_or(release, |at| at.max(release));
        let slowed =
            slowed_segments.map_or(Duration::ZERO, |s| s.within(from.as_nanos(), j.deadline));
        let verdict = match s_j.zip(backlog.demand_slack) {
            None => Verdict {
                cause: Cause::Schedule,
                stall: None,
                slack: None,
                evidence: Duration::ZERO,
                backlog_evidence: Duration::ZERO,
                stalled_twin: None,
            },
            Some((s_j, s_b)) => {
                let cores = cores_of(j, segs, &backlog.cores);
                // The work-ahead way's window: none for an imprecise job that had not reached
                // its optional part by its optional deadline ([`super::ahead`]).
                let ahead_from = match own.od {
                    None => Some(release),
                    Some(_) => reached.map(|at| at.max(release)),
                };
                let first = (&own, (from, ahead_from), &cores[..], slowed);
                let verdict = (self.first_case(first, s_j))
                    .unwrap_or_else(|seen| self.backlog_case(&backlog, deadline, (s_j, s_b), seen));
                match verdict.cause {
                    Cause::Host => verdict,
                    Cause::Schedule => {
                        let window = (backlog.from, deadline);
                        self.stalled_case(key, (window, &backlog.cores[..]), s_j, verdict)
                    }
                }
            }
        };
        MissCause {
            task: j.task,
            job: j.job,
            cause: verdict.cause,
            slack: verdict.slack,
            own_slack: s_j,
            stall: verdict.stall,
            slowed,
            backlog_from: backlog.from,
            evidence: verdict.evidence,
            backlog_evidence: verdict.backlog_evidence,
            stalled_twin: verdict.stalled_twin,
        }
    }

    /// The rule's third case ([`super::stalled`]) for a job the first two left with
    /// `schedule`, whose backlog is `window` on its group's `cores`: a host verdict naming a
    /// stall there, or the verdict as it was. The job's own slack stays the figure.
    fn stalled_case(
        &self,
        job: (usize, u64),
        (window, cores): ((Instant, Instant), &[usize]),
        s_j: Duration,
        was: Verdict,
    ) -> Verdict {
        let pair = self.stalled.as_ref();
        let cores = (cores, self.run.cores);
        let found = missed_in_stalled_twin(pair, job, window, cores, &self.all);
        match found {
            Some((completion, stall)) => Verdict {
                cause: Cause::Host,
                stall,
                slack: Some(s_j),
                stalled_twin: Some(completion),
                ..was
            },
            None => was,
        }
    }

    /// The rule's first case, its ways in order; a host verdict, or the most of the host's
    /// time they weighed.
    fn first_case(
        &self,
        (own, (from, ahead_from), cores, slowed): (
            &OwnTime,
            (Instant, Option<Instant>),
            &[usize],
            Duration,
        ),
        s_j: Duration,
    ) -> Result<Verdict, Duration> {
        let deadline = Instant::from_nanos(own.job.deadline);
        let longest = longest_in((from, deadline), cores, &self.index);
        let mut seen = slowed.max(longest.map_or(Duration::ZERO, |s| s.length));
        if let Some(stall) = longest.filter(|s| s.length > s_j) {
            return Ok(Verdict::host(Some(stall), s_j, seen));
        }
        if slowed > s_j {
            return Ok(Verdict::host(None, s_j, seen));
        }
        let stalls = (&self.index, &self.every, &self.all);
        let (held, host) = own_time_held(own, self.run, s_j, stalls);
        seen = seen.max(host);
        if let Some(stall) = held {
            return Ok(Verdict::host(stall, s_j, seen));
        }
        if let Some((stall, held)) = self.release_way(own, from, s_j) {
            return Ok(Verdict::host(Some(stall), s_j, seen.max(held)));
        }
        let (Some(ahead), Some(from), &[core]) = (&self.ahead, ahead_from, cores) else {
            return Err(seen);
        };
        // On a core other than the timer core a wind-up waits for the timer core's pass.
        let windup_elsewhere =
            from.as_nanos() > own.job.release && self.run.timer_core != Some(core);
        let gaps_from = match windup_elsewhere {
            true => from + ORDINARY_START,
            false => from,
        };
        let window = (core, from, gaps_from);
        let (held, host) =
            ahead.took_its_lateness(own.job, window, s_j, (&self.slowed, &self.index));
        seen = seen.max(host);
        match held {
            Some(stall) => Ok(Verdict::host(stall, s_j, seen)),
            None => Err(seen),
        }
    }

    /// The release way ([`release_held`]) for the job weighed from `from`.
    fn release_way(
        &self,
        own: &OwnTime,
        from: Instant,
        s_j: Duration,
    ) -> Option<(Stall, Duration)> {
        let job = (own.job.task, own.job.job);
        let busy = |cpu, a, b| schedule_busy(self.run.worker_segments, job, cpu, (a, b));
        release_held((own.job, from), own.segments.0, s_j, &self.every, busy)
    }

    /// The rule's second case, against the larger of the two slacks.
    fn backlog_case(
        &self,
        backlog: &Backlog,
        deadline: Instant,
        (s_j, s_b): (Duration, Duration),
        seen: Duration,
    ) -> Verdict {
        let (runs, slack) = ((&self.segments, &self.slowed), s_j.max(s_b));
        let (cause, stall, there) = backlog::cause(backlog, deadline, slack, runs, &self.index);
        Verdict {
            cause,
            stall,
            slack: Some(slack),
            evidence: seen,
            backlog_evidence: there,
            stalled_twin: None,
        }
    }
}
