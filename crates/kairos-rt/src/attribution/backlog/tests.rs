//! The backlog rule on hand-made runs, every expected value worked by hand in the comments.

use super::super::{attribute, Cause, MissCause, MissesByCause, RunView, SlackFrom};
use super::*;
use crate::stalls::{Seen, Stall};
use kairos_trace::{Trace, TraceEvent};

const MS: u64 = 1_000_000;

fn ms(v: u64) -> Instant {
    Instant::from_nanos(v * MS)
}

fn stall(core: usize, start: u64, length: u64) -> Stall {
    Stall {
        core,
        start: ms(start),
        length: Duration::from_millis(length),
        held: Duration::ZERO,
        seen: Seen::Watcher,
    }
}

/// A job of `task` released at `release` ms with its deadline `period` ms later, run on
/// `core` in `runs` (ms), completed at the end of the last unless `done` is false.
struct Job {
    task: usize,
    job: u64,
    release: u64,
    period: u64,
    runs: Vec<(u64, u64)>,
    done: bool,
}

fn job(task: usize, job: u64, release: u64, runs: &[(u64, u64)]) -> Job {
    Job {
        task,
        job,
        release,
        period: 10,
        runs: runs.to_vec(),
        done: true,
    }
}

/// The records and the measured trace of `jobs`, all on core 0.
fn run_of(jobs: &[Job]) -> (Vec<JobRecord>, Trace) {
    let records = (jobs.iter())
        .map(|j| JobRecord {
            task: j.task,
            job: j.job,
            release: j.release * MS,
            deadline: (j.release + j.period) * MS,
            requested: None,
            start: j.runs.first().map(|r| r.0 * MS),
            completion: (j.runs.last().filter(|_| j.done)).map(|r| r.1 * MS),
            discarded: None,
            cpu: j.runs.first().map(|_| 0),
            release_core: None,
        })
        .collect();
    let events = (jobs.iter())
        .flat_map(|j| {
            j.runs.iter().map(|&(start, end)| TraceEvent::Segment {
                core: 0,
                task: j.task,
                job: j.job,
                start: ms(start),
                end: ms(end),
            })
        })
        .collect();
    let trace = Trace {
        task_names: vec!["a".into(), "b".into()],
        cores: 1,
        end: ms(60),
        events,
        ..Trace::default()
    };
    (records, trace)
}

fn causes(jobs: &[Job], stalls: &[Stall], end: u64) -> (MissesByCause, Vec<MissCause>) {
    let (records, measured) = run_of(jobs);
    let run = RunView {
        measured: &measured,
        stalls,
        cores: &[0],
        worker_segments: &[],
        timer_core: None,
        core_order: None,
        end: end * MS,
    };
    attribute(&records, &run, None)
}

/// One task on core 0, 9 ms of every 10 ms (1 ms of slack alone), whose first job is held up
/// 5 ms at 1 ms: each job completes 4 ms after its deadline, then 3, 2, 1, and the fifth is in
/// time. Only the first job's window [0, 10) overlaps [1, 6) ms.
fn caught_up() -> Vec<Job> {
    vec![
        job(0, 0, 0, &[(0, 1), (6, 14)]),
        job(0, 1, 10, &[(14, 23)]),
        job(0, 2, 20, &[(23, 32)]),
        job(0, 3, 30, &[(32, 41)]),
        job(0, 4, 40, &[(41, 50)]),
    ]
}

#[test]
fn a_backlog_behind_a_stall_is_the_hosts() {
    let (counts, causes) = causes(&caught_up(), &[stall(0, 1, 5)], 60);
    // A job was pending on core 0 from 0 to 50 ms: every backlog begins at 0. Job k's demand
    // slack over [0, 10 (k + 1)) is 10 (k + 1) - 9 (k + 1) = k + 1 ms, its own 10 - 9 = 1 ms:
    // k + 1 ms, and the 5 ms stall at 1 ms, inside every backlog, is longer (the fifth job,
    // with 5 ms of room, was in time).
    assert_eq!((counts.host, counts.schedule), (4, 0));
    assert_eq!(counts.slack_from, SlackFrom::Run);
    for (k, c) in causes.iter().enumerate() {
        assert_eq!((c.task, c.job), (0, k as u64));
        assert_eq!(c.slack, Some(Duration::from_millis(k as u64 + 1)));
        assert_eq!(c.own_slack, Some(Duration::from_millis(1)));
        assert_eq!((c.stall, c.backlog_from), (Some(stall(0, 1, 5)), ms(0)));
    }
}

