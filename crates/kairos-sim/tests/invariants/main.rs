//! Schedule invariants that must hold for every workload, policy and configuration, checked on
//! the recorded trace of random small task sets (1-6 tasks, 1-4 cores, random offsets,
//! constrained deadlines, periodic and sporadic arrivals, WCET and uniform execution times,
//! with and without overheads and `abort_on_miss`), under all five policies.

mod cases;
#[path = "../common/mod.rs"]
mod common;
mod jobs;
mod metrics;
mod sweep;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::*;
use jobs::{check_cores, check_jobs};
use kairos_model::{Arrival, CoreId, Duration, Instant, Overheads, Priority, Task, Workload};
use kairos_policy::policies::partition::assign_cores;
use kairos_policy::PolicyKind;
use kairos_sim::{ExecutionTimeModel, SimConfig, SimOutcome};
use kairos_trace::{Trace, TraceEvent};
use metrics::check_metrics;
use proptest::prelude::*;
use sweep::{check_partitioned, check_releases, check_sweep};

/// Periods (in units) whose lcm is at most 120, so `max_offset + 2H` stays at most 250 units.
const PERIODS: [u64; 12] = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 60];

type Key = (u64, u64, u64, u64);

#[derive(Clone, Debug)]
struct Scenario {
    workload: Workload,
    config: SimConfig,
}

/// A task with D <= T, 1 <= bcet <= wcet <= D (whole units), offset 0..=10 units, and one time in
/// four a sporadic arrival with max inter-arrival T..=T+10 units.
fn arb_task() -> impl Strategy<Value = Task> {
    (
        prop::sample::select(PERIODS.to_vec()),
        0u64..=10,
        prop::option::weighted(0.25, 0u64..=10),
    )
        .prop_flat_map(|(period, offset, sporadic_extra)| {
            (1..=period).prop_flat_map(move |deadline| {
                (1..=deadline).prop_flat_map(move |wcet| {
                    (1..=wcet).prop_map(move |bcet| {
                        let mut t = task("t", wcet, period, deadline, offset);
                        t.bcet = units(bcet);
                        if let Some(extra) = sporadic_extra {
                            t.arrival = Arrival::Sporadic {
                                max_interarrival: units(period + extra),
                            };
                        }
                        t
                    })
                })
            })
        })
}

fn arb_scenario() -> impl Strategy<Value = Scenario> {
    (
        1usize..=4,
        prop::collection::vec(arb_task(), 1..=6),
        any::<bool>(),
        any::<u64>(),
        // Overheads in nanoseconds (a unit is 1000 ns): scheduling, context switch, migration.
        prop::option::of((0u64..=50, 0u64..=200, 0u64..=300)),
        any::<bool>(),
        // Some tasks bound to a core in the file (taken modulo the core count).
        prop::collection::vec(prop::option::weighted(0.2, 0usize..4), 6),
        // Sometimes explicit priority levels for every task (ties allowed), used by Auto.
        prop::option::weighted(0.3, prop::collection::vec(1u32..=4, 6)),
    )
        .prop_map(
            |(cores, mut tasks, uniform, seed, overheads, abort_on_miss, bindings, levels)| {
                for (i, t) in tasks.iter_mut().enumerate() {
                    t.name = format!("t{i}");
                    t.core = bindings[i].map(|c| CoreId(c % cores));
                    t.priority = levels.as_ref().map(|l| Priority::from_level(l[i]));
                }
                let workload = workload(cores, tasks);
                let config = SimConfig {
                    duration: two_hyperperiods_after_offsets(&workload),
                    execution_times: if uniform {
                        ExecutionTimeModel::Uniform
                    } else {
                        ExecutionTimeModel::Wcet
                    },
                    seed,
                    abort_on_miss,
                    record_trace: true,
                    trace_bounds: Default::default(),
                    overheads: overheads.map_or(Overheads::default(), |(s, c, m)| {
                        let ns = Duration::from_nanos;
                        Overheads::fixed(ns(s), ns(c), ns(m))
                    }),
                    // A core's outage stretches a segment beyond its execution
                    // (`tests/outages.rs` checks outages against their brute-force twin).
                    outages: Default::default(),
                };
                Scenario { workload, config }
            },
        )
}

