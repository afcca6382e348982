//! The rule on hand-made intervals, every expected value worked by hand in the comments.

use super::*;
use crate::measure::WorkerTime;
use crate::stalls::Seen;
use kairos_trace::TraceEvent;

const MS: u64 = 1_000_000;

fn at(ns: u64) -> Instant {
    Instant::from_nanos(ns)
}

/// A segment of job `(task, job)` on `cpu` over `[start, end)` (ns) whose worker did work all
/// along, of an optional part if `optional`; the other rules' tests use it too.
pub(super) fn worked(
    cpu: usize,
    (task, job): (usize, u64),
    (start, end): (u64, u64),
    optional: bool,
) -> SegmentRecord {
    let wall = Duration::from_nanos(end - start);
    SegmentRecord {
        cpu,
        task,
        job,
        start,
        end,
        worker_time: Some(WorkerTime {
            on_cpu: wall,
            work: wall,
            dispatching: Duration::ZERO,
            optional,
        }),
    }
}

/// A watcher's stall of `core` from `start` for `length` (ns); the other rules' tests use it too.
pub(super) fn stall(core: usize, start: u64, length: u64) -> Stall {
    Stall {
        core,
        start: at(start),
        length: Duration::from_nanos(length),
        held: Duration::ZERO,
        seen: Seen::Watcher,
    }
}

#[test]
fn a_window_sees_the_stalls_of_its_core_that_overlap_it() {
    let index = StallIndex::new(&[
        stall(0, 50, 30),
        stall(0, 10, 10),
        stall(0, 30, 5),
        stall(1, 0, 100),
    ]);
    // [10, 20) and [30, 35) overlap [15, 31); [50, 80) does not.
    assert_eq!(
        index.overlapping(0, at(15), at(31)),
        &[stall(0, 10, 10), stall(0, 30, 5)]
    );
    // Half-open: [10, 20) ends where [20, 30) begins, [30, 35) begins where it ends.
    assert!(index.overlapping(0, at(20), at(30)).is_empty());
    assert_eq!(index.overlapping(1, at(99), at(200)), &[stall(1, 0, 100)]);
    assert!(index.overlapping(2, at(0), at(1000)).is_empty());
}

#[test]
fn a_miss_is_the_hosts_only_when_a_stall_on_its_core_outlasts_its_slack() {
    let index = StallIndex::new(&[stall(0, 2, 10), stall(0, 40, 4), stall(1, 0, 50)]);
    let window = (at(0), at(20));
    let slack = Some(Duration::from_nanos(6));
    // The 10 ns stall on core 0 lies in the window and is longer than 6 ns.
    assert_eq!(
        cause_of(window, &[0], slack, &index),
        (Cause::Host, Some(stall(0, 2, 10)))
    );
    // Only the job's cores count: core 2 had no stall, core 1's 50 ns is not its.
    assert_eq!(
        cause_of(window, &[2], slack, &index),
        (Cause::Schedule, None)
    );
    // Several cores: the longest stall explains it.
    assert_eq!(
        cause_of(window, &[0, 1], slack, &index).1,
        Some(stall(1, 0, 50))
    );
    // Exactly the slack is not longer than it.
    let ten = Some(Duration::from_nanos(10));
    assert_eq!(cause_of(window, &[0], ten, &index), (Cause::Schedule, None));
    // No slack: the schedule misses it whatever the host did.
    assert_eq!(
        cause_of(window, &[1], None, &index),
        (Cause::Schedule, None)
    );
    // A stall outside the window explains nothing: [40, 44) after the deadline 20.
    assert_eq!(
        cause_of((at(25), at(40)), &[0], Some(Duration::ZERO), &index),
        (Cause::Schedule, None)
    );
}

#[test]
fn slack_from_the_simulation_is_the_time_left_before_the_deadline() {
    let d = at(100);
    assert_eq!(
        slack_simulated(d, Some(at(70))),
        Some(Duration::from_nanos(30))
    );
    assert_eq!(slack_simulated(d, Some(at(100))), Some(Duration::ZERO));
    assert_eq!(slack_simulated(d, Some(at(101))), None);
    assert_eq!(slack_simulated(d, None), None);
}

#[test]
fn slack_alone_is_the_window_less_the_jobs_own_execution() {
    let (r, d) = (at(10), at(110));
    assert_eq!(
        slack_alone(r, d, Duration::from_nanos(30)),
        Some(Duration::from_nanos(70))
    );
    assert_eq!(
        slack_alone(r, d, Duration::from_nanos(100)),
        Some(Duration::ZERO)
    );
    assert_eq!(slack_alone(r, d, Duration::from_nanos(101)), None);
}

