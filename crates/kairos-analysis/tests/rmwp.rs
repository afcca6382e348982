//! Semi-fixed-priority scheduling checked from three sides: the RMWP analyses against the
//! simulator (no accepted set misses a wind-up deadline), G-RMWP against G-RM when imprecise
//! tasks have nothing optional (the paper's upward compatibility), and the simulator's G-RMWP and
//! P-RMWP against a tick-by-tick twin written from the paper's semantics alone.

#[path = "rmwp/sets.rs"]
mod sets;
#[path = "rmwp/twin.rs"]
mod twin;

use kairos_analysis::partition::Heuristic;
use kairos_analysis::rmwp::plan::{plan, Placement};
use kairos_analysis::{registry, tasks_of};
use kairos_model::{Duration, Instant, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, Metrics, SimConfig};
use kairos_trace::{Trace, TraceEvent};
use sets::{horizon, random_set, workload, Imp, Rng};
use std::collections::BTreeMap;

fn run(w: &Workload, kind: PolicyKind, end: u64, trace: bool) -> (Metrics, Option<Trace>) {
    let config = SimConfig {
        duration: Duration::from_nanos(end),
        record_trace: trace,
        ..SimConfig::default()
    };
    let mut policy = kind.build(PriorityOrder::RateMonotonic);
    let outcome = simulate(w, policy.as_mut(), &config).expect("the simulation runs");
    (outcome.metrics, outcome.trace)
}

/// How many sets an analysis accepted, how many of those gave some optional deadlines, and how
/// many it refused for a given optional deadline later than its bound.
struct Accepted {
    sets: usize,
    with_given: usize,
    refused_unsafe: usize,
}

impl Accepted {
    /// The check was not vacuous: enough accepted sets, some with given optional deadlines.
    fn assert_enough(&self, what: &str) {
        assert!(
            self.sets >= 200,
            "only {} accepted sets ({what})",
            self.sets
        );
        let given = self.with_given;
        assert!(
            given >= 20,
            "only {given} accepted sets give an OD ({what})"
        );
        let refused = self.refused_unsafe;
        assert!(
            refused >= 20,
            "only {refused} sets refused for an OD ({what})"
        );
    }
}

/// Every set the analysis of `placement` accepts on `cores` cores runs under `kind` with no
/// deadline miss: synchronous and with random offsets, optional parts at full length and at
/// zero. A third of the sets give some tasks an optional deadline (any the model allows, so
/// some are later than the analysis's bound): the plan keeps it, and an accepted set runs
/// with it.
fn accepted_sets_meet_deadlines(
    seed: u64,
    cores: usize,
    placement: Placement,
    kind: PolicyKind,
) -> Accepted {
    let mut rng = Rng::new(seed);
    let mut accepted = Accepted {
        sets: 0,
        with_given: 0,
        refused_unsafe: 0,
    };
    for _ in 0..400 {
        let mut tasks = random_set(&mut rng, 2 + 2 * cores as u64);
        if rng.next(3) == 0 {
            for x in tasks.iter_mut() {
                let latest = x.t - x.w;
                x.od = (rng.next(2) == 0).then(|| rng.next(latest + 1));
            }
        }
        for variant in 0..4 {
            for x in tasks.iter_mut() {
                x.offset = if variant % 2 == 1 { rng.next(x.t) } else { 0 };
                if variant >= 2 {
                    x.o = 0;
                }
            }
            let Ok(planned) = plan(&workload(&tasks, cores), placement) else {
                continue;
            };
            for (x, t) in tasks.iter().zip(&planned.workload.tasks) {
                let kept = t.imprecise.and_then(|p| p.optional_deadline);
                if let Some(od) = x.od {
                    assert_eq!(kept, Some(Duration::from_nanos(od)), "{tasks:?}");
                }
            }
            let unsafe_ods = &planned.verdict.unsafe_optional_deadlines;
            accepted.refused_unsafe += usize::from(!unsafe_ods.is_empty());
            if !planned.verdict.schedulable {
                continue;
            }
            accepted.sets += 1;
            accepted.with_given += usize::from(tasks.iter().any(|x| x.od.is_some()));
            let (metrics, _) = run(&planned.workload, kind, horizon(&tasks), false);
            assert_eq!(
                metrics.deadline_misses, 0,
                "{kind:?} missed a deadline on an accepted set: {tasks:?}, optional deadlines {:?}",
                planned.verdict.optional_deadlines
            );
        }
    }
    accepted
}