/// Fixed-priority rank of each task under `PriorityOrder::Auto`, computed independently of the
/// engine: explicit levels (1 first) when every task has one, else rate-monotonic (shorter period
/// first); ties by lower task index.
fn fp_ranks(workload: &Workload) -> Vec<u64> {
    let tasks = &workload.tasks;
    let explicit = tasks.iter().all(|t| t.priority.is_some());
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    if explicit {
        order.sort_by_key(|&i| (u64::from(tasks[i].priority.unwrap().level()), i));
    } else {
        order.sort_by_key(|&i| (tasks[i].period.as_nanos(), i));
    }
    let mut ranks = vec![0; order.len()];
    for (rank, &i) in order.iter().enumerate() {
        ranks[i] = rank as u64;
    }
    ranks
}

/// The static job order of a policy (smaller runs first), or `None` for EDZL whose order depends
/// on laxity (checked against the reference simulator in `reference.rs` instead).
/// A job's key, computed from its trace record.
type KeyFn = Box<dyn Fn(JobId, &JobRecord) -> Key>;

fn static_key(kind: PolicyKind, workload: &Workload) -> Option<KeyFn> {
    match kind {
        PolicyKind::GlobalEdf | PolicyKind::PartitionedEdf => {
            Some(Box::new(|(task, job), r: &JobRecord| {
                (
                    r.deadline.unwrap().as_nanos(),
                    r.release.unwrap().as_nanos(),
                    task as u64,
                    job,
                )
            }))
        }
        PolicyKind::GlobalFp | PolicyKind::PartitionedFp => {
            let ranks = fp_ranks(workload);
            Some(Box::new(move |(task, job), _: &JobRecord| {
                (ranks[task], job, 0, 0)
            }))
        }
        // EDZL's order depends on laxity; the semi-fixed-priority family is checked against
        // its own twin (crates/kairos-analysis/tests/rmwp.rs).
        PolicyKind::GlobalEdzl
        | PolicyKind::GlobalRmwp
        | PolicyKind::PartitionedRmwp
        | PolicyKind::GlobalRm
        | PolicyKind::PartitionedRm => None,
    }
}

fn check_everything(s: &Scenario, kind: PolicyKind) {
    let (outcome, trace) = run_traced(&s.workload, kind, &s.config);
    let end = Instant::ZERO + s.config.duration;
    assert_eq!(trace.end, end);
    let jobs = jobs_of(&trace);
    check_jobs(s, &jobs, end);
    check_cores(s.workload.cores, is_global(kind), &jobs);
    check_releases(s, &jobs, end);
    check_sweep(s, kind, &jobs, end);
    if !is_global(kind) {
        check_partitioned(s, &outcome, &jobs);
    }
    let ext_config = SimConfig {
        duration: s.config.duration + Duration::from_nanos(1),
        ..s.config.clone()
    };
    let (_, ext) = run_traced(&s.workload, kind, &ext_config);
    check_metrics(s, kind, &outcome, &trace, &ext);

    // (h) Determinism: the same seed gives the identical trace and metrics.
    let (again, again_trace) = run_traced(&s.workload, kind, &s.config);
    assert_eq!(
        again_trace.events, trace.events,
        "same seed, different trace"
    );
    assert_eq!(
        again.metrics, outcome.metrics,
        "same seed, different metrics"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn schedules_satisfy_every_invariant(s in arb_scenario()) {
        for kind in PolicyKind::ALL {
            check_everything(&s, kind);
        }
    }
}

fn task_of(e: &TraceEvent) -> usize {
    match *e {
        TraceEvent::Release { task, .. }
        | TraceEvent::Segment { task, .. }
        | TraceEvent::Completion { task, .. }
        | TraceEvent::DeadlineMiss { task, .. }
        | TraceEvent::Abort { task, .. }
        | TraceEvent::Discard { task, .. }
        | TraceEvent::PartEnd { task, .. } => task,
        TraceEvent::ModeChange { .. } => panic!("mode change in a periodic run"),
        TraceEvent::ServerSegment { .. }
        | TraceEvent::Replenish { .. }
        | TraceEvent::ServerExhausted { .. } => panic!("server event in a run without servers"),
    }
}
