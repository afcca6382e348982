//! The backlog a missed job waited behind, and the slack that backlog had (the module
//! documentation of [`super`] gives the rule; this computes its parts).
//!
//! A job's **cores** are the connected part of the run's core-sharing graph holding its task:
//! two cores are linked when one task ran on both. A partitioned task's is its own core; a
//! global policy's is the cores its tasks were seen on, the platform once they migrate (in a
//! light run where every task stayed on one core, each core is a group of its own, as under
//! a partitioned policy); a task that never ran could have been anywhere (every core). On `m` such cores a job's **backlog** starts at the latest instant
//! `b <= r` from which, up to its release `r`, at least `m` of their jobs were pending (released
//! and not completed, discarded or past the run's end, and with real-time work: an imprecise
//! job between the end of its mandatory part and its optional deadline has only its optional
//! part, best effort, which yields to any real-time work at once) at every instant: every core
//! had work. With fewer than `m` jobs pending just before `r`, `b = r`.
//!
//! The backlog's **demand slack** is `m (d - b)` less the work of the jobs released in `[b, d)`
//! on those cores with deadlines at or before `d` (each job's real-time execution in the run, its
//! optional part's left out, and what the host took from it, stalls or a slowed core; an unfinished job's at least its task's
//! longest completed one): the time the
//! cores could lose in `[b, d)` and still have room for every job due by `d`. It is the processor-demand criterion of Baruah, Rosier and Howell ("Algorithms and
//! complexity concerning the preemptive scheduling of periodic, real-time tasks on one
//! processor", Real-Time Systems 2(4), 1990, section 3) over the one interval `[b, d)`, taken
//! on `m` cores as their summed capacity: necessary for any schedule, so a negative one is an
//! overload no stall explains.

use super::slowed::{slowed_in, Slowed};
use super::{longest_in, lost_in, own_execution, Cause, Segment, StallIndex};
use crate::measure::JobRecord;
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};
use std::collections::{BTreeSet, HashMap};

/// Each job's segments.
type Segments = HashMap<(usize, u64), Vec<Segment>>;

/// Where a missed job's backlog began, on which cores, and how much they could lose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backlog {
    pub from: Instant,
    pub cores: Vec<usize>,
    /// `None`: the jobs due by the deadline need more than the cores had (an overload).
    pub demand_slack: Option<Duration>,
}

/// One pending job: release, deadline, when it stopped pending, its own execution, and the
/// stretch inside in which it had no real-time work (an imprecise job between its mandatory
/// part and its optional deadline).
#[derive(Clone, Copy)]
struct Pending {
    release: u64,
    deadline: u64,
    until: u64,
    executed: Duration,
    optional: Option<(u64, u64)>,
}

/// The jobs of one group of cores, and the intervals in which every core of it had work.
struct Group {
    cores: Vec<usize>,
    jobs: Vec<Pending>,
    /// Maximal `[start, end)` with at least `cores.len()` jobs pending, by start.
    saturated: Vec<(u64, u64)>,
}

/// The backlogs of a run's jobs.
pub struct Backlogs {
    groups: Vec<Group>,
    /// The group of each task.
    group_of: HashMap<usize, usize>,
}