#[test]
fn uniprocessor_rmwp_accepted_sets_never_miss() {
    accepted_sets_meet_deadlines(11, 1, Placement::Global, PolicyKind::GlobalRmwp)
        .assert_enough("one core");
}

#[test]
fn g_rmwp_accepted_sets_never_miss() {
    accepted_sets_meet_deadlines(12, 2, Placement::Global, PolicyKind::GlobalRmwp)
        .assert_enough("G-RMWP");
}

#[test]
fn p_rmwp_accepted_sets_never_miss() {
    for (seed, h) in [(13, Heuristic::CyclicNextFit), (14, Heuristic::FirstFit)] {
        let placement = Placement::Partitioned(h);
        accepted_sets_meet_deadlines(seed, 2, placement, PolicyKind::PartitionedRmwp)
            .assert_enough(&format!("{h:?}"));
    }
}

/// The plan keeps a file's optional deadline, safe or not, and tells when it is not (b's safe
/// bound is 9 - 2 = 7: its wind-up alone and one job of a).
#[test]
fn a_plan_keeps_a_given_optional_deadline_and_says_when_it_is_unsafe() {
    let imp = |m, w, t, od| Imp {
        m,
        o: 5,
        w,
        t,
        offset: 0,
        od,
        core: None,
    };
    let a = Imp {
        o: 0,
        ..imp(1, 0, 4, None)
    };
    for (od, safe) in [
        (Some(8), false),
        (Some(7), true),
        (Some(6), true),
        (None, true),
    ] {
        let planned = plan(&workload(&[a, imp(1, 1, 9, od)], 1), Placement::Global).unwrap();
        let kept = planned.workload.tasks[1]
            .imprecise
            .unwrap()
            .optional_deadline;
        assert_eq!(kept, Some(Duration::from_nanos(od.unwrap_or(7))));
        assert_eq!(planned.verdict.schedulable, safe, "OD {od:?}");
        let told = planned.notices.iter().any(|n| {
            n.contains("task `t1`: optional_deadline 8ns is later than its safe bound 7ns")
        });
        assert_eq!(told, !safe, "{:?}", planned.notices);
    }
}

/// A P-RMWP plan keeps a task the file binds on its core and places the others around it (by
/// cyclic next fit: t0 on core 0, t1 beside the bound t2 on core 1, 0.5 + 0.4 with responses 5
/// and 9 of 10, where unbound t2 would have gone to core 0); a bound task its core cannot take
/// is named with that core.
#[test]
fn a_p_rmwp_plan_places_the_others_around_a_bound_task() {
    let imp = |m, w, core| Imp {
        m,
        o: 3,
        w,
        t: 10,
        offset: 0,
        od: None,
        core,
    };
    let placement = Placement::Partitioned(Heuristic::CyclicNextFit);
    let cores = |tasks: &[Imp]| {
        let planned = plan(&workload(tasks, 2), placement).expect("a partition");
        (planned.workload.tasks.iter())
            .map(|t| t.core.map(|c| c.0))
            .collect::<Vec<_>>()
    };
    let free = [imp(3, 2, None), imp(3, 2, None), imp(2, 2, None)];
    assert_eq!(cores(&free), [Some(0), Some(1), Some(0)]);
    let bound = [imp(3, 2, None), imp(3, 2, None), imp(2, 2, Some(1))];
    assert_eq!(cores(&bound), [Some(0), Some(1), Some(1)]);
    let crowded = [imp(3, 2, Some(0)), imp(4, 2, Some(0)), imp(1, 1, None)];
    let refused = plan(&workload(&crowded, 2), placement)
        .err()
        .unwrap_or_default();
    assert!(
        refused.contains("t1 is bound to core 0, which does not admit it"),
        "{refused}"
    );
}

