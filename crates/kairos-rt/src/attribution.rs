//! Each deadline miss of a real run, attributed to the host or to the schedule.
//!
//! **The rule.** A missed job `j` (release `r`, absolute deadline `d`) is a `host` miss when
//! its slack `s_j` and its backlog's demand slack `s_b` both exist and
//! 1. the job itself was held:
//!    - a stall ([`crate::stalls`]: seen by the core's watcher, a late wake-up of its
//!      dispatcher or a late start of one of its workers) on a core it ran on (any of its group's if it never ran) overlapping its
//!      window `[r, d)` is longer than `s_j`;
//!    - or its own segments before `d` lost more than `s_j` to a slowed core ([`Slowness`]:
//!      wall time that was neither its work nor the run's own dispatching, beyond the run's
//!      usual share);
//!    - or the host took from its own time, up to its completion, at least its lateness (in
//!      each of its real-time segments the larger of its slowing and the stalls inside it,
//!      plus its worker's late start before it; and the holes recorded on the path of its wait
//!      for its wind-up, `windup`), and the platform (that time, and the path's cost the
//!      analysis charges and the twin does not, [`Twin::path`]) more than `s_j`: without the
//!      host's time it would have completed by `d`, and the platform's time alone overran its
//!      room. Of a job that had reached its optional part by its optional deadline only what
//!      it lost from then on counts, here and in the slowed case (`own`);
//!    - or a stall of the core that handles the policy's timers covering its optional
//!      deadline held its wind-up more than `s_j` past it: the stall ended that late with the
//!      wind-up begun after it, or the wind-up began during the stall, that late beyond an
//!      ordinary start, on a core where nothing else ran meanwhile (`timer`);
//!    - or a stall of the core that was to take in its release, covering the release, held
//!      its start more than `s_j` past it, with the schedule standing on nothing else on the
//!      core it began on meanwhile: a global policy's job waits for that core's pass while
//!      another core idles (`release`);
//!    - or, under a partitioned policy whose cores run their jobs in a static order (P-EDF,
//!      P-FP, P-RM, P-RMWP), the host took as much from the work ahead of it on its core: in
//!      the real-time segments of the job and of the jobs ahead of it in that order there
//!      from its release (or its optional deadline, as above; not weighed for an imprecise
//!      job that had not reached its optional part by then) up to its completion (those begun
//!      in that span, and the one already running at its start from then on), and in the gaps
//!      where the core ran no job's real-time part meanwhile, stalls that came to at least its
//!      lateness, or the larger of the stalls and the slowing in each that came to at least
//!      its lateness and more than `s_j`, when every job ahead of it there released before
//!      its completion had completed by then or was in its optional part, its optional
//!      deadline still to come: without that time the same work ahead, and no more, would
//!      have been done that much earlier (`ahead`); or
//! 2. a stall on a core of its group overlapping its backlog `[b, d)` is longer than both
//!    `s_j` and `s_b`, or the stalls there, each cut to `[b, d)`, and what a slowed core took
//!    from the jobs' segments begun there besides add up to more than both: the work it
//!    waited behind was held;
//! 3. or, when neither case did, its stalled twin misses it: the simulation of the same run
//!    charging every cost at its largest, with every recorded stall that took its core from
//!    its job (a watcher's, a worker's late start) as an outage of that core
//!    (kairos-sim's `outages`: the job on the core stands still), completes it after `d`,
//!    while the same simulation without the outages meets it, and so does the twin (`s_j`
//!    exists): the stalls alone, in the schedule the policy made of them, made it miss
//!    (`stalled`);
//!
//! otherwise, and whenever either slack is missing, it is a `schedule` miss. Here (`backlog`
//! defines them precisely):
//! - its group is the cores its task shares work with: its own core under a partitioned
//!   policy, the platform under a global one;
//! - `b` is where its backlog began: the start of the interval, ending at `r`, in which every
//!   one of those cores had a job with real-time work pending throughout (`b = r` when some
//!   had none just before `r`; an imprecise job's optional part is best effort, no backlog). A stall there held up the jobs `j` waited behind, so `j` waits for that backlog even
//!   when its own window `[r, d)` does not overlap the stall; a stall that ended before the
//!   backlog began, a core idle in between, explains nothing;
//! - the two slacks are each a time the stalls must exceed to explain the miss by themselves,
//!   and either missing is a fault of the schedule, never excused:
//!   - `s_j`, the job's own: with a simulation of the same run `d - f`, `f` its completion
//!     there (none if it does not complete by `d`: the schedule misses it by itself); without one
//!     `(d - r) - e`, `e` its own execution in the run (its real-time segments less, in each,
//!     the larger of the stall time and the slowing inside it; none if `e > d - r`, it would
//!     miss even alone);
//!   - `s_b`, the backlog's demand slack: the capacity of its group over `[b, d)` less the
//!     real-time execution of the jobs released in it and due by `d` (counted as `e`), the room a stall there had to use
//!     up (none when they need more: an overload, which a wrong partition or a policy that lets
//!     a core fall behind makes, and no stall excuses).
//!
//! On a group of several cores `s_b` counts every core's room, so the second case blames a
//! stall of one core only when the others could not have absorbed it either. A single stall's
//! whole length counts, not only its part inside the interval: it delays all the work behind
//! it. The sum is the demand argument itself: stalls and a slowed core's lost time that
//! together took more than `s_b` from `[b, d)` (each segment's slowing before `d`, beyond the
//! stalls inside it and the run's usual share) left less capacity than the jobs due by `d`
//! need, so some of them had to miss, as a core kept behind by a stall every 100 ms does on a
//! set with little room. A stall is a lower
//! bound of the hole it reports, and holes below the watcher's floor or between its wake-ups go
//! unseen, so the rule errs towards `schedule`. The kernel's real-time throttling, when it
//! throttles a core, holds every thread of the run there, the stall watcher too, so the watcher
//! reports it as a stall held by another thread ([`Stall::held`]) and it is weighed like any
//! other.
//!
//! The rule is this crate's own; a stall is the operating-system noise of de Oliveira,
//! Casini and Cucinotta ("Operating System Noise in the Linux Kernel", IEEE Transactions on
//! Computers 72(1), 2023, section 3.1), interference the schedule (and its simulation) does
//! not contain; the demand slack is the processor-demand criterion (`backlog` cites it).

