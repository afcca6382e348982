//! The work ahead of a job on its core, under a partitioned policy's static order: counted
//! only when the order puts it ahead, never before the job's window.

use super::*;
use kairos_model::{Format, Workload};
use kairos_policy::{CoreOrder, PriorityOrder};

/// Rate monotonic over `a` (2 ms) and `b` (10 ms): `a` above `b`.
fn rate_monotonic() -> CoreOrder {
    let text = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"2ms\"\n\
                [[tasks]]\nname = \"b\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n";
    let checked = kairos_model::load::check_source(text, Format::Toml);
    let workload: Workload = checked.workload.expect("a workload");
    CoreOrder::Ranks(PriorityOrder::RateMonotonic.ranks(&workload))
}

/// A segment of `task`'s job 0 on core 0 whose worker lost `lost_us` off its CPU.
fn worked(task: usize, (start, end): (u64, u64), lost_us: u64, optional: bool) -> SegmentRecord {
    let kept = Duration::from_nanos(end - start - lost_us * 1000);
    SegmentRecord {
        cpu: 0,
        task,
        job: 0,
        start,
        end,
        worker_time: Some(WorkerTime {
            on_cpu: kept,
            work: kept,
            dispatching: Duration::ZERO,
            optional,
        }),
    }
}

/// Three segments elsewhere that lose nothing keep the run's usual share at none.
fn usual() -> [SegmentRecord; 3] {
    [100, 101, 102].map(|job| SegmentRecord {
        cpu: 1,
        job,
        ..worked(5, (0, MS), 0, false)
    })
}

/// The cause of `b#0`'s miss: due at `deadline`, done at `done`, completed at `planned` in the
/// simulation of the run; `parts` every job's worker segments on core 0 (each its trace
/// segment too; `a#0`, due at 20 ms, completed at the end of its last), `od` `b`'s optional
/// deadline.
fn cause_of_b(
    order: Option<&CoreOrder>,
    times: (u64, u64, u64),
    parts: &[SegmentRecord],
    od: Option<Duration>,
) -> MissCause {
    cause_of_b_beside(order, times, parts, od, &[])
}

/// [`cause_of_b`] with the jobs `more` in the run too.
fn cause_of_b_beside(
    order: Option<&CoreOrder>,
    (deadline, done, planned): (u64, u64, u64),
    parts: &[SegmentRecord],
    od: Option<Duration>,
    more: &[JobRecord],
) -> MissCause {
    let a_done = (parts.iter())
        .filter(|p| (p.task, p.job) == (0, 0))
        .map(|p| p.end)
        .max();
    let mut jobs = vec![
        JobRecord {
            cpu: Some(0),
            ..job(0, 0, (0, 20 * MS), a_done.expect("a#0 ran"))
        },
        JobRecord {
            cpu: Some(0),
            ..job(1, 0, (0, deadline), done)
        },
    ];
    jobs.extend_from_slice(more);
    cause_in(&jobs, parts, &[], (order, od), planned)
}

/// The cause of the one missed job of `jobs`, each of whose worker segments `parts` on core 0
/// is its trace segment too, with `stalls`; under `order`, `b` with the optional deadline
/// `od`; the simulation completes `b#0` at `planned`.
fn cause_in(
    jobs: &[JobRecord],
    parts: &[SegmentRecord],
    stalls: &[Stall],
    (order, od): (Option<&CoreOrder>, Option<Duration>),
    planned: u64,
) -> MissCause {
    cause_with(jobs, parts, stalls, (order, [None, od]), planned)
}

/// [`cause_in`] with the optional deadlines of both tasks, `ods`.
fn cause_with(
    jobs: &[JobRecord],
    parts: &[SegmentRecord],
    stalls: &[Stall],
    (order, ods): (Option<&CoreOrder>, [Option<Duration>; 2]),
    planned: u64,
) -> MissCause {
    let measured = Trace {
        optional_deadlines: ods.to_vec(),
        ..trace(
            parts
                .iter()
                .map(|p| segment(0, p.task, p.job, p.start, p.end))
                .collect(),
        )
    };
    let worker: Vec<SegmentRecord> = parts.iter().cloned().chain(usual()).collect();
    let run = RunView {
        worker_segments: &worker,
        core_order: order,
        ..two_cores(&measured, stalls)
    };
    let simulated = trace(vec![TraceEvent::Completion {
        task: 1,
        job: 0,
        at: at(planned),
    }]);
    let (_, causes) = attribute(jobs, &run, Some(Twin::new(&simulated)));
    assert_eq!(causes.len(), 1, "{causes:?}");
    causes[0]
}

