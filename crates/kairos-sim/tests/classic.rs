//! Classic scheduling results the simulator must reproduce.

mod common;

use std::collections::BTreeMap;

use common::*;
use kairos_model::{Arrival, Duration, Instant, Overheads};
use kairos_policy::PolicyKind;
use kairos_sim::{ExecutionTimeModel, SimConfig};
use kairos_trace::TraceEvent;
use proptest::prelude::*;

/// Periods dividing H = 60 units, so the hyper-period of any subset divides 60.
const DIVISORS_OF_60: [u64; 11] = [2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];
const H: u64 = 60;

/// Synchronous implicit-deadline tasks (period, wcet) with total demand over H = 60 of at most H,
/// i.e. U <= 1 exactly in integers. Candidates are taken in order; one that does not fit is
/// shrunk to the remaining budget (often reaching U = 1 exactly), or dropped if that leaves C = 0.
fn arb_feasible_set() -> impl Strategy<Value = Vec<(u64, u64)>> {
    let one = prop::sample::select(DIVISORS_OF_60.to_vec()).prop_flat_map(|t| (Just(t), 1..=t));
    prop::collection::vec(one, 1..=6).prop_map(|candidates| {
        let mut budget = H;
        let mut set = Vec::new();
        for (t, c) in candidates {
            let jobs = H / t;
            let c = c.min(budget / jobs);
            if c == 0 {
                continue;
            }
            budget -= c * jobs;
            set.push((t, c));
        }
        set
    })
}

fn implicit_set(set: &[(u64, u64)]) -> Vec<kairos_model::Task> {
    set.iter()
        .enumerate()
        .map(|(i, &(t, c))| task(&format!("t{i}"), c, t, t, 0))
        .collect()
}

fn demand(set: &[(u64, u64)]) -> u64 {
    set.iter().map(|&(t, c)| c * (H / t)).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) Liu & Layland: on one core EDF meets every deadline of a synchronous implicit-deadline
    /// periodic set iff U <= 1. Here U <= 1, so no job misses over the hyper-period, under the
    /// global and the partitioned EDF alike, and under EDZL (on one core a waiting job can reach
    /// zero laxity only if the set is infeasible, so EDZL schedules as EDF).
    #[test]
    fn uniprocessor_edf_never_misses_when_u_at_most_1(set in arb_feasible_set()) {
        prop_assert!(demand(&set) <= H);
        let w = workload(1, implicit_set(&set));
        let config = SimConfig { duration: units(H), ..SimConfig::default() };
        for kind in [PolicyKind::GlobalEdf, PolicyKind::PartitionedEdf, PolicyKind::GlobalEdzl] {
            let outcome = run(&w, kind, &config);
            prop_assert_eq!(outcome.metrics.deadline_misses, 0, "{} on {:?}", kind.cli_name(), set);
            // Everything released before H finished; only the jobs released at H remain.
            prop_assert_eq!(outcome.unfinished_jobs, set.len());
            // U = 1 exactly: the core is never idle in [0, H).
            if demand(&set) == H {
                prop_assert_eq!(outcome.metrics.core_usage[0].busy_ns, units(H).as_nanos());
            }
        }
    }

    /// (a) ... and with U > 1 some job misses within the hyper-period, on one core, under any
    /// policy: the demand of jobs with deadlines <= H exceeds H.
    #[test]
    fn uniprocessor_misses_when_u_above_1(set in arb_feasible_set(), extra in prop::sample::select(DIVISORS_OF_60.to_vec())) {
        // Add one task whose demand just overflows the budget; C <= T because demand > 0.
        let mut set = set;
        let free = H - demand(&set);
        let c = free / (H / extra) + 1;
        prop_assert!(c <= extra);
        set.push((extra, c));
        prop_assert!(demand(&set) > H);
        let w = workload(1, implicit_set(&set));
        let config = SimConfig { duration: units(H), ..SimConfig::default() };
        for kind in PolicyKind::ALL {
            let outcome = run(&w, kind, &config);
            prop_assert!(outcome.metrics.deadline_misses > 0, "{} on {:?}", kind.cli_name(), set);
        }
    }
}