/// Where and when a job ran: (core, start, end).
type Piece = (usize, Instant, Instant);

/// Each job's execution as (core, start, end), adjacent pieces on one core joined: G-RMWP
/// splits a segment where a part ends, G-RM has no parts.
fn executions(trace: &Trace) -> BTreeMap<(usize, u64), Vec<Piece>> {
    let mut jobs: BTreeMap<(usize, u64), Vec<Piece>> = BTreeMap::new();
    for event in &trace.events {
        if let TraceEvent::Segment {
            core,
            task,
            job,
            start,
            end,
        } = *event
        {
            let pieces = jobs.entry((task, job)).or_default();
            match pieces.iter_mut().find(|p| p.0 == core && p.2 == start) {
                Some(p) => p.2 = end,
                None => pieces.push((core, start, end)),
            }
        }
    }
    for pieces in jobs.values_mut() {
        pieces.sort_by_key(|p| p.1);
    }
    jobs
}

#[test]
fn with_nothing_optional_g_rmwp_is_g_rm_job_by_job() {
    let mut rng = Rng::new(21);
    let mut differing_parts = 0;
    for _ in 0..300 {
        let mut tasks = random_set(&mut rng, 6);
        for x in tasks.iter_mut() {
            (x.o, x.od, x.offset) = (0, Some(0), rng.next(x.t));
        }
        let cores = 1 + rng.next(3) as usize;
        let w = workload(&tasks, cores);
        let end = horizon(&tasks);
        let (rmwp, rmwp_trace) = run(&w, PolicyKind::GlobalRmwp, end, true);
        let (rm, rm_trace) = run(&w, PolicyKind::GlobalRm, end, true);
        let (a, b) = (
            executions(&rmwp_trace.unwrap()),
            executions(&rm_trace.unwrap()),
        );
        assert_eq!(a, b, "G-RMWP and G-RM differ on {tasks:?}, {cores} cores");
        assert_eq!(rmwp.deadline_misses, rm.deadline_misses);
        assert_eq!(rmwp.jobs_completed, rm.jobs_completed);
        differing_parts += usize::from(rmwp.preemptions != rm.preemptions);
    }
    // Part ends are not preemptions: the two count the same.
    assert_eq!(differing_parts, 0);
}

/// Jobs aborted at their deadline leave the policy's queues through the contract's removal
/// callback: overloaded sets run to the end under `--abort-on-miss`, never placing a gone job.
#[test]
fn aborted_jobs_leave_the_rmwp_queues() {
    let mut rng = Rng::new(51);
    // A set that overloads one core: `b` is aborted while its wind-up waits in the queue.
    let imp = |m, o, w, t, od| Imp {
        m,
        o,
        w,
        t,
        offset: 0,
        od: Some(od),
        core: None,
    };
    let mut cases = vec![vec![imp(2, 1, 1, 4, 2), imp(3, 1, 2, 8, 4)]];
    for _ in 0..100 {
        let mut tasks = random_set(&mut rng, 6);
        for x in tasks.iter_mut() {
            (x.m, x.w, x.od) = (x.t / 2 + 1, x.t - x.t / 2 - 1, Some(x.t / 2));
        }
        cases.push(tasks);
    }
    let mut aborted = 0;
    for tasks in &cases {
        for (kind, cores) in [
            (PolicyKind::GlobalRmwp, 1),
            (PolicyKind::GlobalRmwp, 2),
            (PolicyKind::PartitionedRmwp, 1),
        ] {
            let config = SimConfig {
                duration: Duration::from_nanos(horizon(tasks)),
                abort_on_miss: true,
                ..SimConfig::default()
            };
            let mut policy = kind.build(PriorityOrder::RateMonotonic);
            let outcome = simulate(&workload(tasks, cores), policy.as_mut(), &config)
                .unwrap_or_else(|e| panic!("{kind:?} on {tasks:?}: {e}"));
            aborted += outcome.metrics.jobs_aborted;
        }
    }
    assert!(aborted > 100, "only {aborted} aborted jobs");
}