impl Backlogs {
    /// `segments` are every job's measured real-time execution (its optional part's left
    /// out), `slowed` what a slowed core took from them and `optional_deadlines` each task's,
    /// `cores` every core of the run, `end` the run's end (a job unfinished by then stops
    /// pending there).
    pub fn new(
        jobs: &[JobRecord],
        (segments, slowed, optional_deadlines): (&Segments, &Slowed, &[Option<Duration>]),
        stalls: &StallIndex,
        (cores, end): (&[usize], u64),
    ) -> Self {
        let seen =
            (segments.values().flatten().map(|s| s.0)).chain(jobs.iter().filter_map(|j| j.cpu));
        let all: BTreeSet<usize> = cores.iter().copied().chain(seen).collect();
        let all: Vec<usize> = all.into_iter().collect();
        let mut parts = core_groups(jobs, segments, &all);
        if parts.is_empty() {
            // No core known at all: one group, judged as one core.
            parts.push(BTreeSet::new());
        }
        let mut groups: Vec<Group> = (parts.iter())
            .map(|p| Group {
                cores: p.iter().copied().collect(),
                jobs: Vec::new(),
                saturated: Vec::new(),
            })
            .collect();
        let group_of = task_groups(jobs, segments, &parts);
        let longest = longest_completed(jobs, (segments, slowed), stalls);
        for j in jobs {
            let own = segments.get(&(j.task, j.job)).map_or(&[][..], |s| &s[..]);
            let executed = own_execution(own, slowed.get(&(j.task, j.job)), stalls);
            // An unfinished job needs at least what its task's longest completed job ran.
            let executed = match j.completion {
                Some(_) => executed,
                None => executed.max(longest.get(&j.task).copied().unwrap_or_default()),
            };
            let g = group_of.get(&j.task).copied().unwrap_or(0);
            let od = optional_deadlines.get(j.task).copied().flatten();
            groups[g].jobs.push(Pending {
                release: j.release,
                deadline: j.deadline,
                until: j.completion.or(j.discarded).unwrap_or(end).max(j.release),
                executed,
                optional: od.and_then(|od| optional_wait(j.release + od.as_nanos(), own)),
            });
        }
        groups.iter_mut().for_each(|g| g.saturated = saturated(g));
        Backlogs { groups, group_of }
    }

    /// The backlog of `job` ([`super`]'s rule).
    pub fn of(&self, job: &JobRecord) -> Backlog {
        let group = &self.groups[self.group_of.get(&job.task).copied().unwrap_or(0)];
        let r = job.release;
        let before = group.saturated.partition_point(|&(start, _)| start < r);
        let from = match before.checked_sub(1).map(|i| group.saturated[i]) {
            Some((start, end)) if end >= r => start,
            _ => r,
        };
        let m = group.cores.len().max(1) as u64;
        let demand = (group.jobs.iter())
            .filter(|p| p.release >= from && p.deadline <= job.deadline)
            .fold(0u64, |a, p| a.saturating_add(p.executed.as_nanos()));
        let capacity = m.saturating_mul(job.deadline.saturating_sub(from));
        Backlog {
            from: Instant::from_nanos(from),
            cores: group.cores.clone(),
            demand_slack: capacity.checked_sub(demand).map(Duration::from_nanos),
        }
    }
}

/// Whether the host's holes on `cores` in `window` explain a loss of more than `slack` there
/// (the second case of the rule, for a backlog `[b, d)`): the longest stall outlasts it, or the
/// stalls, each cut to the window, and what a slowed core took from the jobs' segments there
/// besides (`slowed`) add up to more than it. Returns the cause, the stall to name (the
/// longest, unless the slowing was the larger part) and the evidence weighed (the larger of
/// the longest stall and that sum).
fn stalls_outlast(
    window: (Instant, Instant),
    cores: &[usize],
    (slack, slowed): (Duration, Duration),
    stalls: &StallIndex,
) -> (Cause, Option<Stall>, Duration) {
    let longest = longest_in(window, cores, stalls);
    let outlasts = longest.is_some_and(|s| s.length > slack);
    let stalled = lost_in(window, cores, stalls);
    let evidence = (stalled + slowed).max(longest.map_or(Duration::ZERO, |s| s.length));
    match outlasts || stalled + slowed > slack {
        true => (
            Cause::Host,
            longest.filter(|_| outlasts || stalled >= slowed),
            evidence,
        ),
        false => (Cause::Schedule, None, evidence),
    }
}

/// The second case of the rule for a job due at `deadline` with `backlog`, weighed against
/// `slack` (the larger of its own and its backlog's): its cause, the stall to name, and the
/// host's time weighed there ([`stalls_outlast`]).
pub fn cause(
    backlog: &Backlog,
    deadline: Instant,
    slack: Duration,
    runs: (&Segments, &Slowed),
    index: &StallIndex,
) -> (Cause, Option<Stall>, Duration) {
    let window = (backlog.from, deadline);
    let slowed = slowed_in(window, &backlog.cores, runs, index);
    stalls_outlast(window, &backlog.cores, (slack, slowed), index)
}

