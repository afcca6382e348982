//! The rule on hand-made intervals, every expected value worked by hand in the comments.

use super::*;
use crate::measure::WorkerTime;
use crate::stalls::Seen;

const MS: u64 = 1_000_000;

fn at(ns: u64) -> Instant {
    Instant::from_nanos(ns)
}

fn stall(core: usize, start: u64, length: u64) -> Stall {
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
    assert_eq!(own_execution(&segments, &index), Duration::from_nanos(60));
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
    let run = RunView {
        measured: &measured,
        stalls: &stalls,
        cores: &[0, 1],
        worker_segments: &[],
        timer_core: None,
        end: 30 * MS,
    };
    let (counts, causes) = attribute(&jobs, &run, None);
    // a#0: 10 - 4 ms of its own = 6 ms of slack; the 10 ms stall is longer: host.
    // b#0: 11 ms of segments less the 2 ms stall inside = 9 ms, 1 ms of slack; 2 ms: host.
    assert_eq!(
        counts,
        MissesByCause {
            host: 2,
            schedule: 0,
            slack_from: SlackFrom::Run
        }
    );
    let slack: Vec<_> = causes.iter().map(|c| c.slack).collect();
    let ms = |v| Some(Duration::from_millis(v));
    assert_eq!(slack, vec![ms(6), ms(1)]);
    assert_eq!(causes[0].stall, Some(stalls[0]));
}

#[test]
fn with_a_simulation_a_job_it_misses_too_is_the_schedules() {
    let (jobs, measured, stalls) = scenario();
    let run = RunView {
        measured: &measured,
        stalls: &stalls,
        cores: &[0, 1],
        worker_segments: &[],
        timer_core: None,
        end: 30 * MS,
    };
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
    let (counts, causes) = attribute(&jobs, &run, Some(&simulated));
    // a#0: no slack, schedule. b#0: 1.5 ms of slack, the 2 ms stall is longer: host.
    assert_eq!((counts.host, counts.schedule), (1, 1));
    assert_eq!(counts.slack_from, SlackFrom::Simulation);
    assert_eq!(
        causes.iter().map(|c| (c.task, c.cause)).collect::<Vec<_>>(),
        vec![(0, Cause::Schedule), (1, Cause::Host)]
    );
    // A 1 ms stall instead would fit in b#0's 1.5 ms: the schedule's.
    let shorter = vec![stalls[0], stall(1, 5 * MS, MS)];
    let run = RunView {
        stalls: &shorter,
        ..run
    };
    let (counts, _) = attribute(&jobs, &run, Some(&simulated));
    assert_eq!((counts.host, counts.schedule), (0, 2));
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
            // Off its CPU only while the dispatcher was awake: nothing taken there.
            dispatching: Duration::from_millis((end - start) - on_cpu),
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
    let (counts, causes) = attribute(&jobs, &run, Some(&simulated));
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
    });
    let run = RunView {
        worker_segments: &lighter,
        timer_core: None,
        ..run
    };
    let (counts, _) = attribute(&jobs, &run, Some(&simulated));
    assert_eq!((counts.host, counts.schedule), (0, 2));
}

#[test]
fn a_job_that_never_ran_could_have_been_on_any_core() {
    let mut unstarted = job(0, 0, (0, 10 * MS), 0);
    (unstarted.start, unstarted.completion, unstarted.cpu) = (None, None, None);
    let stalls = [stall(1, 0, 11 * MS)];
    let measured = trace(Vec::new());
    let run = RunView {
        measured: &measured,
        stalls: &stalls,
        cores: &[0, 1],
        worker_segments: &[],
        timer_core: None,
        end: 30 * MS,
    };
    // Nothing executed: 10 ms of slack, and core 1's 11 ms stall is longer.
    let (counts, causes) = attribute(&[unstarted], &run, None);
    assert_eq!(counts.host, 1);
    assert_eq!(causes[0].stall, Some(stalls[0]));
}

