//! Tasks the workload binds to a core (`core`): every partitioning test places them there
//! first and the heuristic places the rest around them, as kairos's partitioned policies run
//! them. Hand-worked cases, and two properties: binding every task where a heuristic put it
//! gives that mapping back, and a mapping accepted with some tasks bound keeps them where they
//! are bound and meets every deadline in the simulator.

use kairos_analysis::partition::{partition, Admission, Heuristic};
use kairos_analysis::{SporadicTask, Verdict};
use kairos_policy::PolicyKind;
use proptest::prelude::*;
mod common;

use common::{nanos, simulate_synchronous, task_ns};

const MS: u64 = 1_000_000;

/// Implicit-deadline tasks of `pct` percent of a 100 ms period, each bound as `cores` says.
fn bound(pcts: &[u64], cores: &[Option<usize>]) -> Vec<SporadicTask> {
    (pcts.iter().zip(cores))
        .map(|(&p, &core)| SporadicTask {
            core,
            ..task_ns(p * MS, 100 * MS, 100 * MS)
        })
        .collect()
}

fn every_test() -> Vec<(Heuristic, bool, Admission)> {
    let mut out = Vec::new();
    for h in Heuristic::ALL.into_iter().chain([Heuristic::CyclicNextFit]) {
        for d in [false, true] {
            for a in Admission::ALL {
                out.push((h, d, a));
            }
        }
    }
    out
}

/// 0.6, 0.5, 0.4 on two cores puts the 0.4 beside the 0.6 under first fit ([0, 1, 0]). Bound to
/// core 1, it is placed there first; then first fit puts 0.6 on core 0 and 0.5, which no longer
/// fits there (1.1), beside the 0.4 (0.9): [0, 1, 1], and so do next fit, worst fit (core 0 is
/// the emptier for the 0.6, core 1 for the 0.5) and cyclic next fit (from core 0). Best fit puts
/// the 0.6 on the fuller core 1 (1.0) and the 0.5 on core 0: [1, 0, 1]. Liu and Layland's bound
/// for two tasks (0.828) admits no pair here, so those tests refuse the set.
#[test]
fn a_bound_task_is_placed_first_and_the_rest_around_it() {
    let free = bound(&[60, 50, 40], &[None; 3]);
    let v = partition(&free, 2, Heuristic::FirstFit, false, Admission::EdfExact);
    assert_eq!(v.mapping, Some(vec![0, 1, 0]));
    let pinned = bound(&[60, 50, 40], &[None, None, Some(1)]);
    for (h, d, a) in every_test() {
        let expected = match (h, a) {
            (_, Admission::FpLiuLayland) => None,
            (Heuristic::BestFit, _) => Some(vec![1, 0, 1]),
            _ => Some(vec![0, 1, 1]),
        };
        let v = partition(&pinned, 2, h, d, a);
        assert_eq!(v.mapping, expected, "{h:?} {d} {a:?}");
    }
}

/// Two tasks of 0.6 and 0.5 bound to core 0 do not fit there together: the second (by index)
/// fails the set, whatever room core 1 has; so does a task bound to a core that does not exist.
#[test]
fn a_bound_task_its_core_does_not_admit_fails_the_set() {
    let crowded = bound(&[60, 50, 10], &[Some(0), Some(0), None]);
    let outside = bound(&[10, 10], &[None, Some(2)]);
    for (h, d, a) in every_test() {
        assert_eq!(partition(&crowded, 2, h, d, a), Verdict::no(Some(1)));
        assert_eq!(partition(&outside, 2, h, d, a), Verdict::no(Some(1)));
    }
}

/// Periods whose hyper-period (120 ms) keeps each simulation short.
const PERIODS_MS: [u64; 10] = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20];

/// `cores` and 2 to `2 cores + 1` tasks of utilization 0.05-0.4, with deadlines between their
/// WCET and period; and a core (or none) to bind each to. Light enough that most sets are
/// accepted, so the properties are not vacuous.
fn scenario() -> impl Strategy<Value = (usize, Vec<SporadicTask>, Vec<Option<usize>>)> {
    (2usize..=4).prop_flat_map(|m| {
        let task = (
            0..PERIODS_MS.len(),
            5u64..=40,
            50u64..=100,
            prop::option::of(0..m),
        );
        prop::collection::vec(task, 2..=2 * m + 1).prop_map(move |raw| {
            let tasks = (raw.iter())
                .map(|&(p, pct, d_pct, _)| {
                    let t = PERIODS_MS[p] * MS;
                    let c = t * pct / 100;
                    task_ns(c, c + (t - c) * d_pct / 100, t)
                })
                .collect();
            (m, tasks, raw.iter().map(|r| r.3).collect())
        })
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Binding every task to the core a heuristic chose gives that mapping back: each core
    /// passed its admission with those tasks, and admission does not depend on the order the
    /// tasks came in, so placing bound tasks first never refuses what the heuristic accepted.
    /// (A code that ignored bindings would pass this too; the next property is the one that
    /// tells.)
    #[test]
    fn binding_a_found_mapping_gives_it_back((m, tasks, _) in scenario()) {
        for (h, d, a) in every_test() {
            let Some(mapping) = partition(&tasks, m, h, d, a).mapping else {
                continue;
            };
            let pinned: Vec<SporadicTask> = (tasks.iter().zip(&mapping))
                .map(|(t, &core)| SporadicTask { core: Some(core), ..*t })
                .collect();
            let again = partition(&pinned, m, h, d, a);
            prop_assert_eq!(again.mapping, Some(mapping), "{:?} {} {:?}", h, d, a);
        }
    }

    /// A mapping accepted with some tasks bound keeps each where it is bound, and P-EDF or P-FP
    /// (deadline-monotonic) on it meets every deadline of a synchronous release, each FP response
    /// time as the analysis found it; for every heuristic, each distinct mapping simulated once.
    /// A set no test accepts is rejected, so that too few accepted sets fail the property.
    #[test]
    fn an_accepted_mapping_with_bound_tasks_holds((m, tasks, cores) in scenario()) {
        let pinned: Vec<SporadicTask> = (tasks.iter().zip(&cores))
            .map(|(t, &core)| SporadicTask { core, ..*t })
            .collect();
        let mut accepted = 0;
        let mut simulated = std::collections::HashSet::new();
        for (h, d, a) in every_test() {
            let kind = match a.is_fixed_priority() {
                true => PolicyKind::PartitionedFp,
                false => PolicyKind::PartitionedEdf,
            };
            let verdict = partition(&pinned, m, h, d, a);
            let Some(mapping) = verdict.mapping.clone() else {
                continue;
            };
            accepted += 1;
            for (task, core) in cores.iter().enumerate() {
                prop_assert!(core.is_none_or(|c| mapping[task] == c), "{:?}", (h, d, a));
            }
            let exact_fp = a == Admission::FpExact;
            if !simulated.insert((mapping.clone(), kind.cli_name())) && !exact_fp {
                continue;
            }
            let observed = simulate_synchronous(&pinned, m, Some(&mapping), kind);
            prop_assert!(!observed.missed, "{:?} mapping {:?} misses: {:?}", a, mapping, pinned);
            if exact_fp {
                // The response times the analysis found on the bound cores are the simulated ones.
                let simulated = observed.max_response.iter().map(|r| r.unwrap_or(0)).collect();
                prop_assert_eq!(nanos(verdict.response_times), Some(simulated));
            }
        }
        prop_assume!(accepted > 0);
    }
}
