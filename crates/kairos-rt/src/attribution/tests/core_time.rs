//! The host's time on a partitioned job's core while it waited: the slowed work ahead of it.

use super::*;

/// On core 0, `a#0` (due at 20 ms) runs [0, 6) ms with 6 ms less `lost_us` of work, then
/// `b#0` (due at 10 ms) [6, 10.5) ms losing nothing, 0.5 ms late; the simulation of the run
/// completes `b#0` at 9 ms, 1 ms of slack. With `elsewhere`, `a#1` runs [0, 1) ms on core 1:
/// task `a` ran on both cores, so `b#0`'s group is the platform.
fn b_behind_a(lost_us: u64, elsewhere: bool) -> MissCause {
    let on_cpu = |cpu, (task, job), (start, end): (u64, u64), lost_us: u64| SegmentRecord {
        cpu,
        task,
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
    let placed = |task, job, (release, deadline), done| JobRecord {
        cpu: Some(0),
        ..super::job(task, job, (release, deadline), done)
    };
    let mut jobs = vec![
        placed(0, 0, (0, 20 * MS), 6 * MS),
        placed(1, 0, (0, 10 * MS), 10_500_000),
    ];
    let mut events = vec![
        segment(0, 0, 0, 0, 6 * MS),
        segment(0, 1, 0, 6 * MS, 10_500_000),
    ];
    // Three other segments that lose nothing keep the run's usual share at none.
    let mut segments = vec![
        on_cpu(0, (0, 0), (0, 6 * MS), lost_us),
        on_cpu(0, (1, 0), (6 * MS, 10_500_000), 0),
        on_cpu(0, (0, 100), (20 * MS, 21 * MS), 0),
        on_cpu(0, (0, 101), (21 * MS, 22 * MS), 0),
        on_cpu(0, (0, 102), (22 * MS, 23 * MS), 0),
    ];
    if elsewhere {
        jobs.push(JobRecord {
            cpu: Some(1),
            ..placed(0, 1, (0, 20 * MS), MS)
        });
        events.push(segment(1, 0, 1, 0, MS));
        segments.push(on_cpu(1, (0, 1), (0, MS), 0));
    }
    let measured = trace(events);
    let run = RunView {
        measured: &measured,
        stalls: &[],
        cores: &[0, 1],
        worker_segments: &segments,
        timer_core: None,
        end: 30 * MS,
    };
    let simulated = trace(vec![TraceEvent::Completion {
        task: 1,
        job: 0,
        at: at(9 * MS),
    }]);
    let (_, causes) = attribute(&jobs, &run, Some(Twin::new(&simulated)));
    assert_eq!(causes.len(), 1, "only b#0 misses");
    causes[0]
}

#[test]
fn a_job_behind_slowed_work_on_its_own_core_is_the_hosts_when_that_took_its_lateness() {
    // a#0 lost 2 ms: 1.99 ms beyond the 10 us allowance, taken from core 0 while b#0 waited.
    // That is at least b#0's 0.5 ms of lateness and more than its 1 ms of slack. b#0's own
    // segment lost nothing, and its backlog [0, 10) ms had 10 - 4.5 = 5.5 ms of room, more
    // than the 1.99 ms: only this way finds it.
    let miss = b_behind_a(2_000, false);
    assert_eq!(miss.cause, Cause::Host);
    assert_eq!(miss.stall, None, "a slowed core, no stall");
    assert_eq!(miss.slack, Some(Duration::from_millis(1)));
    assert_eq!(miss.evidence, Duration::from_micros(1_990));
    // 0.9 ms lost, 0.89 ms beyond the allowance: more than its lateness, not more than its
    // slack; the schedule's own delay was needed too.
    let miss = b_behind_a(900, false);
    assert_eq!(miss.cause, Cause::Schedule);
    assert_eq!(miss.evidence, Duration::from_micros(890));
}

#[test]
fn on_a_group_of_several_cores_the_work_ahead_is_the_backlogs_to_weigh() {
    // Task a ran on both cores, so another core could have taken b#0's work: the 1.99 ms
    // count only against the backlog's room (2 cores over [0, 10) ms less 5.5 ms of work).
    let miss = b_behind_a(2_000, true);
    assert_eq!(miss.cause, Cause::Schedule);
}