use crate::measure::{JobRecord, SegmentRecord};
use crate::stalls::Stall;
use kairos_model::{Duration, Instant, Overheads};
use kairos_policy::CoreOrder;
use kairos_trace::Trace;
use serde::Serialize;
use std::collections::BTreeMap;

mod ahead;
mod backlog;
mod host;
mod judge;
mod own;
mod per_job;
mod release;
mod slowed;
mod stalled;
mod timer;
mod windup;
pub use backlog::{Backlog, Backlogs};
pub use host::{host_evidence, host_stop_evidence};
use judge::Judge;
pub(crate) use own::idle_only;
pub use per_job::own_execution;
pub use slowed::{SlowedSegments, Slowness};

/// Why a job missed its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cause {
    Host,
    Schedule,
}

/// Where the slack of the rule came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SlackFrom {
    /// The simulation of the same run.
    Simulation,
    /// The job's own execution in the run.
    #[default]
    Run,
    /// A table run's own rule: the work each missed job lacked at its stop
    /// (`crate::table::cause`).
    Tables,
}

/// The misses of a run, counted by cause (`misses_by_cause` in a run's JSON).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MissesByCause {
    pub host: u64,
    pub schedule: u64,
    pub slack_from: SlackFrom,
    /// Of the host misses, those the stalled twin decided (the rule's third case); `None`
    /// when no stalled twin weighed them.
    pub by_stalled_twin: Option<u64>,
}