/// When an imprecise job with its optional deadline at `at` had no real-time work: from the
/// end of its real-time segments begun before `at` (its mandatory part) to `at`, when they
/// ended before it. None when its mandatory part had not begun by then or ran past it.
fn optional_wait(at: u64, real_time: &[Segment]) -> Option<(u64, u64)> {
    let done = (real_time.iter())
        .filter(|s| s.1.as_nanos() < at)
        .map(|s| s.2.as_nanos())
        .max()?;
    (done < at).then_some((done, at))
}

/// Each task's longest own execution among its completed jobs.
fn longest_completed(
    jobs: &[JobRecord],
    (segments, slowed): (&Segments, &Slowed),
    stalls: &StallIndex,
) -> HashMap<usize, Duration> {
    let mut longest: HashMap<usize, Duration> = HashMap::new();
    for j in jobs.iter().filter(|j| j.completion.is_some()) {
        let own = segments.get(&(j.task, j.job)).map_or(&[][..], |s| &s[..]);
        let executed = own_execution(own, slowed.get(&(j.task, j.job)), stalls);
        let entry = longest.entry(j.task).or_default();
        *entry = (*entry).max(executed);
    }
    longest
}

/// The group of each task that ran: that of any core one of its jobs ran on (a segment's, or
/// the CPU it started on), whichever job it was, since a task's cores are all in one group. A
/// task that never ran has none: it joined every core, so the only group is its.
fn task_groups(
    jobs: &[JobRecord],
    segments: &HashMap<(usize, u64), Vec<Segment>>,
    parts: &[BTreeSet<usize>],
) -> HashMap<usize, usize> {
    let mut group_of = HashMap::new();
    for j in jobs {
        let own = segments.get(&(j.task, j.job)).map_or(&[][..], |s| &s[..]);
        let Some(core) = own.first().map(|s| s.0).or(j.cpu) else {
            continue;
        };
        if let Some(g) = parts.iter().position(|p| p.contains(&core)) {
            group_of.entry(j.task).or_insert(g);
        }
    }
    group_of
}

/// The run's cores grouped by the tasks that ran on several (union of each task's cores); a
/// task that never ran joins every core.
fn core_groups(
    jobs: &[JobRecord],
    segments: &HashMap<(usize, u64), Vec<Segment>>,
    cores: &[usize],
) -> Vec<BTreeSet<usize>> {
    let mut by_task: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for j in jobs {
        let used = by_task.entry(j.task).or_default();
        let own = segments.get(&(j.task, j.job)).map_or(&[][..], |s| &s[..]);
        used.extend(own.iter().map(|s| s.0).chain(j.cpu));
    }
    let mut groups: Vec<BTreeSet<usize>> = cores.iter().map(|&c| BTreeSet::from([c])).collect();
    for used in by_task.values() {
        let linked = if used.is_empty() {
            cores.iter().copied().collect()
        } else {
            used.clone()
        };
        let (joined, apart): (Vec<_>, Vec<_>) =
            (groups.into_iter()).partition(|g| g.iter().any(|c| linked.contains(c)));
        groups = apart;
        groups.push(joined.into_iter().flatten().chain(linked).collect());
    }
    groups
}

/// The maximal intervals in which at least as many of the group's jobs as it has cores were
/// pending; a release at the instant another job stops pending keeps the interval going.
fn saturated(group: &Group) -> Vec<(u64, u64)> {
    let mut events: Vec<(u64, i64)> = Vec::with_capacity(4 * group.jobs.len());
    for p in &group.jobs {
        events.extend([(p.release, 1), (p.until, -1)]);
        // Its optional part waits for nothing: no real-time work pending there.
        if let Some((from, to)) = p.optional.filter(|&(_, to)| to <= p.until) {
            events.extend([(from, -1), (to, 1)]);
        }
    }
    // At equal instants releases first, so no empty gap opens between two jobs.
    events.sort_by_key(|&(at, delta)| (at, -delta));
    let m = group.cores.len().max(1) as i64;
    let (mut pending, mut open, mut intervals) = (0i64, None, Vec::new());
    for (at, delta) in events {
        pending += delta;
        match (open, pending >= m) {
            (None, true) => open = Some(at),
            (Some(start), false) => {
                if at > start {
                    intervals.push((start, at));
                }
                open = None;
            }
            _ => {}
        }
    }
    intervals
}

#[cfg(test)]
mod tests;