/// `b#0` on core 1, with an optional deadline at 8 ms: its mandatory and optional parts run
/// [0, 1) ms, its wind-up [8.3, 10.2) ms, past its 10 ms deadline; the simulation of the run
/// completes it at 9.9 ms, 100 us of slack.
fn imprecise(core0_stall: Stall, timer_core: Option<usize>) -> (MissesByCause, Vec<MissCause>) {
    let jobs = vec![JobRecord {
        cpu: Some(1),
        ..job(1, 0, (0, 10 * MS), 10_200_000)
    }];
    let measured = Trace {
        optional_deadlines: vec![None, Some(Duration::from_millis(8))],
        ..trace(vec![
            segment(1, 1, 0, 0, MS),
            segment(1, 1, 0, 8_300_000, 10_200_000),
        ])
    };
    let stalls = [core0_stall];
    let run = RunView {
        measured: &measured,
        stalls: &stalls,
        cores: &[0, 1],
        worker_segments: &[],
        timer_core,
        end: 30 * MS,
    };
    let simulated = trace(vec![TraceEvent::Completion {
        task: 1,
        job: 0,
        at: at(9_900_000),
    }]);
    attribute(&jobs, &run, Some(&simulated))
}

#[test]
fn a_stall_of_the_timer_core_over_an_optional_deadline_holds_the_job_on_another_core() {
    // A late wake-up of core 0's dispatcher due at the optional deadline, 300 us long: the
    // wind-up could not start before 8.3 ms, 300 us > 100 us of slack.
    let late = Stall {
        seen: Seen::Dispatcher,
        ..stall(0, 8 * MS, 300_000)
    };
    let (counts, causes) = imprecise(late, Some(0));
    assert_eq!((counts.host, counts.schedule), (1, 0));
    assert_eq!(causes[0].stall, Some(late));
    // Not under a runtime without a timer core: core 1 itself lost nothing.
    let (counts, _) = imprecise(late, None);
    assert_eq!((counts.host, counts.schedule), (0, 1));
    // A stall over the instant that ends 50 us after it leaves the job 50 us of slack.
    let short = stall(0, 7_900_000, 150_000);
    assert_eq!(imprecise(short, Some(0)).0.schedule, 1);
    // A stall that begins after the instant: the timer may have been handled before it.
    let after = stall(0, 8_010_000, 2 * MS);
    assert_eq!(imprecise(after, Some(0)).0.schedule, 1);
}

#[test]
fn a_job_late_by_less_than_the_host_took_from_its_own_segments_is_the_hosts() {
    // c#0 alone on core 0, its deadline at 10 ms, done at 10.1 ms: its segment [8, 10.1) ms
    // lost 150 us (off its CPU, its dispatcher asleep), the usual share being none.
    let jobs = vec![job(0, 0, (0, 10 * MS), 10_100_000)];
    let measured = trace(vec![segment(0, 0, 0, 8 * MS, 10_100_000)]);
    let taken = |lost_us: u64| SegmentRecord {
        cpu: 0,
        task: 0,
        job: 0,
        start: 8 * MS,
        end: 10_100_000,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_micros(2_100 - lost_us),
            work: Duration::from_micros(2_100 - lost_us),
            dispatching: Duration::ZERO,
        }),
    };
    // Other segments of the run lose nothing, so the usual share is none.
    let usual = |k: u64| SegmentRecord {
        job: 100 + k,
        start: 0,
        end: MS,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_millis(1),
            work: Duration::from_millis(1),
            dispatching: Duration::ZERO,
        }),
        ..taken(0)
    };
    // The simulation completes it at `planned` ms: 100 us of slack at 9.9 ms, more than the 40
    // us of the segment's loss surely before the deadline (150 less the allowance, less the
    // 100 us after it): only the loss up to its completion tells.
    let cause = |lost_us, planned| {
        let simulated = trace(vec![TraceEvent::Completion {
            task: 0,
            job: 0,
            at: at(planned),
        }]);
        let segments = [taken(lost_us), usual(0), usual(1), usual(2)];
        let run = RunView {
            measured: &measured,
            stalls: &[],
            cores: &[0, 1],
            worker_segments: &segments,
            timer_core: None,
            end: 30 * MS,
        };
        attribute(&jobs, &run, Some(&simulated)).1[0].cause
    };
    // 150 us lost less the 10 us allowance: 140 us, at least the 100 us it was late and more
    // than its 100 us of slack: the host's.
    assert_eq!(cause(150, 9_900_000), Cause::Host);
    // 105 us lost, 95 us beyond the allowance: less than it was late, the schedule's.
    assert_eq!(cause(105, 9_900_000), Cause::Schedule);
    // 140 us taken but 300 us of slack: the host alone would not have made it miss, the
    // schedule's own delay was needed too.
    assert_eq!(cause(150, 9_700_000), Cause::Schedule);
}