#[test]
fn a_job_held_behind_slowed_work_ahead_of_it_on_its_core_is_the_hosts() {
    // a#0 runs [0, 6) ms but does 3 ms of work: its worker lost 3 ms off its CPU. b#0, due at
    // 6.5 ms, runs [6, 7) ms and losing nothing itself is 0.5 ms late; the simulation
    // completes it at 6.4 ms, 100 us of slack. Its backlog, [0, 6.5) ms, holds only b's 1 ms
    // due by then: 5.5 ms of room, more than a's 2.99 ms of slowing (less the 10 us
    // allowance), so the backlog's case leaves it to the schedule.
    let parts = [
        worked(0, (0, 6 * MS), 3_000, false),
        worked(1, (6 * MS, 7 * MS), 0, false),
    ];
    let times = (6_500_000, 7 * MS, 6_400_000);
    let order = rate_monotonic();
    let fp = cause_of_b(Some(&order), times, &parts, None);
    // Under rate monotonic a is ahead of b: 2.99 ms taken, at least the 0.5 ms b was late.
    assert_eq!(fp.cause, Cause::Host);
    assert_eq!(fp.evidence, Duration::from_micros(2_990));
    assert_eq!(fp.stall, None);
    // With 3 ms of slack in the simulation, more than the 2.99 ms taken: slowing, which may be
    // the run's own cost, must outlast the slack too (stalls need not), so the schedule's.
    let roomy = (6_500_000, 7 * MS, 3_500_000);
    assert_eq!(
        cause_of_b(Some(&order), roomy, &parts, None).cause,
        Cause::Schedule
    );
    // Under EDF a (due at 20 ms) is behind b: running it was an inversion, the schedule's.
    assert_eq!(
        cause_of_b(Some(&CoreOrder::Deadline), times, &parts, None).cause,
        Cause::Schedule
    );
    // A run without a core order (a global policy): not weighed so.
    assert_eq!(cause_of_b(None, times, &parts, None).cause, Cause::Schedule);
}

#[test]
fn not_when_a_job_ahead_waited_behind_it() {
    // The first test's run, and a#1, released at 1 ms, ahead of b by rate monotonic, ran [7.2,
    // 7.5) ms, after b: without a's loss it could have run before b and held it instead.
    let a1 = |release, parts: &[SegmentRecord]| {
        let more = [JobRecord {
            cpu: Some(0),
            ..job(0, 1, (release, 21 * MS), 7_500_000)
        }];
        let order = rate_monotonic();
        let times = (6_500_000, 7 * MS, 6_400_000);
        cause_of_b_beside(Some(&order), times, parts, None, &more)
    };
    let parts = [
        worked(0, (0, 6 * MS), 3_000, false),
        worked(1, (6 * MS, 7 * MS), 0, false),
        SegmentRecord {
            job: 1,
            ..worked(0, (7_200_000, 7_500_000), 0, false)
        },
    ];
    assert_eq!(a1(MS, &parts).cause, Cause::Schedule);
    // Released at 7.2 ms, after b completed, it waited behind nothing of b's: the host's.
    assert_eq!(a1(7_200_000, &parts).cause, Cause::Host);
}

#[test]
fn an_imprecise_job_is_weighed_from_its_optional_deadline_and_only_if_it_had_reached_it() {
    let order = rate_monotonic();
    let od = Some(Duration::from_millis(4));
    // b#0: mandatory [0, 0.5) ms, optional [0.5, 1) ms, wind-up [5, 5.2) ms past its 5 ms
    // deadline, 200 us late; 100 us of slack in the simulation. a#0 lost 1 ms in [1, 3) ms,
    // before b's optional deadline, and nothing in [4, 5) ms.
    let before = [
        worked(1, (0, 500_000), 0, false),
        worked(1, (500_000, MS), 0, true),
        worked(0, (MS, 3 * MS), 1_000, false),
        worked(0, (4 * MS, 5 * MS), 0, false),
        worked(1, (5 * MS, 5_200_000), 0, false),
    ];
    let times = (5 * MS, 5_200_000, 4_900_000);
    // From its optional deadline on, only its wind-up was real-time work: a's loss before it
    // held nothing up.
    assert_eq!(
        cause_of_b(Some(&order), times, &before, od).cause,
        Cause::Schedule
    );
    // The same loss in a's segment after the optional deadline held the wind-up up.
    let after = [
        worked(1, (0, 500_000), 0, false),
        worked(1, (500_000, MS), 0, true),
        worked(0, (MS, 3 * MS), 0, false),
        worked(0, (4 * MS, 5 * MS), 600, false),
        worked(1, (5 * MS, 5_200_000), 0, false),
    ];
    assert_eq!(
        cause_of_b(Some(&order), times, &after, od).cause,
        Cause::Host
    );
    // b's mandatory part ran [3.5, 4.3) ms, past its optional deadline, so it had not reached
    // its optional part: with less work ahead it would have waited for the deadline's timer
    // before its wind-up; not weighed so, whatever a lost from its release on.
    let late_mandatory = [
        worked(0, (0, 3_500_000), 1_000, false),
        worked(1, (3_500_000, 4_300_000), 0, false),
        worked(1, (4_300_000, 5_200_000), 0, false),
    ];
    assert_eq!(
        cause_of_b(Some(&order), times, &late_mandatory, od).cause,
        Cause::Schedule
    );
    // Without an optional deadline the same run is weighed from b's release: the host's.
    assert_eq!(
        cause_of_b(Some(&order), times, &late_mandatory, None).cause,
        Cause::Host
    );
}