/// Random explicit optional deadlines (anything that leaves the wind-up room) and cores, so the
/// twin is compared on sets the analysis would reject as well.
fn twin_case(rng: &mut Rng, cores: usize) -> Vec<Imp> {
    let mut tasks = random_set(rng, 5);
    for x in tasks.iter_mut() {
        x.od = Some(rng.next(x.t - x.w + 1));
        x.offset = rng.next(3) * rng.next(x.t);
        x.core = Some(rng.next(cores as u64) as usize);
    }
    tasks
}

#[test]
fn the_engine_matches_a_tick_by_tick_twin() {
    let mut rng = Rng::new(31);
    let mut cut_or_skipped = 0;
    for case in 0..600 {
        let cores = 1 + case % 2;
        let tasks = twin_case(&mut rng, cores);
        let global = case % 3 != 0;
        let kind = if global {
            PolicyKind::GlobalRmwp
        } else {
            PolicyKind::PartitionedRmwp
        };
        let w = workload(&tasks, cores);
        let end = horizon(&tasks);
        let (metrics, _) = run(&w, kind, end, false);
        let od: Vec<u64> = tasks.iter().map(|x| x.od.unwrap()).collect();
        let mapping: Vec<usize> = tasks.iter().map(|x| x.core.unwrap()).collect();
        let twin = twin::run(&tasks, &od, cores, (!global).then_some(&mapping[..]), end);
        for (i, (t, f)) in metrics.tasks.iter().zip(&twin).enumerate() {
            let o = t.optional.expect("imprecise tasks have optional figures");
            let engine = twin::Figures {
                completed: t.jobs_completed,
                misses: t.deadline_misses,
                optional_executed: o.optional_executed_ns,
                optional_completed: o.optional_completed,
                optional_cut: o.optional_cut,
                optional_skipped: o.optional_skipped,
            };
            assert_eq!(
                &engine, f,
                "task {i} of {tasks:?} on {cores} cores, {kind:?}"
            );
            cut_or_skipped += o.optional_cut + o.optional_skipped;
        }
    }
    assert!(
        cut_or_skipped > 100,
        "cuts and skips were rare: {cut_or_skipped}"
    );
}

#[test]
fn rmwp_analyses_accept_every_set_rate_monotonic_analysis_accepts() {
    let mut rng = Rng::new(41);
    let (mut both, mut rm_only) = (0, 0);
    for _ in 0..2000 {
        let tasks = random_set(&mut rng, 6);
        let cores = 1 + rng.next(3) as usize;
        let analysed = tasks_of(&workload(&tasks, cores));
        let pairs: &[(&str, &str)] = match cores {
            1 => &[("uni-fp-rta", "rmwp")],
            _ => &[("gfp-bc", "g-rmwp")],
        };
        for (rm, rmwp) in pairs {
            let run = |name: &str| registry::find(name).unwrap().run(&analysed, cores);
            let (rm, rmwp) = (run(rm), run(rmwp));
            if rm.schedulable {
                assert!(rmwp.schedulable, "{tasks:?} on {cores}");
                both += 1;
            }
            rm_only += usize::from(rmwp.schedulable && !rm.schedulable);
            let od = rmwp.optional_deadlines.expect("optional deadlines");
            for (x, od) in tasks.iter().zip(od.iter().map(|d| d.as_nanos())) {
                assert!(od + x.w <= x.t || od == 0, "{od} leaves no room for {x:?}");
            }
        }
    }
    assert!(both > 500, "{both} accepted sets");
    assert_eq!(rm_only, 0, "RMWP accepted sets that RM rejects");
}