#[test]
fn own_execution_leaves_out_the_stalls_inside_the_segments() {
    let index = StallIndex::new(&[stall(0, 10, 10), stall(1, 80, 20), stall(0, 55, 100)]);
    let segments = [(0, at(0), at(50)), (1, at(60), at(90))];
    // Core 0: 50 less [10, 20) = 40 ([55, ...) starts after it); core 1: 30 less [80, 90) = 20.
    assert_eq!(
        own_execution(&segments, None, &index),
        Duration::from_nanos(60)
    );
}

fn job(task: usize, job: u64, (release, deadline): (u64, u64), completion: u64) -> JobRecord {
    JobRecord {
        task,
        job,
        release,
        deadline,
        requested: None,
        start: Some(release),
        completion: Some(completion),
        discarded: None,
        cpu: Some(task),
        release_core: None,
    }
}

fn segment(core: usize, task: usize, job: u64, start: u64, end: u64) -> TraceEvent {
    TraceEvent::Segment {
        core,
        task,
        job,
        start: at(start),
        end: at(end),
    }
}

fn trace(events: Vec<TraceEvent>) -> Trace {
    Trace {
        task_names: vec!["a".into(), "b".into()],
        cores: 2,
        end: at(30 * MS),
        events,
        ..Trace::default()
    }
}

/// A run on two cores of 30 ms with `measured` and `stalls`, no worker segments, no timer
/// core and no core order: what most cases here change a field or two of.
pub(super) fn two_cores<'a>(measured: &'a Trace, stalls: &'a [Stall]) -> RunView<'a> {
    RunView {
        measured,
        stalls,
        cores: &[0, 1],
        worker_segments: &[],
        timer_core: None,
        core_order: None,
        end: 30 * MS,
    }
}

/// `a#0` on core 0 runs [0, 2) and [12, 14) ms around a stall [2, 12) ms, missing its 10 ms
/// deadline; `b#0` on core 1 runs [0, 11) ms, around a stall [5, 7) ms, and misses too;
/// `a#1` meets its deadline.
fn scenario() -> (Vec<JobRecord>, Trace, Vec<Stall>) {
    let jobs = vec![
        job(0, 0, (0, 10 * MS), 14 * MS),
        job(1, 0, (0, 10 * MS), 11 * MS),
        job(0, 1, (10 * MS, 20 * MS), 15 * MS),
    ];
    let measured = trace(vec![
        segment(0, 0, 0, 0, 2 * MS),
        segment(1, 1, 0, 0, 11 * MS),
        segment(0, 0, 0, 12 * MS, 14 * MS),
        segment(0, 0, 1, 14 * MS, 15 * MS),
    ]);
    let stalls = vec![stall(0, 2 * MS, 10 * MS), stall(1, 5 * MS, 2 * MS)];
    (jobs, measured, stalls)
}

#[test]
fn without_a_simulation_the_slack_is_the_jobs_own() {
    let (jobs, measured, stalls) = scenario();
    let run = two_cores(&measured, &stalls);
    let (counts, causes) = attribute(&jobs, &run, None);
    // a#0: 10 - 4 ms of its own = 6 ms of slack; the 10 ms stall is longer: host.
    // b#0: 11 ms of segments less the 2 ms stall inside = 9 ms, 1 ms of slack; 2 ms: host.
    assert_eq!(
        counts,
        MissesByCause {
            host: 2,
            schedule: 0,
            slack_from: SlackFrom::Run,
            by_stalled_twin: None,
        }
    );
    let slack: Vec<_> = causes.iter().map(|c| c.slack).collect();
    let ms = |v| Some(Duration::from_millis(v));
    assert_eq!(slack, vec![ms(6), ms(1)]);
    assert_eq!(causes[0].stall, Some(stalls[0]));
    // The evidence weighed: each job's longest stall.
    let evidence: Vec<_> = causes.iter().map(|c| Some(c.evidence)).collect();
    assert_eq!(evidence, vec![ms(10), ms(2)]);
}

