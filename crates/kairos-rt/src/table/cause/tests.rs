use super::*;
use crate::dispatcher::ModeChangeRecord;
use crate::measure::WorkerTime;
use crate::stalls::{Seen, Stall};
use kairos_model::{Dag, Interval, LevelTable, McSystem, McTask, TableSet};

const MS: u64 = 1_000_000;

/// One DAG of period 4 ms on one core: `a` (1 ms, 2 ms at HI) in `[0, 2 ms)` at LO (a guarded
/// table: 1 ms of room) and `[0, 3 ms)` at HI.
fn plan() -> TablePlan {
    let system = McSystem {
        name: None,
        cores: 1,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g".into(),
            period: Duration::from_nanos(4 * MS),
            deadline: Duration::from_nanos(4 * MS),
            tasks: vec![McTask {
                name: "a".into(),
                wcet: vec![Duration::from_nanos(MS), Duration::from_nanos(2 * MS)],
            }],
            edges: Vec::new(),
        }],
    };
    let interval = |end| Interval {
        task: "g/a".into(),
        job: 0,
        core: 0,
        start: 0,
        end,
    };
    let tables = TableSet {
        unit: "ns".into(),
        hyperperiod: 4 * MS,
        cores: 1,
        levels: vec!["LO".into(), "HI".into()],
        policy: None,
        tables: vec![
            LevelTable {
                level: "LO".into(),
                intervals: vec![interval(2 * MS)],
            },
            LevelTable {
                level: "HI".into(),
                intervals: vec![interval(3 * MS)],
            },
        ],
    };
    TablePlan::new(&system, &tables).expect("a plan")
}

/// Job `number` of `a` over `[from, to)` us with its worker's `(on_cpu, work)` in us.
fn ran(number: u64, (from, to): (u64, u64), (on_cpu, work): (u64, u64)) -> SegmentRecord {
    SegmentRecord {
        cpu: 0,
        task: 0,
        job: number,
        start: from * 1000,
        end: to * 1000,
        worker_time: Some(WorkerTime {
            on_cpu: Duration::from_micros(on_cpu),
            work: Duration::from_micros(work),
            // Off its CPU only while the dispatcher ran: nothing taken there.
            dispatching: Duration::from_micros((to - from).saturating_sub(on_cpu)),
            optional: false,
        }),
    }
}

fn stall(start_us: u64, length_us: u64) -> Stall {
    Stall {
        core: 0,
        start: Instant::from_nanos(start_us * 1000),
        length: Duration::from_micros(length_us),
        held: Duration::ZERO,
        seen: Seen::Watcher,
    }
}

/// The cause of a raise at 2 ms by `a`'s job `number` (in its hyper-period), asked for 1 ms,
/// given the run's `stalls` and `segments`; the other segments of the run lose 1 %.
fn cause(number: u64, stalls: &[Stall], segments: &[SegmentRecord]) -> RaiseCause {
    let plan = plan();
    let usual = (0..5).map(|k| ran(100 + k, (0, 1000), (1000, 990)));
    let segments: Vec<SegmentRecord> = segments.iter().copied().chain(usual).collect();
    let evidence = Evidence::of(&plan, stalls, &segments);
    let at = number * 4 * MS + 2 * MS;
    let job = JobId { task: 0, number };
    evidence
        .raise(0, (job, 0, at), Duration::from_nanos(MS))
        .cause
}

fn change(nominal: u64, from: usize, to: usize) -> ModeChangeRecord {
    ModeChangeRecord {
        nominal,
        from,
        to,
        triggers: Vec::new(),
        detected_at: nominal,
        decided_at: nominal,
        epoch: 0,
    }
}

#[test]
fn a_raise_is_the_hosts_when_the_host_took_the_work_its_job_lacked() {
    // 900 us done, 100 lacking; off the CPU half its interval while its dispatcher ran
    // (the run's own), 100 us slowed, 70.8 beyond the usual share (1 % of its wall time, taken
    // of the 1900 us it kept: 19.2 us) and the segment's allowance (10 us): less than lacked,
    // the schedule's.
    let off_cpu = ran(0, (0, 2000), (1000, 900));
    assert_eq!(cause(0, &[], &[off_cpu]), RaiseCause::Schedule);
    // Off the CPU with its dispatcher asleep: another thread or the hypervisor took the core,
    // 1081 us beyond the usual share and the allowance: the host's.
    let mut taken = off_cpu;
    (taken.worker_time.as_mut().unwrap()).dispatching = Duration::ZERO;
    assert_eq!(cause(0, &[], &[taken]), RaiseCause::Host);
    // The same with a 100 us stall inside its interval: the host's.
    assert_eq!(cause(0, &[stall(500, 100)], &[off_cpu]), RaiseCause::Host);
    // A stall after its interval, or the same stall for the next hyper-period's job, is not.
    assert_eq!(
        cause(0, &[stall(2100, 500)], &[off_cpu]),
        RaiseCause::Schedule
    );
    let next = ran(1, (4000, 6000), (1000, 900));
    assert_eq!(cause(1, &[stall(500, 100)], &[next]), RaiseCause::Schedule);
    assert_eq!(cause(1, &[stall(4500, 100)], &[next]), RaiseCause::Host);
    // On the CPU 1900 us for 900 us of work: the core ran slow under it, the host's.
    let slowed = ran(0, (0, 2000), (1900, 900));
    assert_eq!(cause(0, &[], &[slowed]), RaiseCause::Host);
}

