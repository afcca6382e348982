//! The attribution rule read straight from its definition (the documentation of
//! `kairos_rt::attribution` and of its backlog), tick by tick on a [`Timeline`]: no event
//! sweep, no search, every count an enumeration of ticks.

use crate::timeline::{SimJob, Timeline};
use std::collections::BTreeSet;

/// What the rule decides for one missed job, in ticks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub task: usize,
    pub job: u64,
    pub host: bool,
    /// The slack the stalls were weighed against: the job's own for a host miss of its own
    /// window, else the larger of the two; none when either is missing.
    pub slack: Option<u64>,
    /// The length of the stall that explains a host miss.
    pub stall: Option<u64>,
    pub backlog_from: u64,
}

/// Which part of the rule decided a miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decided {
    /// A stall in the job's own window outlasted its slack.
    Window,
    /// The stalls inside its own execution took at least its lateness and more than its slack.
    Own,
    /// In a partitioned run, the stalls inside the work ahead of it on its core, and in the
    /// gaps its core ran nothing while it waited, took at least its lateness.
    Ahead,
    /// A stall in its backlog outlasted both slacks.
    Backlog,
    /// No stall alone, but the stalls in its backlog together took more than both slacks.
    Summed,
    /// The jobs due by its deadline needed more than the cores had.
    Overload,
    /// Any other miss of the schedule.
    Schedule,
}

/// The groups of cores: cores linked by a task that held both, a task that never ran linked
/// to every core. Each core's group, as the smallest core in it.
fn groups(run: &Timeline) -> Vec<usize> {
    let mut root: Vec<usize> = (0..run.cores).collect();
    let tasks: BTreeSet<usize> = run.jobs.iter().map(|j| j.task).collect();
    for task in tasks {
        let used: BTreeSet<usize> = (run.jobs.iter().filter(|j| j.task == task))
            .flat_map(|j| j.ran.iter().map(|r| r.0))
            .collect();
        let linked: Vec<usize> = match used.is_empty() {
            true => (0..run.cores).collect(),
            false => used.into_iter().collect(),
        };
        // Relabel every core of the groups the task touches to the smallest label among them.
        let touched: BTreeSet<usize> = linked.iter().map(|&c| root[c]).collect();
        let label = *touched.first().expect("a task links a core");
        root.iter_mut()
            .filter(|r| touched.contains(r))
            .for_each(|r| *r = label);
    }
    root
}

/// The group of `task`: that of a core it held, else (it never ran, so one group holds every
/// core) that of core 0.
fn group_of(run: &Timeline, root: &[usize], task: usize) -> usize {
    let core = (run.jobs.iter().filter(|j| j.task == task)).find_map(|j| j.ran.first());
    root[core.map_or(0, |r| r.0)]
}

/// Ticks a job held a core and was not stalled there.
fn executed(run: &Timeline, i: usize) -> u64 {
    let ran = run.jobs[i].ran.iter();
    ran.filter(|&&(c, t)| !run.stalled(c, t)).count() as u64
}

/// Its execution, or for an unfinished job at least its task's longest completed one.
fn needed(run: &Timeline, i: usize) -> u64 {
    let j = &run.jobs[i];
    if j.completion.is_some() {
        return executed(run, i);
    }
    let completed = (0..run.jobs.len())
        .filter(|&k| run.jobs[k].task == j.task && run.jobs[k].completion.is_some());
    executed(run, i).max(completed.map(|k| executed(run, k)).max().unwrap_or(0))
}

/// How many of the group's jobs are pending (released, not completed, before the end) during
/// tick `t`.
fn pending(run: &Timeline, members: &[usize], t: u64) -> usize {
    let until = |i: usize| run.jobs[i].completion.unwrap_or(run.end);
    (members.iter())
        .filter(|&&i| run.jobs[i].release <= t && t < until(i))
        .count()
}

/// The longest stall on `cores` overlapping `[from, to)`.
fn longest_stall(run: &Timeline, cores: &[usize], (from, to): (u64, u64)) -> Option<u64> {
    (run.stalls.iter())
        .filter(|&&(c, s, l)| cores.contains(&c) && s < to && s + l > from)
        .map(|s| s.2)
        .max()
}

/// Ticks stalled on `cores` within `[from, to)`.
fn lost(run: &Timeline, cores: &[usize], (from, to): (u64, u64)) -> u64 {
    let stalled = |t: u64| cores.iter().filter(|&&c| run.stalled(c, t)).count() as u64;
    (from..to).map(stalled).sum()
}

