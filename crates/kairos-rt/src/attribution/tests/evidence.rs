//! The host's evidence besides the stalls of a job's own cores: the timer core over an
//! optional deadline, and what the host took from a job's own segments against its lateness.

use super::*;

/// `b#0` on core 1, with an optional deadline at 8 ms: its mandatory part runs [0, 0.2) ms
/// and its optional part [0.2, 1) ms, its wind-up [8.3, 10.2) ms, past its 10 ms deadline;
/// the simulation of the run completes it at 9.9 ms, 100 us of slack. Its worker lost nothing.
fn imprecise(core0_stall: Stall, timer_core: Option<usize>) -> (MissesByCause, Vec<MissCause>) {
    imprecise_beside(core0_stall, timer_core, &[])
}

/// [`imprecise`] with `others`, segments of other jobs, in the run's worker segments too.
fn imprecise_beside(
    core0_stall: Stall,
    timer_core: Option<usize>,
    others: &[SegmentRecord],
) -> (MissesByCause, Vec<MissCause>) {
    let part = |span, optional| worked(1, (1, 0), span, optional);
    let mut parts = vec![
        part((0, 200_000), false),
        part((200_000, MS), true),
        part((8_300_000, 10_200_000), false),
    ];
    parts.extend_from_slice(others);
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
        worker_segments: &parts,
        timer_core,
        ..two_cores(&measured, &stalls)
    };
    let simulated = trace(vec![TraceEvent::Completion {
        task: 1,
        job: 0,
        at: at(9_900_000),
    }]);
    attribute(&jobs, &run, Some(Twin::new(&simulated)))
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
    // A stall over the instant until 9.9 ms, the wind-up begun by another pass at 8.3 ms on
    // core 1, where nothing else ran: held 300 us, the stall's.
    let longer = stall(0, 7_900_000, 2 * MS);
    let (counts, causes) = imprecise(longer, Some(0));
    assert_eq!((counts.host, counts.schedule), (1, 0));
    assert_eq!(causes[0].stall, Some(longer));
    // The same with another job on core 1 from 8.1 to 8.3 ms: the wind-up may have waited
    // behind it, so the stall explains nothing. Another job on core 0 changes nothing.
    let other = |cpu, (start, end)| SegmentRecord {
        cpu,
        task: 0,
        job: 7,
        start,
        end,
        worker_time: None,
    };
    let beside = [other(1, (8_100_000, 8_300_000))];
    assert_eq!(imprecise_beside(longer, Some(0), &beside).0.schedule, 1);
    let elsewhere = [other(0, (8_100_000, 8_300_000))];
    assert_eq!(imprecise_beside(longer, Some(0), &elsewhere).0.host, 1);
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
            optional: false,
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
            optional: false,
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
            worker_segments: &segments,
            ..two_cores(&measured, &[])
        };
        attribute(&jobs, &run, Some(Twin::new(&simulated))).1[0].cause
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

#[test]
fn a_late_start_counts_with_the_loss_inside_the_segment_it_held() {
    // c#0 alone on core 0, due at 10 ms, done at 10.1 ms, its segment [8, 10.1) ms losing
    // 105 us off its CPU (95 us beyond the allowance, less than its 100 us of lateness);
    // the simulation completes it at 9.9 ms, 100 us of slack.
    let jobs = vec![job(0, 0, (0, 10 * MS), 10_100_000)];
    let measured = trace(vec![segment(0, 0, 0, 8 * MS, 10_100_000)]);
    let worked = |job, (start, end): (u64, u64), lost_us: u64| SegmentRecord {
        cpu: 0,
        task: 0,
        job,
        start,
        end,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_nanos(end - start - lost_us * 1000),
            work: Duration::from_nanos(end - start - lost_us * 1000),
            dispatching: Duration::ZERO,
            optional: false,
        }),
    };
    // Three other jobs that lose nothing keep the run's usual share at none.
    let segments = [
        worked(0, (8 * MS, 10_100_000), 105),
        worked(100, (0, MS), 0),
        worked(101, (0, MS), 0),
        worked(102, (0, MS), 0),
    ];
    let simulated = trace(vec![TraceEvent::Completion {
        task: 0,
        job: 0,
        at: at(9_900_000),
    }]);
    let cause = |late_start: Stall| {
        let stalls = [late_start];
        let run = RunView {
            worker_segments: &segments,
            ..two_cores(&measured, &stalls)
        };
        attribute(&jobs, &run, Some(Twin::new(&simulated))).1[0]
    };
    let worker = |start, length| Stall {
        seen: Seen::Worker,
        ..stall(0, start, length)
    };
    // Its worker began 60 us late, the hole ending at its first instruction: 60 + 95 us taken,
    // at least its lateness and more than its slack, though neither alone is: the host's.
    assert_eq!(cause(worker(7_940_000, 60_000)).cause, Cause::Host);
    // The same hole ending 100 us before the segment held some other start: the schedule's.
    assert_eq!(cause(worker(7_840_000, 60_000)).cause, Cause::Schedule);
    // A late start long enough alone, inside the job's window: the host's by the first case.
    let long = worker(7_850_000, 150_000);
    assert_eq!(cause(long).stall, Some(long));
}
