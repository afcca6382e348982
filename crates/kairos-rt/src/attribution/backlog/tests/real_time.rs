//! The backlog rule on imprecise jobs and slowed cores: only real-time work is a backlog or a
//! demand, and what a slowed core took counts with the stalls.

use super::*;
use crate::measure::{SegmentRecord, WorkerTime};

#[test]
fn an_optional_part_is_no_backlog() {
    // Two cores: a pending over [0, 10) with real-time work only in [0, 2) and [7, 10) (its
    // optional part between), b over [1, 12), c over [3, 9): two pending in [1, 2) and
    // [3, 10), not in [2, 3).
    let pending = |release, until, optional| Pending {
        release,
        deadline: until,
        until,
        executed: Duration::ZERO,
        optional,
    };
    let jobs = vec![
        pending(0, 10, Some((2, 7))),
        pending(1, 12, None),
        pending(3, 9, None),
    ];
    let mut group = Group {
        cores: vec![0, 1],
        jobs,
        saturated: Vec::new(),
    };
    assert_eq!(saturated(&group), vec![(1, 2), (3, 10)]);
    // Counted as backlog, the optional part joins them.
    group.jobs[0].optional = None;
    assert_eq!(saturated(&group), vec![(1, 10)]);
}

#[test]
fn an_imprecise_job_waits_without_real_time_work_from_its_mandatory_part_to_its_instant() {
    let ran = |runs: &[(u64, u64)]| -> Vec<Segment> {
        runs.iter().map(|&(s, e)| (0, ms(s), ms(e))).collect()
    };
    let at = 7 * MS;
    // Mandatory part [0, 2) ms, optional deadline at 7 ms.
    assert_eq!(optional_wait(at, &ran(&[(0, 2)])), Some((2 * MS, at)));
    // Preempted and resumed before the instant: from its last end.
    assert_eq!(
        optional_wait(at, &ran(&[(0, 1), (3, 5)])),
        Some((5 * MS, at))
    );
    // Running at the instant, or not begun by it: real-time work pending throughout.
    assert_eq!(optional_wait(at, &ran(&[(0, 2), (6, 8)])), None);
    assert_eq!(optional_wait(at, &ran(&[(8, 9)])), None);
}

#[test]
fn what_a_slowed_core_took_is_no_demand() {
    // a#0 ran [0, 8) ms doing 4 ms of work, its core slowed; b#0 ran [8, 11) ms, both due at
    // 10 ms on core 0. Two more jobs that lose nothing keep the run's usual share at none.
    let jobs = [job(0, 0, 0, &[(0, 8)]), job(1, 0, 0, &[(8, 11)])];
    let (records, measured) = run_of(&jobs);
    let segments = crate::attribution::per_job::segments_of(&measured);
    let worked = |task, job, (start, end): (u64, u64), work| SegmentRecord {
        cpu: 0,
        task,
        job,
        start: start * MS,
        end: end * MS,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_millis(end - start),
            work: Duration::from_millis(work),
            dispatching: Duration::ZERO,
            optional: false,
        }),
    };
    let worker_segments = [
        worked(0, 0, (0, 8), 4),
        worked(1, 0, (8, 11), 3),
        worked(5, 0, (20, 21), 1),
        worked(5, 1, (30, 31), 1),
    ];
    let slowed = crate::attribution::slowed::slowed_by_job(&worker_segments);
    let index = StallIndex::new(&[]);
    let b = &records[1];
    // a#0 lost 4 ms less the segment's 10 us allowance: its demand is 4.01 ms, b#0's 3 ms,
    // 2.99 ms of 10 ms to spare.
    let backlogs = Backlogs::new(&records, (&segments, &slowed, &[]), &index, (&[0], 60 * MS));
    assert_eq!(
        backlogs.of(b).demand_slack,
        Some(Duration::from_nanos(2_990_000))
    );
    // Counted as demand, the slowed time made it an overload.
    let counted = Backlogs::new(
        &records,
        (&segments, &HashMap::new(), &[]),
        &index,
        (&[0], 60 * MS),
    );
    assert_eq!(counted.of(b).demand_slack, None);
}

#[test]
fn a_backlog_behind_a_slowed_core_is_the_hosts() {
    // The first job of `caught_up` runs [0, 14) ms whole, 9 ms of work in it: its core ran at
    // 9/14 of its speed, 5 ms taken. The jobs after it catch up as behind a stall.
    let mut jobs = caught_up();
    jobs[0].runs = vec![(0, 14)];
    let (records, measured) = run_of(&jobs);
    let worker = |j: &Job, work: u64| {
        let (start, end) = (j.runs[0].0 * MS, j.runs[0].1 * MS);
        SegmentRecord {
            cpu: 0,
            task: j.task,
            job: j.job,
            start,
            end,
            worker_time: Some(WorkerTime {
                on_cpu: Duration::from_nanos(end - start),
                work: Duration::from_millis(work),
                dispatching: Duration::ZERO,
                optional: false,
            }),
        }
    };
    let counted: Vec<SegmentRecord> = (jobs.iter()).map(|j| worker(j, 9)).collect();
    let run = |worker_segments: &[SegmentRecord], stalls: &[Stall]| {
        let view = RunView {
            measured: &measured,
            stalls,
            cores: &[0],
            worker_segments,
            timer_core: None,
            core_order: None,
            end: 60 * MS,
        };
        attribute(&records, &view, None)
    };
    // The usual share is none (four of five lost nothing); the first lost 5 ms less the 10 us
    // allowance, 4.99 ms, at least its 4 ms of lateness. Job k of the others: its backlog from
    // 0 has k + 0.99 ms of demand slack (the first job's demand is 14 ms less the 4.99 ms
    // taken), and the 4.99 ms taken there is more: all four the host's.
    let (counts, causes) = run(&counted, &[]);
    assert_eq!((counts.host, counts.schedule), (4, 0));
    assert!(causes.iter().all(|c| c.stall.is_none()));
    assert_eq!(causes[3].slack, Some(Duration::from_nanos(3_990_000)));
    // A 20 us stall at 33 ms besides: the slowing was the larger part, so no stall is named.
    let short = Stall {
        length: Duration::from_micros(20),
        ..stall(0, 33, 0)
    };
    let (counts, causes) = run(&counted, &[short]);
    assert_eq!((counts.host, counts.schedule), (4, 0));
    assert_eq!(causes[3].stall, None);
    // Without the workers' clocks nothing says the core was slowed: the schedule's (the
    // first job's own 14 ms of execution overloads its window).
    let (counts, _) = run(&[], &[]);
    assert_eq!((counts.host, counts.schedule), (0, 4));
}