#[test]
fn with_a_simulation_a_job_it_misses_too_is_the_schedules() {
    let (jobs, measured, stalls) = scenario();
    let run = two_cores(&measured, &stalls);
    let done = |task, ms: u64| TraceEvent::Completion {
        task,
        job: 0,
        at: at(ms * MS),
    };
    // The simulation completes a#0 at 12 ms (a miss there too) and b#0 at 8.5 ms.
    let simulated = trace(vec![
        TraceEvent::Completion {
            task: 1,
            job: 0,
            at: at(8_500_000),
        },
        done(0, 12),
    ]);
    let (counts, causes) = attribute(&jobs, &run, Some(Twin::new(&simulated)));
    // a#0: no slack, schedule. b#0: 1.5 ms of slack, the 2 ms stall is longer: host.
    assert_eq!((counts.host, counts.schedule), (1, 1));
    assert_eq!(counts.slack_from, SlackFrom::Simulation);
    assert_eq!(
        causes.iter().map(|c| (c.task, c.cause)).collect::<Vec<_>>(),
        vec![(0, Cause::Schedule), (1, Cause::Host)]
    );
    // a#0 had no slack to weigh a stall against.
    assert_eq!(causes[0].evidence, Duration::ZERO);
    // A 1 ms stall instead would fit in b#0's 1.5 ms: the schedule's, on 1 ms of evidence (the
    // stall in its window, inside its segment, and alone in its backlog [0, 10) ms).
    let shorter = vec![stalls[0], stall(1, 5 * MS, MS)];
    let run = RunView {
        stalls: &shorter,
        ..run
    };
    let (counts, causes) = attribute(&jobs, &run, Some(Twin::new(&simulated)));
    assert_eq!((counts.host, counts.schedule), (0, 2));
    assert_eq!(causes[1].evidence, Duration::from_millis(1));
    assert_eq!(causes[1].backlog_evidence, Duration::from_millis(1));
    // The same, where b#0's worker held its CPU 10 ms over [0, 11) ms for 7 ms of work and
    // the other segments lost nothing (the usual share is 0): 3 ms slowed less the segment's
    // 10 us allowance, of which the 1 ms after its deadline may not count: 1.99 ms surely
    // before it, more than its 1.5 ms: the host's, no stall named.
    let worked = |task, job, (start, end): (u64, u64), (on_cpu, work): (u64, u64)| SegmentRecord {
        cpu: task,
        task,
        job,
        start: start * MS,
        end: end * MS,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_millis(on_cpu),
            work: Duration::from_millis(work),
            // Off its CPU only while the dispatcher ran: nothing taken there.
            dispatching: Duration::from_millis((end - start) - on_cpu),
            optional: false,
        }),
    };
    let segments = [
        worked(0, 0, (0, 2), (2, 2)),
        worked(1, 0, (0, 11), (10, 7)),
        worked(0, 0, (12, 14), (2, 2)),
        worked(0, 1, (14, 15), (1, 1)),
    ];
    let run = RunView {
        worker_segments: &segments,
        timer_core: None,
        ..run
    };
    let (counts, causes) = attribute(&jobs, &run, Some(Twin::new(&simulated)));
    assert_eq!((counts.host, counts.schedule), (1, 1));
    assert_eq!((causes[1].cause, causes[1].stall), (Cause::Host, None));
    assert_eq!(causes[1].slowed, Duration::from_nanos(2 * MS - 10_000));
    // With 8.6 ms of work, 0.39 ms surely before its deadline fits its slack, and the 1.39 ms
    // up to its completion, though more than the 1 ms it was late, does not overrun its 1.5
    // ms: the schedule's.
    let mut lighter = segments;
    lighter[1].worker_time = Some(WorkerTime {
        on_cpu: Duration::from_millis(10),
        work: Duration::from_micros(8_600),
        dispatching: Duration::from_millis(1),
        optional: false,
    });
    let run = RunView {
        worker_segments: &lighter,
        timer_core: None,
        ..run
    };
    let (counts, causes) = attribute(&jobs, &run, Some(Twin::new(&simulated)));
    assert_eq!((counts.host, counts.schedule), (0, 2));
    // Its evidence: those 1.39 ms its own segment lost, more than the 1 ms stall inside it;
    // in its backlog [0, 10) ms the stall and what the segment surely lost before 10 ms
    // beyond it (0.39 ms slowed before the deadline, less than the 1 ms stall inside): 1 ms.
    assert_eq!(causes[1].evidence, Duration::from_micros(1_390));
    assert_eq!(causes[1].backlog_evidence, Duration::from_millis(1));
}

#[test]
fn a_job_that_never_ran_could_have_been_on_any_core() {
    let mut unstarted = job(0, 0, (0, 10 * MS), 0);
    (unstarted.start, unstarted.completion, unstarted.cpu) = (None, None, None);
    let stalls = [stall(1, 0, 11 * MS)];
    let measured = trace(Vec::new());
    let run = two_cores(&measured, &stalls);
    // Nothing executed: 10 ms of slack, and core 1's 11 ms stall is longer.
    let (counts, causes) = attribute(&[unstarted], &run, None);
    assert_eq!(counts.host, 1);
    assert_eq!(causes[0].stall, Some(stalls[0]));
}

mod ahead;
mod evidence;
mod release;
mod stalled;
mod wait;
