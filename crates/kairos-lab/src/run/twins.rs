//! A real run's misses weighed against its twins: the simulation of the same run, which gives
//! each job's slack, and, when that leaves a miss with the schedule while the host recorded
//! stalls, the pair of `kairos_rt::attribution`'s third case: the same simulation charging
//! every cost at its largest, without and with those stalls as outages of their cores
//! (docs/run.md, "The stalled twin").

use crate::compare::{simulate_same, RealRun};
use crate::{Failure, Notify};
use kairos_model::{Overheads, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::attribution::{Cause, Stalled, Twin};
use kairos_rt::measure::RunResult;
use kairos_rt::stalls::{Seen, Stall};
use kairos_sim::outages::{Outage, Outages};
use kairos_sim::ExecutionTimeModel;
use kairos_trace::Trace;

/// Simulates the run again charging every cost at its largest, with the outages given.
pub type Fixed<'a> = Box<dyn FnMut(Outages) -> Result<Trace, Failure> + 'a>;

/// A real run's twins.
pub struct Twins<'a> {
    /// The simulation of the same run.
    pub plain: Trace,
    /// The profile it charged, cut at the quantile the analysis charges, if one.
    pub charged: Option<&'a Overheads>,
    /// The calm and the stalled twin's simulation; `None` where the third case does not apply.
    pub fixed: Option<Fixed<'a>>,
    /// Whether the plain twin drew nothing (every cost fixed already): it is the calm twin.
    pub plain_is_calm: bool,
}

/// The stalls of a run that took their core from its job, as outages of their cores: those a
/// core's watcher saw, which take the core's job with them, and a worker's late start, which
/// does not (the worker held nothing yet). A late wake-up of a dispatcher is left out:
/// it counts the dispatcher's wait for the scheduler's lock too, held by another core, while
/// its own core ran its job. The dispatcher numbers a stall's core as the policy does, and so
/// as its simulation does; kernel dispatch numbers them by CPU, and has no stalled twin. The
/// dispatcher's timer core holds the policy's timers while it is out, as on real cores.
pub fn outages_of(stalls: &[Stall]) -> Outages {
    let of = |seen: Seen| {
        (stalls.iter().filter(move |s| s.seen == seen)).map(|s| Outage {
            core: s.core,
            from: s.start,
            to: s.end(),
        })
    };
    Outages::taking_and_not(of(Seen::Watcher), of(Seen::Worker))
        .with_timer_core(kairos_rt::dispatcher::TIMER_CORE)
}

/// Attributes `result`'s misses against `twins`: the calm and the stalled twin are simulated
/// only when the run recorded a stall that took a core and some miss is left with the
/// schedule with both its slacks (the third case weighs no other); when they cannot be, the
/// misses stay as the first two cases weighed them, with a note. Gives back the plain twin.
pub fn weigh(result: &mut RunResult, twins: Twins) -> Trace {
    let twin = |trace| match twins.charged {
        Some(overheads) => Twin::charging(trace, overheads),
        None => Twin::new(trace),
    };
    result.attribute_misses(Some(twin(&twins.plain)));
    let open = (result.miss_causes.iter()).any(|m| m.cause == Cause::Schedule && m.slack.is_some());
    let outages = outages_of(&result.stall_intervals);
    let Some(mut fixed) = twins.fixed.filter(|_| open && !outages.is_empty()) else {
        return twins.plain;
    };
    let calm = match twins.plain_is_calm {
        true => None,
        false => Some(fixed(Outages::default())),
    };
    match (calm.transpose(), fixed(outages)) {
        (Ok(calm), Ok(stalled)) => {
            let calm = calm.as_ref().unwrap_or(&twins.plain);
            let pair = Stalled {
                calm,
                stalled: &stalled,
            };
            result.attribute_misses(Some(twin(&twins.plain).with_stalled(pair)));
        }
        (Err(f), _) | (_, Err(f)) => result.notes.push(format!(
            "the stalled twin could not be simulated ({}): the misses are weighed without it",
            f.message
        )),
    }
    twins.plain
}