/// (b) The Dhall effect (Dhall & Liu 1978): on m = 2 cores, two light tasks (C=2, T=D=100) and
/// one heavy task (C=100, T=D=101); U = 1.03 of 2 cores. At 0 G-EDF runs the light jobs first
/// (deadline 100 < 101), so the heavy job starts at 2 and ends at 102 > 101. P-EDF puts the heavy
/// task alone on one core and meets everything; EDZL runs the heavy job from 1, when its laxity
/// reaches 0, and meets everything too.
#[test]
fn dhall_effect_global_edf_misses_where_partitioned_edf_and_edzl_do_not() {
    let w = workload(
        2,
        vec![
            task("light0", 2, 100, 100, 0),
            task("light1", 2, 100, 100, 0),
            task("heavy", 100, 101, 101, 0),
        ],
    );
    let config = SimConfig {
        duration: hyperperiod(&w),
        ..SimConfig::default()
    };
    let (gedf, trace) = run_traced(&w, PolicyKind::GlobalEdf, &config);
    assert!(gedf.metrics.deadline_misses > 0);
    let heavy = jobs_of(&trace);
    let first_heavy = &heavy[&(2, 0)];
    assert_eq!(
        first_heavy.segments.first().map(|s| s.start),
        Some(at_units(2))
    );
    assert_eq!(first_heavy.completion, Some(at_units(102)));
    assert_eq!(first_heavy.misses, 1);

    for kind in [PolicyKind::PartitionedEdf, PolicyKind::GlobalEdzl] {
        let (outcome, trace) = run_traced(&w, kind, &config);
        assert_eq!(outcome.metrics.deadline_misses, 0, "{}", kind.cli_name());
        assert!(outcome.metrics.jobs_completed > 100, "{}", kind.cli_name());
        if kind == PolicyKind::GlobalEdzl {
            let first_heavy = &jobs_of(&trace)[&(2, 0)];
            assert_eq!(
                first_heavy.segments.first().map(|s| s.start),
                Some(at_units(1))
            );
            assert_eq!(first_heavy.completion, Some(at_units(101)));
        }
    }
}

/// (c) Rate-monotonic response times on one core equal the response-time analysis (Joseph &
/// Pandya 1986) for a synchronous set, whose first jobs are released at the critical instant:
///   tau1 (C=1, T=D=4):  R1 = 1
///   tau2 (C=2, T=D=6):  R = 2 + ceil(R/4)*1: 2 -> 3 -> 3, so R2 = 3
///   tau3 (C=3, T=D=13): R = 3 + ceil(R/4)*1 + ceil(R/6)*2: 3 -> 6 -> 7 -> 9 -> 10 -> 10, so R3 = 10
/// U = 1/4 + 2/6 + 3/13 = 0.814; H = lcm(4, 6, 13) = 156.
#[test]
fn rate_monotonic_worst_response_times_equal_rta() {
    let w = workload(
        1,
        vec![
            task("t1", 1, 4, 4, 0),
            task("t2", 2, 6, 6, 0),
            task("t3", 3, 13, 13, 0),
        ],
    );
    let config = SimConfig {
        duration: hyperperiod(&w),
        ..SimConfig::default()
    };
    for kind in [PolicyKind::GlobalFp, PolicyKind::PartitionedFp] {
        let outcome = run(&w, kind, &config);
        let worst: Vec<Option<u64>> = outcome
            .metrics
            .tasks
            .iter()
            .map(|t| t.response_max_ns)
            .collect();
        let rta = [1, 3, 10].map(|r| Some(units(r).as_nanos()));
        assert_eq!(worst, rta, "{}", kind.cli_name());
        assert_eq!(outcome.metrics.deadline_misses, 0);
        // The best case: tau1 always runs at once; tau3's best response is at least its WCET.
        assert_eq!(
            outcome.metrics.tasks[0].response_min_ns,
            Some(units(1).as_nanos())
        );
        assert!(outcome.metrics.tasks[2].response_min_ns >= Some(units(3).as_nanos()));
    }
}