#[test]
fn the_same_backlog_without_a_stall_is_the_schedules() {
    // The core idle from 1 to 6 ms with the job pending and no stall seen: a dispatcher that
    // let its core fall behind. Nothing explains the four misses but the schedule.
    let (counts, causes) = causes(&caught_up(), &[], 60);
    assert_eq!((counts.host, counts.schedule), (0, 4));
    assert!(causes.iter().all(|c| c.stall.is_none()));
}

#[test]
fn a_stall_that_ended_before_the_backlog_began_explains_nothing() {
    // The same run 7 ms later, after a 5 ms stall at 0 and 2 ms of an idle core: the backlog
    // begins at the first release, 7 ms, after the stall ended at 5 ms.
    let later: Vec<Job> = (caught_up().into_iter())
        .map(|j| Job {
            release: j.release + 7,
            runs: j.runs.iter().map(|&(s, e)| (s + 7, e + 7)).collect(),
            ..j
        })
        .collect();
    let (counts, causes) = causes(&later, &[stall(0, 0, 5)], 67);
    assert_eq!((counts.host, counts.schedule), (0, 4));
    assert!(causes.iter().all(|c| c.backlog_from == ms(7)));
}

/// One task on core 0, 9 ms of every 10 ms, held up 3 ms at 1 ms and again at 31 ms: each
/// stall makes two jobs late (by 2 ms, then 1 ms), the sixth is in time, and a job was pending
/// throughout [0, 60).
fn held_twice() -> Vec<Job> {
    vec![
        job(0, 0, 0, &[(0, 1), (4, 12)]),
        job(0, 1, 10, &[(12, 21)]),
        job(0, 2, 20, &[(21, 30)]),
        job(0, 3, 30, &[(30, 31), (34, 42)]),
        job(0, 4, 40, &[(42, 51)]),
        job(0, 5, 50, &[(51, 60)]),
    ]
}

#[test]
fn stalls_that_together_outlast_the_backlogs_room_are_the_hosts() {
    let stalls = [stall(0, 1, 3), stall(0, 31, 3)];
    let (counts, both_seen) = causes(&held_twice(), &stalls, 70);
    // Jobs 0, 1, 3 and 4 miss. Job 4's window [40, 50) overlaps no stall; its backlog [0, 50)
    // holds jobs 0-4, 45 ms of work: 5 ms of room, its own slack 1 ms. Neither 3 ms stall is
    // longer than 5 ms, but together they took 6 ms of [0, 50).
    assert_eq!((counts.host, counts.schedule), (4, 0));
    let last = both_seen.last().expect("job 4 missed");
    assert_eq!((last.job, last.cause), (4, Cause::Host));
    assert_eq!(last.slack, Some(Duration::from_millis(5)));
    assert_eq!(last.own_slack, Some(Duration::from_millis(1)));
    assert_eq!(last.stall, Some(stall(0, 1, 3)));
    // With the first stall unseen, [0, 50) lost 3 ms, less than its room: job 4 is the
    // schedule's, and so are jobs 0 and 1, with nothing seen in their way. Job 3's own window
    // holds the second stall, longer than its 1 ms of slack.
    let (counts, one_seen) = causes(&held_twice(), &stalls[1..], 70);
    assert_eq!((counts.host, counts.schedule), (1, 3));
    let host: Vec<u64> = (one_seen.iter())
        .filter(|c| c.cause == Cause::Host)
        .map(|c| c.job)
        .collect();
    assert_eq!(host, [3]);
}