#[test]
fn work_past_the_stop_counts_only_what_surely_came_before_and_more_than_the_wcet_is_asked() {
    // A segment of 4 ms, 2000 us on the CPU for 1900 us of work, 2 ms of it after the stop:
    // no work surely done before it, 1 ms lacking, none surely slowed: the schedule's.
    let long = ran(0, (0, 4000), (2000, 1900));
    assert_eq!(cause(0, &[], &[long]), RaiseCause::Schedule);
    // With 900 us of work, over a watcher's stall [1.5, 3.95) ms: no thread of the run ran in
    // the 1.95 ms of it after the stop, so at most 50 us of work came after it: 850 us surely
    // before, 150 us lacking, which the 500 us of the stall inside its interval outlast: the
    // host's. Without the stall none of it is surely before the stop: the schedule's.
    let held = ran(0, (0, 4000), (2000, 900));
    assert_eq!(cause(0, &[stall(1500, 2450)], &[held]), RaiseCause::Host);
    assert_eq!(cause(0, &[], &[held]), RaiseCause::Schedule);
    let table = plan();
    let evidence = Evidence::of(&table, &[stall(1500, 2450)], &[held]);
    let raise = evidence.raise(
        0,
        (JobId { task: 0, number: 0 }, 0, 2 * MS),
        Duration::from_nanos(MS),
    );
    assert_eq!(raise.lacked, Duration::from_micros(150));
    // Its work done by the stop but seen after it: nothing lacked, whatever the host did.
    let done = ran(0, (0, 2000), (1000, 1000));
    assert_eq!(cause(0, &[stall(100, 1500)], &[done]), RaiseCause::Schedule);
    // Asked for more than its 1 ms WCET at LO: the overrun was asked, whatever the host did.
    let plan = plan();
    let evidence = Evidence::of(&plan, &[stall(0, 2000)], &[]);
    let job = JobId { task: 0, number: 0 };
    let raise = evidence.raise(0, (job, 0, 2 * MS), Duration::from_nanos(MS + 1));
    assert_eq!(raise.cause, RaiseCause::Asked);
    assert_eq!(raise.stalled, Duration::from_nanos(2 * MS));
    assert_eq!(raise.stall, Some(stall(0, 2000)));
}

#[test]
fn a_raise_of_several_jobs_is_the_hosts_only_if_each_overrun_is() {
    let raise = |cause| Raise {
        nominal: 2 * MS,
        job: JobId { task: 0, number: 0 },
        cause,
        lacked: Duration::from_micros(100),
        stalled: Duration::ZERO,
        stall: None,
        slowed: Duration::ZERO,
    };
    let of = |causes: &[RaiseCause]| combined(causes.iter().map(|&c| raise(c)).collect());
    use RaiseCause::*;
    assert_eq!(of(&[Host, Host]).map(|r| r.cause), Some(Host));
    assert_eq!(of(&[Host, Schedule]).map(|r| r.cause), Some(Schedule));
    assert_eq!(of(&[Schedule, Asked, Host]).map(|r| r.cause), Some(Asked));
    assert_eq!(of(&[]), None);
}

#[test]
fn a_miss_is_weighed_in_the_mode_in_force_before_its_deadline_and_since_it_began() {
    let plan = plan();
    // Job 0 of `a` did 700 us of its 1 ms by 2 ms, then nothing; stalls at 0.5 and 2.5 ms.
    let segments = [ran(0, (0, 2000), (700, 700))];
    let evidence = Evidence::of(&plan, &[stall(500, 300), stall(2500, 600)], &segments);
    let job = JobId { task: 0, number: 0 };
    let work = Duration::from_nanos(MS);
    // At LO its last interval ends at 2 ms: 300 us lacking, the 300 us stall inside: the host's.
    let at_lo = evidence
        .miss(&[], (job, 4 * MS), work)
        .expect("an interval at LO");
    assert_eq!((at_lo.nominal, at_lo.cause), (2 * MS, RaiseCause::Host));
    assert_eq!(at_lo.lacked, Duration::from_micros(300));
    // A change at the deadline itself is not in force before it.
    let at_due = [change(4 * MS, 0, 1)];
    assert_eq!(evidence.miss(&at_due, (job, 4 * MS), work), Some(at_lo));
    // In HI from 1 ms its last interval ends at 3 ms: the stall at 0.5 ms came before HI was
    // in force and does not count, the one at 2.5 ms (500 us of it inside) does: the host's.
    let raised = [change(MS, 0, 1)];
    let at_hi = evidence
        .miss(&raised, (job, 4 * MS), work)
        .expect("an interval at HI");
    assert_eq!((at_hi.nominal, at_hi.cause), (3 * MS, RaiseCause::Host));
    assert_eq!(at_hi.stalled, Duration::from_micros(500));
    // Raised at 2.6 ms: only 400 us of the HI interval and 400 us of the stall are left, the
    // job stopped at 3 ms. Raised at 3.5 ms, past its last HI interval: stopped at once, no
    // stall in force: the schedule's.
    let late = [change(2_600_000, 0, 1)];
    let at_late = evidence
        .miss(&late, (job, 4 * MS), work)
        .expect("an interval at HI");
    assert_eq!(at_late.stalled, Duration::from_micros(400));
    let after = [change(3_500_000, 0, 1)];
    let past = evidence
        .miss(&after, (job, 4 * MS), work)
        .expect("an interval at HI");
    assert_eq!(
        (past.nominal, past.cause),
        (3_500_000, RaiseCause::Schedule)
    );
    // Back at LO before its deadline: LO's intervals again, since the return.
    let back = [change(MS, 0, 1), change(3_500_000, 1, 0)];
    let at_back = evidence
        .miss(&back, (job, 4 * MS), work)
        .expect("an interval at LO");
    assert_eq!(
        (at_back.nominal, at_back.stalled),
        (3_500_000, Duration::ZERO)
    );
}