/// (d) Sporadic tasks: every gap between releases lies in [period, max_interarrival], the gaps
/// vary with the seed (so the draws are real), and the job numbers follow release order.
#[test]
fn sporadic_gaps_stay_within_bounds() {
    let mut a = task("a", 1, 5, 5, 0);
    a.arrival = Arrival::Sporadic {
        max_interarrival: units(9),
    };
    let mut b = task("b", 2, 7, 6, 3);
    b.arrival = Arrival::Sporadic {
        max_interarrival: units(7),
    };
    let w = workload(2, vec![a, b]);
    for seed in 0..16 {
        for kind in PolicyKind::ALL {
            let config = SimConfig {
                duration: units(1_000),
                seed,
                ..SimConfig::default()
            };
            let (_, trace) = run_traced(&w, kind, &config);
            let mut releases: BTreeMap<usize, Vec<(u64, Instant)>> = BTreeMap::new();
            for e in &trace.events {
                if let TraceEvent::Release { task, job, at, .. } = *e {
                    releases.entry(task).or_default().push((job, at));
                }
            }
            let gaps = |task: usize| -> Vec<Duration> {
                let r = &releases[&task];
                r.iter()
                    .enumerate()
                    .for_each(|(k, &(job, _))| assert_eq!(job, k as u64));
                r.windows(2).map(|p| p[1].1 - p[0].1).collect()
            };
            let gaps_a = gaps(0);
            assert!(
                gaps_a.iter().all(|&g| g >= units(5) && g <= units(9)),
                "seed {seed}: {gaps_a:?}"
            );
            assert!(
                gaps_a.iter().min() != gaps_a.iter().max(),
                "seed {seed}: gaps never vary"
            );
            assert!(
                gaps_a.iter().any(|g| g.as_nanos() % UNIT_NS != 0),
                "gaps are drawn in ns"
            );
            // max_interarrival == period: strictly periodic.
            assert!(gaps(1).iter().all(|&g| g == units(7)));
            assert_eq!(releases[&1][0].1, at_units(3));
        }
    }
}

/// (e) With abort_on_miss, no job runs after its deadline: an overloaded core (U = 1.67 at WCET,
/// about 1.15 on average under the uniform model with bcet = 1) aborts late jobs exactly at their
/// deadlines and never completes one late.
#[test]
fn abort_on_miss_never_runs_a_job_past_its_deadline() {
    let mut tasks = vec![
        task("a", 2, 4, 4, 0),
        task("b", 3, 6, 5, 1),
        task("c", 4, 8, 8, 0),
        task("d", 2, 12, 9, 2),
    ];
    for t in &mut tasks {
        t.bcet = units(1);
    }
    let w = workload(1, tasks);
    for kind in PolicyKind::ALL {
        for uniform in [false, true] {
            let config = SimConfig {
                duration: units(240),
                abort_on_miss: true,
                execution_times: if uniform {
                    ExecutionTimeModel::Uniform
                } else {
                    ExecutionTimeModel::Wcet
                },
                ..SimConfig::default()
            };
            let (outcome, trace) = run_traced(&w, kind, &config);
            assert!(
                outcome.metrics.jobs_aborted > 0,
                "{}: the set is overloaded",
                kind.cli_name()
            );
            for (id, r) in jobs_of(&trace) {
                let deadline = r.deadline.unwrap();
                assert!(
                    r.segments.iter().all(|s| s.end <= deadline),
                    "{id:?} ran after its deadline"
                );
                assert!(
                    r.completion.is_none_or(|c| c <= deadline),
                    "{id:?} completed late"
                );
                if let Some(abort) = r.abort {
                    assert_eq!(abort, deadline);
                    assert_eq!(r.misses, 1);
                }
            }
            assert_eq!(
                outcome.metrics.deadline_misses,
                outcome.metrics.jobs_aborted
            );
        }
    }
}