#[test]
fn an_overloaded_core_is_the_schedules_even_with_a_stall_in_the_window() {
    // A wrong partition: `a` and `b`, 6 ms of every 10 ms each, both on core 0 (U = 1.2),
    // under EDF (ties to `a`), a 5 ms stall at 2 ms, the run ending at 33 ms:
    // a#0 [0, 2) [7, 11), b#0 [11, 17), a#1 [17, 23), b#1 [23, 29), a#2 [29, 33) unfinished,
    // b#2 never ran; a#3 and b#3 (due at 40 ms) are pending, not missed.
    let mut jobs = vec![
        job(0, 0, 0, &[(0, 2), (7, 11)]),
        job(1, 0, 0, &[(11, 17)]),
        job(0, 1, 10, &[(17, 23)]),
        job(1, 1, 10, &[(23, 29)]),
        job(0, 2, 20, &[(29, 33)]),
        job(1, 2, 20, &[]),
        job(0, 3, 30, &[]),
        job(1, 3, 30, &[]),
    ];
    jobs[4].done = false;
    let (counts, causes) = causes(&jobs, &[stall(0, 2, 5)], 33);
    // a#0's own slack is 10 - 6 = 4 ms, shorter than the stall in its window: the window rule
    // alone would call it the host's. But [0, 10) holds a#0 and b#0, 12 ms of work in 10 ms;
    // [0, 20) 24 ms in 20; [0, 30) 24 + 6 + 6 (a#2 and b#2 unfinished, counted as their
    // tasks' longest completed job) in 30: an overload at every deadline, no slack.
    assert_eq!((counts.host, counts.schedule), (0, 6));
    assert!(causes.iter().all(|c| c.slack.is_none()));
}

#[test]
fn cores_are_grouped_by_the_tasks_that_ran_on_several() {
    let on = |task: usize, job: u64, core: usize| JobRecord {
        task,
        job,
        release: 0,
        deadline: 10,
        requested: None,
        start: Some(0),
        completion: Some(1),
        discarded: None,
        cpu: Some(core),
        release_core: None,
    };
    let none = HashMap::new();
    // Task 0 migrated between cores 0 and 1; task 1 stayed on core 2: two groups.
    let jobs = [on(0, 0, 0), on(0, 1, 1), on(1, 0, 2)];
    let groups = core_groups(&jobs, &none, &[0, 1, 2]);
    assert_eq!(groups.len(), 2);
    assert!(groups.contains(&BTreeSet::from([0, 1])) && groups.contains(&BTreeSet::from([2])));
    // A task that never ran could have run anywhere: one group of every core.
    let mut never = on(2, 0, 0);
    (never.start, never.completion, never.cpu) = (None, None, None);
    let jobs = [on(0, 0, 0), on(1, 0, 2), never];
    assert_eq!(
        core_groups(&jobs, &none, &[0, 1, 2]),
        vec![BTreeSet::from([0, 1, 2])]
    );
}

#[test]
fn on_two_cores_a_backlog_needs_both_busy() {
    // Two jobs pending over [0, 8) and [2, 9) on a group of two cores: both busy in [2, 8)
    // only; one over [8, 12) keeps two pending until 9.
    let group = Group {
        cores: vec![0, 1],
        jobs: [(0, 8), (2, 9), (8, 12)]
            .map(|(release, until)| Pending {
                release,
                deadline: until,
                until,
                executed: Duration::ZERO,
                optional: None,
            })
            .to_vec(),
        saturated: Vec::new(),
    };
    assert_eq!(saturated(&group), vec![(2, 9)]);
}

#[test]
fn a_task_keeps_its_cores_when_its_last_job_never_ran() {
    let rec = |task: usize, job: u64, cpu: Option<usize>| JobRecord {
        task,
        job,
        release: job * 10,
        deadline: (job + 1) * 10,
        requested: None,
        start: cpu.map(|_| job * 10),
        completion: cpu.map(|_| job * 10 + 1),
        discarded: None,
        cpu,
        release_core: None,
    };
    // Partitioned: task 0 on core 1, task 1 on core 0; task 0's second job never started.
    let jobs = [rec(0, 0, Some(1)), rec(1, 0, Some(0)), rec(0, 1, None)];
    let backlogs = Backlogs::new(
        &jobs,
        (&HashMap::new(), &HashMap::new(), &[]),
        &StallIndex::new(&[]),
        (&[0, 1], 30),
    );
    // Its task ran on core 1 only: that is its group, not core 0, the first of the run.
    assert_eq!(backlogs.of(&jobs[2]).cores, vec![1]);
    assert_eq!(backlogs.of(&jobs[1]).cores, vec![0]);
}

mod real_time;