/// One missed job and its cause: the stall that explains it when the host did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissCause {
    pub task: usize,
    pub job: u64,
    pub cause: Cause,
    /// The slack the rule weighed the stalls against (in a table run, the work the job
    /// lacked at its stop); `None`: the job had none. The larger of the job's own and its
    /// backlog's when the backlog rule decided.
    pub slack: Option<Duration>,
    /// The job's own slack `s_j` (its deadline less its twin's completion, or alone on its
    /// core), whichever rule decided and also when none could (its backlog had no slack).
    pub own_slack: Option<Duration>,
    pub stall: Option<Stall>,
    /// What a slowed core took from its own segments before its deadline ([`Slowness`]), from
    /// its optional deadline on if it had reached its optional part by then.
    pub slowed: Duration,
    /// Where its backlog began (its release when it waited behind none).
    pub backlog_from: Instant,
    /// The most of the host's recorded time the rule's first case weighed against `s_j`: the
    /// longest stall in its window, its own slowing, what the host took from its own time up
    /// to its completion (with the holes on the path to its wind-up, which must also reach its
    /// lateness, so a `schedule` miss may show more than `s_j`), how long a held core kept its
    /// release from it (`release`, shown on a host miss only), or from the work ahead of it
    /// on its core and the gaps there (`ahead`); zero when either slack is
    /// missing or a table run's rule decided. A host miss carries what the way that decided
    /// had weighed by then, not all of it.
    pub evidence: Duration,
    /// What the second case weighed against the larger of `s_j` and `s_b`: its backlog's
    /// longest stall, or its stalls and slowing together; zero when that case was not reached.
    pub backlog_evidence: Duration,
    /// Its completion in the stalled twin (`None`: unfinished there) when the third case
    /// decided.
    pub stalled_twin: Option<Option<Instant>>,
}

/// One stretch of a job's execution: core (as the run numbers them), start, end.
pub type Segment = (usize, Instant, Instant);

/// The stalls of a run by core, each core's in order of start (they are disjoint per core).
pub struct StallIndex(BTreeMap<usize, Vec<Stall>>);

impl StallIndex {
    pub fn new(stalls: &[Stall]) -> Self {
        let mut by_core: BTreeMap<usize, Vec<Stall>> = BTreeMap::new();
        for s in stalls {
            by_core.entry(s.core).or_default().push(*s);
        }
        by_core
            .values_mut()
            .for_each(|v| v.sort_by_key(|s| s.start));
        StallIndex(by_core)
    }

    /// The stalls of `core` overlapping `[from, to)`.
    pub fn overlapping(&self, core: usize, from: Instant, to: Instant) -> &[Stall] {
        let Some(stalls) = self.0.get(&core) else {
            return &[];
        };
        // Disjoint and ordered by start: ends are ordered too.
        let first = stalls.partition_point(|s| s.end() <= from);
        let past = stalls.partition_point(|s| s.start < to);
        &stalls[first..past.max(first)]
    }
}

/// The rule of the module documentation for one missed job with window `[release, deadline)`
/// on `cores`: its cause and, for a host miss, the longest stall that explains it.
pub fn cause_of(
    window: (Instant, Instant),
    cores: &[usize],
    slack: Option<Duration>,
    stalls: &StallIndex,
) -> (Cause, Option<Stall>) {
    let Some(slack) = slack else {
        return (Cause::Schedule, None);
    };
    match longest_in(window, cores, stalls) {
        Some(s) if s.length > slack => (Cause::Host, Some(s)),
        _ => (Cause::Schedule, None),
    }
}

/// The longest stall on `cores` overlapping `[from, to)` (the earliest of equals).
fn longest_in(
    (from, to): (Instant, Instant),
    cores: &[usize],
    stalls: &StallIndex,
) -> Option<Stall> {
    (cores.iter())
        .flat_map(|&core| stalls.overlapping(core, from, to))
        .max_by_key(|s| (s.length, std::cmp::Reverse(s.start)))
        .copied()
}

/// The time the stalls on `cores` took from `[from, to)`: each cut to the interval, summed.
pub fn lost_in((from, to): (Instant, Instant), cores: &[usize], stalls: &StallIndex) -> Duration {
    (cores.iter())
        .flat_map(|&core| stalls.overlapping(core, from, to))
        .map(|s| s.end().min(to).saturating_since(s.start.max(from)))
        .fold(Duration::ZERO, |a, b| a + b)
}

/// Slack from the simulation: `deadline - completion`, none unless it completed by then.
pub fn slack_simulated(deadline: Instant, completion: Option<Instant>) -> Option<Duration> {
    completion
        .and_then(|f| deadline.as_nanos().checked_sub(f.as_nanos()))
        .map(Duration::from_nanos)
}