/// (f) Overheads on one core without preemptions: each job is switched in once and pays
/// scheduling + context switch in full, so the core's overhead time is (s + c) * switches and
/// each response time grows by s + c per job ahead of it and its own.
/// Set (RM): a (C=1, T=4), b (C=1, T=8); s = 50 ns, c = 100 ns. Jobs never overlap a release:
/// a runs [r, r+1.15us), b after a's job of the same instant, ending 2.3us after its release.
#[test]
fn overheads_are_charged_once_per_context_switch() {
    let mut w = workload(1, vec![task("a", 1, 4, 4, 0), task("b", 1, 8, 8, 0)]);
    let ns = Duration::from_nanos;
    let overheads = Overheads::fixed(ns(50), ns(100), ns(1_000));
    w.overheads = overheads;
    // End at 79 units: no release (multiples of 4) and no completion falls on the end.
    let config = SimConfig {
        duration: units(79),
        overheads,
        ..SimConfig::default()
    };
    for kind in PolicyKind::ALL {
        let outcome = run(&w, kind, &config);
        let m = &outcome.metrics;
        assert_eq!(m.preemptions, 0, "{}", kind.cli_name());
        assert_eq!(m.migrations, 0);
        assert_eq!(m.jobs_completed, 20 + 10);
        assert_eq!(m.context_switches, 30);
        assert_eq!(
            m.core_usage[0].overhead_ns,
            150 * m.context_switches,
            "{}",
            kind.cli_name()
        );
        assert_eq!(m.core_usage[0].busy_ns, 30 * 1_150);
        assert_eq!(m.tasks[0].response_max_ns, Some(1_150));
        assert_eq!(m.tasks[1].response_max_ns, Some(2_300));
        assert_eq!(m.tasks[1].response_min_ns, Some(2_300));
    }
}

/// (f) Overhead not yet paid when a job is preempted is dropped, and charged again on resume.
/// One core (same schedule under every policy): b (C=2us, T=20us) starts at 0 paying 100 ns of context switch; a (C=1us,
/// T=10us) arrives at 50 ns and preempts it. b paid 50 ns; the other 50 are dropped. a runs
/// [50, 1150); b resumes at 1150, pays 100 ns again and its 2000 ns of work: done at 3250.
#[test]
fn unpaid_overhead_is_dropped_on_preemption() {
    let mut a = task("a", 1, 10, 10, 0);
    a.offset = Duration::from_nanos(50);
    let w = workload(1, vec![a, task("b", 2, 20, 20, 0)]);
    let config = SimConfig {
        duration: units(5),
        overheads: Overheads {
            context_switch: Duration::from_nanos(100).into(),
            ..Overheads::default()
        },
        ..SimConfig::default()
    };
    for kind in PolicyKind::ALL {
        let (outcome, trace) = run_traced(&w, kind, &config);
        let jobs = jobs_of(&trace);
        assert_eq!(
            jobs[&(0, 0)].completion,
            Some(Instant::from_nanos(1_150)),
            "{}",
            kind.cli_name()
        );
        assert_eq!(
            jobs[&(1, 0)].completion,
            Some(Instant::from_nanos(3_250)),
            "{}",
            kind.cli_name()
        );
        let m = &outcome.metrics;
        assert_eq!(m.preemptions, 1);
        assert_eq!(m.context_switches, 3);
        assert_eq!(m.core_usage[0].overhead_ns, 50 + 100 + 100);
        assert_eq!(m.core_usage[0].busy_ns, 3_250);
    }
}