/// Whether the ticks a completed job held a core stalled number at least its lateness and
/// more than `slack`.
fn took_its_lateness(run: &Timeline, i: usize, slack: u64) -> bool {
    let j = &run.jobs[i];
    let Some(late) = j.completion.map(|f| f - j.deadline) else {
        return false;
    };
    let stalled = (j.ran.iter()).filter(|&&(c, t)| run.stalled(c, t)).count() as u64;
    stalled >= late && stalled > slack
}

/// Whether job `k` is ahead of job `i` on a core by earliest deadline (ties: release, task,
/// job), or is `i`.
fn ahead_of(run: &Timeline, k: usize, i: usize) -> bool {
    let key = |j: &SimJob| (j.deadline, j.release, j.task, j.job);
    k == i || key(&run.jobs[k]) < key(&run.jobs[i])
}

/// Each maximal run of consecutive ticks the job held one core: `(core, start, end)`.
fn segments(j: &SimJob) -> Vec<(usize, u64, u64)> {
    let mut out: Vec<(usize, u64, u64)> = Vec::new();
    for &(core, t) in &j.ran {
        match out.last_mut() {
            Some((c, _, end)) if *c == core && *end == t => *end = t + 1,
            _ => out.push((core, t, t + 1)),
        }
    }
    out
}

/// In the segments on `core` of the jobs ahead of job `i` (its own too), each cut to
/// `[from, to)`, and in the ticks there that no job held `core`: the stalled ticks, and the
/// longest stall over one of those ticks.
fn ahead_lost(run: &Timeline, i: usize, core: usize, (from, to): (u64, u64)) -> (u64, Option<u64>) {
    let (mut lost, mut longest) = (0, None);
    let mut count = |ticks: std::ops::Range<u64>| {
        lost += ticks.clone().filter(|&t| run.stalled(core, t)).count() as u64;
        let over =
            |&&(sc, s, l): &&(usize, u64, u64)| sc == core && s < ticks.end && s + l > ticks.start;
        longest = longest.max(run.stalls.iter().filter(over).map(|s| s.2).max());
    };
    for k in (0..run.jobs.len()).filter(|&k| ahead_of(run, k, i)) {
        for (c, start, end) in segments(&run.jobs[k]) {
            if c != core || end <= from || start >= to {
                continue;
            }
            count(start.max(from)..end.min(to));
        }
    }
    let held = |t: u64| (run.jobs.iter()).any(|j| j.ran.contains(&(core, t)));
    for t in (from..to).filter(|&t| !held(t)) {
        count(t..t + 1);
    }
    (lost, longest)
}

/// The core of `task`: where one of its jobs ran first; `None` if none ran.
fn task_core(run: &Timeline, task: usize) -> Option<usize> {
    (run.jobs.iter().filter(|j| j.task == task)).find_map(|j| j.ran.first().map(|r| r.0))
}

/// Whether a job ahead of job `i`, of a task on `core` (or of one that never ran), released
/// before `f` had not completed by `f`.
fn one_waited_behind(run: &Timeline, i: usize, core: usize, f: u64) -> bool {
    (0..run.jobs.len()).any(|k| {
        let other = &run.jobs[k];
        k != i
            && ahead_of(run, k, i)
            && other.release < f
            && task_core(run, other.task).is_none_or(|c| c == core)
            && other.completion.is_none_or(|done| done > f)
    })
}

/// Whether, in a partitioned run, the stalls inside the work ahead of completed job `i` on the
/// one core it held (each of its ticks names its core in `held`), and in the ticks no job held
/// it, from its release to its completion `f` took at least its lateness, every job ahead of it
/// there released before `f` completed by then; the longest stall over them then.
fn ahead_took(run: &Timeline, i: usize, held: &[usize]) -> Option<Option<u64>> {
    let j = &run.jobs[i];
    let cores: BTreeSet<usize> = held.iter().copied().collect();
    let (Some(&core), 1, Some(f)) = (cores.first(), cores.len(), j.completion) else {
        return None;
    };
    if one_waited_behind(run, i, core, f) {
        return None;
    }
    let (lost, longest) = ahead_lost(run, i, core, (j.release, f));
    (run.partitioned && lost >= f - j.deadline).then_some(longest)
}