/// Slack alone on its core: `(deadline - release) - executed`, none if negative.
pub fn slack_alone(release: Instant, deadline: Instant, executed: Duration) -> Option<Duration> {
    deadline.saturating_since(release).checked_sub(executed)
}

/// What [`attribute`] looks at besides the jobs.
pub struct RunView<'a> {
    /// The measured trace (its segments are each job's execution).
    pub measured: &'a Trace,
    pub stalls: &'a [Stall],
    /// Every core of the run, as its segments number them.
    pub cores: &'a [usize],
    /// The segments as the workers recorded them, with their CPU time and work when counted.
    pub worker_segments: &'a [SegmentRecord],
    /// The core whose dispatcher handles the policy's timers, under the user-space dispatcher.
    pub timer_core: Option<usize>,
    /// The order each core ran its jobs in, under a partitioned policy with a static one
    /// (`ahead`); `None` otherwise.
    pub core_order: Option<&'a CoreOrder>,
    /// The end of the run (misses are judged up to it).
    pub end: u64,
}

/// The simulation of a run that its misses are weighed against.
#[derive(Clone, Copy)]
pub struct Twin<'a> {
    /// Its trace: each job's completion there gives the job's slack, its segments the
    /// schedule's own wait for a wind-up.
    pub trace: &'a Trace,
    /// What the overhead-aware analysis charges for the path from an optional deadline's timer
    /// to the job's wind-up and the simulation does not (`windup`): the timer's lateness, and
    /// the ring when the wind-up's core is not the timer's; zero without a profile.
    pub path: Path,
    /// The pair the rule's third case compares (`stalled`).
    pub stalled: Option<Stalled<'a>>,
}

/// The simulation of the same run charging every cost at its largest (none drawn), without
/// and with the run's stalls as outages of their cores: the rule's third case (`stalled`).
#[derive(Clone, Copy)]
pub struct Stalled<'a> {
    pub calm: &'a Trace,
    pub stalled: &'a Trace,
}

/// The charged costs of the path from an optional deadline's timer to the job's wind-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Path {
    pub timer: Duration,
    pub ring: Duration,
}

impl<'a> Twin<'a> {
    /// A simulation that charged no profile.
    pub fn new(trace: &'a Trace) -> Self {
        Twin {
            trace,
            path: Path::default(),
            stalled: None,
        }
    }

    /// A simulation that drew its costs from `overheads`, the profile cut at the quantile the
    /// analysis charged: the path its largest release latency and doorbell (the profile kairos
    /// measures before a run charges neither to the simulation and has none of them).
    pub fn charging(trace: &'a Trace, overheads: &Overheads) -> Self {
        let path = Path {
            timer: overheads.release_latency.at(1.0),
            ring: overheads.ipi.at(1.0),
        };
        Twin {
            trace,
            path,
            stalled: None,
        }
    }

    /// This twin with the pair of the rule's third case.
    pub fn with_stalled(self, stalled: Stalled<'a>) -> Self {
        Twin {
            stalled: Some(stalled),
            ..self
        }
    }
}

/// Every missed job of `jobs` with its cause, and the counts, by the rule of the module
/// documentation (slack from the simulation `twin` when given).
pub fn attribute(
    jobs: &[JobRecord],
    run: &RunView,
    twin: Option<Twin>,
) -> (MissesByCause, Vec<MissCause>) {
    let judge = Judge::new(jobs, run, twin);
    let causes: Vec<MissCause> = (jobs.iter().filter(|j| j.missed(run.end)))
        .map(|j| judge.miss(j))
        .collect();
    let host = causes.iter().filter(|c| c.cause == Cause::Host).count() as u64;
    let counts = MissesByCause {
        host,
        by_stalled_twin: (twin.and_then(|t| t.stalled))
            .map(|_| causes.iter().filter(|c| c.stalled_twin.is_some()).count() as u64),
        schedule: causes.len() as u64 - host,
        slack_from: match twin {
            Some(_) => SlackFrom::Simulation,
            None => SlackFrom::Run,
        },
    };
    (counts, causes)
}

#[cfg(test)]
mod tests;