#[test]
fn work_ahead_already_running_at_the_release_counts_from_then_on() {
    // Rate monotonic, core 0: a#0 (ahead, due at 20 ms) runs [0, 4) ms, held by four stalls of
    // 400 us at 0.5, 1.5, 2.5 and 3.2 ms; b#0, released at 1 ms and due at 5 ms, runs [4, 5.5)
    // ms, 500 us late, and the simulation completes it at 4.5 ms: 500 us of slack, which no
    // stall alone outlasts. a's segment began before b's release; from then on it lost 1.2 ms
    // (the first stall is before it): at least the lateness, the host's. b's backlog, [0, 5) ms, has 3.5 ms of room (only b is due in it), more than its
    // 1.6 ms of stalls, so without this way the miss stays the schedule's.
    let jobs = [
        JobRecord {
            cpu: Some(0),
            ..job(0, 0, (0, 20 * MS), 4 * MS)
        },
        JobRecord {
            cpu: Some(0),
            ..job(1, 0, (MS, 5 * MS), 5_500_000)
        },
    ];
    let parts = [
        worked(0, (0, 4 * MS), 0, false),
        worked(1, (4 * MS, 5_500_000), 0, false),
    ];
    let stalls = [500_000, 1_500_000, 2_500_000, 3_200_000].map(|s| stall(0, s, 400_000));
    let order = rate_monotonic();
    let cause = |order| cause_in(&jobs, &parts, &stalls, (order, None), 4_500_000);
    let ahead = cause(Some(&order));
    assert_eq!(ahead.cause, Cause::Host);
    assert_eq!(ahead.evidence, Duration::from_micros(1_200));
    assert_eq!(ahead.stall, Some(stall(0, 1_500_000, 400_000)));
    assert_eq!(cause(None).cause, Cause::Schedule);
    // Completed at 3.5 ms in the simulation, 1.5 ms of slack, more than the stalls took: they
    // reach the lateness all the same, and the rest of b's delay fit in its slack.
    let roomy = cause_in(&jobs, &parts, &stalls, (Some(&order), None), 3_500_000);
    assert_eq!(roomy.cause, Cause::Host);
}

#[test]
fn a_stall_of_its_idle_core_after_its_optional_deadline_held_the_work_ahead_and_its_wind_up() {
    // Rate monotonic, core 0. b#0 (due at 10 ms, optional deadline at 4 ms) ran its mandatory
    // part [0, 0.5) ms and its optional part [0.5, 1) ms, then waited; a stall [3.5, 6.5) ms of
    // its idle core covered its optional deadline and a#0's release at 4.5 ms; a#0's mandatory
    // part ran [6.5, 8.5) ms, b's wind-up [8.5, 10.4) ms, 400 us late. The simulation
    // completes b at 6 ms: 4 ms of slack, more than the 3 ms stall, and b's backlog [0, 10) ms
    // has 7.6 ms of room. a#0, its optional deadline at `a_od` after its release, ran its
    // optional part [10.4, 10.9) ms. From b's optional deadline to its completion the core ran
    // no real-time part in [4, 6.5) ms, all stalled: 2.5 ms, at least the lateness.
    let order = rate_monotonic();
    let cause = |a_od: u64| {
        // a#0's wind-up, 100 us, at its optional deadline or after b's completion.
        let a_windup = (4_500_000 + a_od * MS).max(10_900_000);
        let jobs = [
            JobRecord {
                cpu: Some(0),
                ..job(0, 0, (4_500_000, 24_500_000), a_windup + 100_000)
            },
            JobRecord {
                cpu: Some(0),
                ..job(1, 0, (0, 10 * MS), 10_400_000)
            },
        ];
        let parts = [
            worked(1, (0, 500_000), 0, false),
            worked(1, (500_000, MS), 0, true),
            worked(0, (6_500_000, 8_500_000), 0, false),
            worked(1, (8_500_000, 10_400_000), 0, false),
            worked(0, (10_400_000, 10_900_000), 0, true),
            worked(0, (a_windup, a_windup + 100_000), 0, false),
        ];
        let ods = [
            Some(Duration::from_millis(a_od)),
            Some(Duration::from_millis(4)),
        ];
        let stalls = [stall(0, 3_500_000, 3 * MS)];
        cause_with(&jobs, &parts, &stalls, (Some(&order), ods), 6 * MS)
    };
    // a#0's optional deadline at 12.5 ms: at b's completion it had begun its optional part and
    // waited for the instant, with no real-time work, so it did not wait behind b. The
    // host's, the stall named.
    let held = cause(8);
    assert_eq!(held.cause, Cause::Host);
    assert_eq!(held.evidence, Duration::from_micros(3_000));
    assert_eq!(held.stall, Some(stall(0, 3_500_000, 3 * MS)));
    // Its optional deadline at 9.5 ms: from then its wind-up waited behind b's (it ran [10.9,
    // 11) ms), and could have run first without the stall: not weighed so, the schedule's.
    assert_eq!(cause(5).cause, Cause::Schedule);
}