/// The stalled ticks inside the work ahead of completed job `task#job` on the one core it
/// held, from its release to its completion ([`ahead_lost`]); `None` if it held several or
/// did not complete.
pub fn ahead_stalls(run: &Timeline, task: usize, job: u64) -> Option<u64> {
    let i = (run.jobs.iter()).position(|j| (j.task, j.job) == (task, job))?;
    let j = &run.jobs[i];
    let cores: BTreeSet<usize> = j.ran.iter().map(|r| r.0).collect();
    let (Some(&core), 1, Some(f)) = (cores.first(), cores.len(), j.completion) else {
        return None;
    };
    Some(ahead_lost(run, i, core, (j.release, f)).0)
}

/// Of [`ahead_stalls`], the stalled ticks no job held the core.
pub fn ahead_gap_stalls(run: &Timeline, task: usize, job: u64) -> Option<u64> {
    let j = (run.jobs.iter()).find(|j| (j.task, j.job) == (task, job))?;
    let (&(core, _), f) = (j.ran.first()?, j.completion?);
    let held = |t: u64| (run.jobs.iter()).any(|j| j.ran.contains(&(core, t)));
    let idle = (j.release..f).filter(|&t| !held(t) && run.stalled(core, t));
    Some(idle.count() as u64)
}

/// The longest stall over a tick the job held a core.
fn longest_inside(run: &Timeline, i: usize) -> Option<u64> {
    let ran = &run.jobs[i].ran;
    (run.stalls.iter())
        .filter(|&&(c, s, l)| ran.iter().any(|&(rc, t)| rc == c && s <= t && t < s + l))
        .map(|s| s.2)
        .max()
}

/// Every missed job of `run`, the rule's verdict and what decided it, in the order of
/// `run.jobs`.
pub fn verdicts(run: &Timeline) -> Vec<(Verdict, Decided)> {
    let root = groups(run);
    let missed = |i: usize| {
        let j = &run.jobs[i];
        j.completion
            .map_or(j.deadline <= run.end, |f| f > j.deadline)
    };
    (0..run.jobs.len())
        .filter(|&i| missed(i))
        .map(|i| verdict(run, &root, i))
        .collect()
}

fn verdict(run: &Timeline, root: &[usize], i: usize) -> (Verdict, Decided) {
    let j = &run.jobs[i];
    let (r, d) = (j.release, j.deadline);
    let g = group_of(run, root, j.task);
    let cores: Vec<usize> = (0..run.cores).filter(|&c| root[c] == g).collect();
    let m = cores.len() as u64;
    let members: Vec<usize> = (0..run.jobs.len())
        .filter(|&k| group_of(run, root, run.jobs[k].task) == g)
        .collect();
    let mut b = r;
    while b > 0 && pending(run, &members, b - 1) >= m as usize {
        b -= 1;
    }
    let demand: u64 = (members.iter())
        .filter(|&&k| run.jobs[k].release >= b && run.jobs[k].deadline <= d)
        .map(|&k| needed(run, k))
        .sum();
    let own = (d - r).checked_sub(executed(run, i));
    let room = (m * (d - b)).checked_sub(demand);
    let mut held: Vec<usize> = j.ran.iter().map(|r| r.0).collect();
    if held.is_empty() {
        held = cores.clone();
    }
    let (decided, slack, stall) = match own.zip(room) {
        None if room.is_none() => (Decided::Overload, None, None),
        None => (Decided::Schedule, None, None),
        Some((own, room)) => match longest_stall(run, &held, (r, d)).filter(|&l| l > own) {
            Some(l) => (Decided::Window, Some(own), Some(l)),
            None if took_its_lateness(run, i, own) => {
                (Decided::Own, Some(own), longest_inside(run, i))
            }
            None if ahead_took(run, i, &held).is_some() => {
                let longest = ahead_took(run, i, &held).flatten();
                (Decided::Ahead, Some(own), longest)
            }
            None => {
                let larger = own.max(room);
                let longest = longest_stall(run, &cores, (b, d));
                match longest {
                    Some(l) if l > larger => (Decided::Backlog, Some(larger), Some(l)),
                    Some(_) if lost(run, &cores, (b, d)) > larger => {
                        (Decided::Summed, Some(larger), longest)
                    }
                    _ => (Decided::Schedule, Some(larger), None),
                }
            }
        },
    };
    let verdict = Verdict {
        task: j.task,
        job: j.job,
        host: matches!(
            decided,
            Decided::Window | Decided::Own | Decided::Ahead | Decided::Backlog | Decided::Summed
        ),
        slack,
        stall,
        backlog_from: b,
    };
    (verdict, decided)
}