/// The twins of a run of periodic `workload` under `policy`: the simulation of the same run
/// charging `charged.0` (the twin told the profile the analysis charges, `charged.1`, if one),
/// with the run's draws, now, its notices told; and, under the dispatcher (`stalled`), the
/// calm and stalled twins when asked, quietly.
pub fn periodic_twins<'a>(
    workload: &Workload,
    (kind, priorities): (PolicyKind, PriorityOrder),
    (result, stalled): (&RunResult, bool),
    (overheads, charged): (Overheads, Option<&'a Overheads>),
    draws: (ExecutionTimeModel, u64),
    notify: Notify,
) -> Result<Twins<'a>, Failure> {
    let ran = RealRun::of(result);
    let plain = simulate_same(
        workload,
        kind,
        priorities,
        ran.clone(),
        overheads,
        draws,
        notify,
    )?;
    let (largest, workload) = (overheads.fixed_at_largest(), workload.clone());
    let plain_is_calm = largest == overheads;
    let fixed = move |outages| {
        let ran = RealRun {
            outages,
            ..ran.clone()
        };
        let quiet = &mut |_: &str| {};
        simulate_same(&workload, kind, priorities, ran, largest, draws, quiet)
    };
    Ok(Twins {
        plain,
        charged,
        fixed: stalled.then(|| Box::new(fixed) as Fixed<'a>),
        plain_is_calm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{check_source, Duration, Format, Instant};
    use kairos_rt::attribution::Cause;
    use kairos_rt::measure::{JobRecord, SegmentRecord, ThreadLog};
    use kairos_rt::stalls::{CoreLost, LostTime, Seen};

    const MS: u64 = 1_000_000;

    /// Global fixed priorities on two cores: `y` (first) on core 0, `t` (last) on core 1 at
    /// 0 (the policy's placement); `x` (second) comes at 5 ms. Without a stall `y` is done at 4 ms, `x` takes core 0
    /// and `t` completes at 9 ms, 2 ms before its 11 ms deadline.
    const SET: &str = r#"
cores = 2
[[tasks]]
name = "y"
wcet = "4ms"
period = "20ms"
priority = 1
[[tasks]]
name = "x"
wcet = "3ms"
period = "20ms"
offset = "5ms"
priority = 2
[[tasks]]
name = "t"
wcet = "9ms"
period = "20ms"
deadline = "11ms"
priority = 3
"#;

    fn job(task: usize, (release, deadline): (u64, u64), completion: u64, cpu: usize) -> JobRecord {
        JobRecord {
            task,
            job: 0,
            release: release * MS,
            deadline: deadline * MS,
            requested: None,
            start: Some(release * MS),
            completion: Some(completion * MS),
            discarded: None,
            cpu: Some(cpu),
            release_core: None,
        }
    }

    fn segment(cpu: usize, task: usize, (start, end): (u64, u64)) -> SegmentRecord {
        SegmentRecord {
            cpu,
            task,
            job: 0,
            start: start * MS,
            end: end * MS,
            worker_time: None,
        }
    }

    /// The run as it went with `stalls`: core 0 held [1, 5) ms kept `y` there until 8 ms,
    /// so `x` preempted `t` on core 1 for [5, 8) ms and `t`, which never ran on core 0,
    /// completed at 12 ms, 1 ms late.
    fn run(stalls: Vec<Stall>) -> RunResult {
        let log = ThreadLog {
            jobs: vec![
                job(0, (0, 20), 8, 0),
                job(1, (5, 25), 8, 1),
                job(2, (0, 11), 12, 1),
            ],
            segments: vec![
                segment(0, 0, (0, 8)),
                segment(1, 2, (0, 5)),
                segment(1, 1, (5, 8)),
                segment(1, 2, (8, 12)),
            ],
            ..ThreadLog::default()
        };
        let lost = |core| CoreLost {
            core,
            cpu: core,
            watched: true,
            ..CoreLost::default()
        };
        super::super::fixture::built(
            ("gfp", &["y", "x", "t"]),
            vec![0, 1],
            20 * MS,
            log,
            LostTime {
                cores: vec![lost(0), lost(1)],
                stalls,
            },
        )
    }

    fn held_core_0() -> Stall {
        Stall {
            core: 0,
            start: Instant::from_nanos(MS),
            length: Duration::from_millis(4),
            held: Duration::from_millis(4),
            seen: Seen::Watcher,
        }
    }

    fn twins<'a>(result: &RunResult, quiet: Notify<'a>) -> Twins<'a> {
        let workload = check_source(SET, Format::Toml).workload.expect("valid");
        let policy = (PolicyKind::GlobalFp, PriorityOrder::Explicit);
        let draws = (ExecutionTimeModel::Wcet, 0);
        periodic_twins(
            &workload,
            policy,
            (result, true),
            (Overheads::default(), None),
            draws,
            quiet,
        )
        .expect("the twin simulates")
    }

    #[test]
    fn a_stall_of_another_core_that_the_stalled_twin_replays_is_the_hosts() {
        let mut result = run(vec![held_core_0()]);
        let mut quiet = |_: &str| {};
        let twins = twins(&result, &mut quiet);
        // The stall is on a core `t` never ran on, and both cores had 22 - 9 ms of room in
        // its window: the first two cases leave its miss with the schedule.
        result.attribute_misses(Some(Twin::new(&twins.plain)));
        let m = result.misses_by_cause;
        assert_eq!((m.host, m.schedule, m.by_stalled_twin), (0, 1, None));
        weigh(&mut result, twins);
        let m = result.misses_by_cause;
        assert_eq!((m.host, m.schedule, m.by_stalled_twin), (1, 0, Some(1)));
        let t = &result.miss_causes[0];
        assert_eq!((t.task, t.cause), (2, Cause::Host));
        // The simulator, told core 0 is out [1, 5) ms, does what the run did: `t` at 12 ms.
        assert_eq!(t.stalled_twin, Some(Some(Instant::from_nanos(12 * MS))));
        assert_eq!(t.stall, Some(held_core_0()));
        assert_eq!(t.own_slack, Some(Duration::from_millis(2)));
        assert!(crate::run::lost_time(&result).contains(
            "  stalled twin: 1 of these misses happen in the simulation with the run's \
             stalls that took a core as 1 outage(s), not without them: host\n"
        ));
    }

    #[test]
    fn without_a_stall_no_stalled_twin_is_simulated() {
        let mut result = run(Vec::new());
        let mut quiet = |_: &str| {};
        let twins = Twins {
            fixed: Some(Box::new(|_| panic!("no stall: nothing to replay"))),
            ..twins(&result, &mut quiet)
        };
        weigh(&mut result, twins);
        let m = result.misses_by_cause;
        assert_eq!((m.host, m.schedule, m.by_stalled_twin), (0, 1, None));
    }

    #[test]
    fn a_stalled_twin_that_cannot_be_simulated_leaves_the_first_cases_verdict_and_a_note() {
        let mut result = run(vec![held_core_0()]);
        let mut quiet = |_: &str| {};
        let twins = Twins {
            fixed: Some(Box::new(|_| Err(Failure::environment("out of memory")))),
            ..twins(&result, &mut quiet)
        };
        weigh(&mut result, twins);
        let m = result.misses_by_cause;
        assert_eq!((m.host, m.schedule, m.by_stalled_twin), (0, 1, None));
        let note = "the stalled twin could not be simulated (out of memory)";
        assert!(
            result.notes.iter().any(|n| n.starts_with(note)),
            "{:?}",
            result.notes
        );
    }

    #[test]
    fn only_the_stalls_that_took_a_core_from_its_job_are_replayed() {
        let late_wake = Stall {
            seen: Seen::Dispatcher,
            ..held_core_0()
        };
        let late_start = Stall {
            core: 1,
            seen: Seen::Worker,
            ..held_core_0()
        };
        assert_eq!(outages_of(&[late_wake, late_start, held_core_0()]).len(), 2);
        // A late wake-up counts the dispatcher's wait for the lock, while its core ran on.
        let mut result = run(vec![late_wake]);
        let mut quiet = |_: &str| {};
        let twins = Twins {
            fixed: Some(Box::new(|_| panic!("a late wake-up is no outage"))),
            ..twins(&result, &mut quiet)
        };
        weigh(&mut result, twins);
        assert_eq!(result.misses_by_cause.by_stalled_twin, None);
    }
}
