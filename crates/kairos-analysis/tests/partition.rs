//! Partitioning heuristics: mappings they accept must run without a miss in the simulator
//! (per-core P-EDF or P-FP with deadline-monotonic priorities, synchronous periodic release,
//! H + max D simulated, misses counted for jobs released before H; see
//! `tests/uniprocessor.rs` for why that window is conclusive), plus sanity checks of each
//! heuristic's placement rule.

use kairos_analysis::partition::{self, partition, Admission, Heuristic};
use kairos_analysis::uniprocessor::fp_rta;
mod common;

use common::{nanos, simulate_synchronous, task_ns};
use kairos_analysis::{SporadicTask, Verdict};
use kairos_model::Duration;
use kairos_policy::PolicyKind;
use proptest::prelude::*;
use std::collections::HashSet;

const MS: u64 = 1_000_000;
const GRID: u64 = 100_000;
const PERIODS_MS: [u64; 10] = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20];

/// Every (heuristic, decreasing, admission) combination.
fn all_combinations() -> Vec<(Heuristic, bool, Admission)> {
    let mut out = Vec::new();
    for h in Heuristic::ALL {
        for d in [false, true] {
            for a in Admission::ALL {
                out.push((h, d, a));
            }
        }
    }
    out
}

/// `cores` and tasks whose utilizations sum to about `u_pct` percent of one core per core.
fn scenario(
    implicit: bool,
    u_pct: std::ops::RangeInclusive<u64>,
) -> impl Strategy<Value = (usize, Vec<SporadicTask>)> {
    (2usize..=4).prop_flat_map(move |m| {
        let task = (0..PERIODS_MS.len(), 1u64..=100, 0u64..=100);
        (
            Just(m),
            u_pct.clone(),
            prop::collection::vec(task, m + 1..=3 * m),
        )
            .prop_map(move |(m, u_pct, raw)| {
                let total_weight: u64 = raw.iter().map(|r| r.1).sum();
                let tasks = raw
                    .iter()
                    .map(|&(p, weight, f)| {
                        let t = PERIODS_MS[p] * MS / GRID;
                        let c = (m as u64 * u_pct * weight * t / (100 * total_weight)).clamp(1, t);
                        let d = if implicit {
                            t
                        } else {
                            c + (t - c) * (50 + f / 2) / 100
                        };
                        task_ns(c * GRID, d * GRID, t * GRID)
                    })
                    .collect();
                (m, tasks)
            })
    })
}

/// Simulates `tasks` bound to cores by `mapping`; returns (missed before H, max response/task).
fn simulate_mapping(
    tasks: &[SporadicTask],
    cores: usize,
    mapping: &[usize],
    kind: PolicyKind,
) -> (bool, Vec<Option<u64>>) {
    let observed = simulate_synchronous(tasks, cores, Some(mapping), kind);
    (observed.missed, observed.max_response)
}

/// The tasks mapped to `core`, by increasing index.
fn on_core(tasks: &[SporadicTask], mapping: &[usize], core: usize) -> Vec<SporadicTask> {
    tasks
        .iter()
        .zip(mapping)
        .filter(|(_, &c)| c == core)
        .map(|(t, _)| *t)
        .collect()
}

/// Task indices by decreasing utilization (exact), ties by lower index.
fn by_decreasing_utilization(tasks: &[SporadicTask]) -> Vec<usize> {
    let u_cmp = |a: &SporadicTask, b: &SporadicTask| {
        (u128::from(a.wcet.as_nanos()) * u128::from(b.period.as_nanos()))
            .cmp(&(u128::from(b.wcet.as_nanos()) * u128::from(a.period.as_nanos())))
    };
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by(|&a, &b| u_cmp(&tasks[b], &tasks[a]).then(a.cmp(&b)));
    order
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// Every accepted mapping runs without a miss; each core passes its admission test on its
    /// own; FP-exact response times equal the simulated maxima.
    #[test]
    fn accepted_mappings_meet_every_deadline_in_simulation(
        (m, tasks) in scenario(false, 60..=105)
    ) {
        let mut simulated = HashSet::new();
        for (h, d, a) in all_combinations() {
            let v = partition(&tasks, m, h, d, a);
            let Some(mapping) = v.mapping.clone() else {
                prop_assert!(!v.schedulable && v.failing_task.is_some(), "{v:?}");
                continue;
            };
            prop_assert!(v.schedulable && v.failing_task.is_none());
            prop_assert_eq!(mapping.len(), tasks.len());
            prop_assert!(mapping.iter().all(|&c| c < m));
            for core in 0..m {
                prop_assert!(a.admits(&on_core(&tasks, &mapping, core)), "{:?} core {}", a, core);
            }
            let kind = if a.is_fixed_priority() {
                PolicyKind::PartitionedFp
            } else {
                PolicyKind::PartitionedEdf
            };
            if !simulated.insert((mapping.clone(), kind.cli_name())) && a != Admission::FpExact {
                continue;
            }
            let (missed, max_response) = simulate_mapping(&tasks, m, &mapping, kind);
            prop_assert!(!missed, "{:?} mapping {:?} misses: {:?}", (h, d, a), mapping, tasks);
            if a == Admission::FpExact {
                let simulated: Vec<u64> = max_response.iter().map(|r| r.unwrap_or(0)).collect();
                prop_assert_eq!(nanos(v.response_times), Some(simulated));
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// For implicit deadlines the exact EDF test is U <= 1, so both admissions agree exactly.
    #[test]
    fn implicit_deadlines_exact_edf_equals_utilization((m, tasks) in scenario(true, 60..=105)) {
        for h in Heuristic::ALL {
            for d in [false, true] {
                prop_assert_eq!(
                    partition(&tasks, m, h, d, Admission::EdfExact),
                    partition(&tasks, m, h, d, Admission::EdfUtilization)
                );
            }
        }
    }

    /// Placement rules: the first task considered goes to core 0; next fit never goes back;
    /// worst fit opens a new core while one is empty; decreasing variants follow decreasing
    /// utilization.
    #[test]
    fn placement_rules_hold((m, tasks) in scenario(false, 30..=90)) {
        for (h, d, a) in all_combinations() {
            let Verdict { mapping: Some(mapping), .. } = partition(&tasks, m, h, d, a) else {
                continue;
            };
            let order = if d { by_decreasing_utilization(&tasks) } else { (0..tasks.len()).collect() };
            let cores_in_order: Vec<usize> = order.iter().map(|&i| mapping[i]).collect();
            prop_assert_eq!(cores_in_order[0], 0);
            if h == Heuristic::NextFit {
                prop_assert!(cores_in_order.windows(2).all(|w| w[0] <= w[1]), "{:?}", cores_in_order);
            }
            if h == Heuristic::WorstFit {
                // Each task alone fits an empty core here, so the first m go to cores 0..m.
                let first: Vec<usize> = cores_in_order.iter().copied().take(m).collect();
                prop_assert_eq!(first, (0..m.min(tasks.len())).collect::<Vec<_>>());
            }
        }
    }

    /// Total utilization above m cannot be partitioned, whatever the heuristic.
    #[test]
    fn overloaded_sets_are_rejected((m, tasks) in scenario(false, 101..=130)) {
        // In grid units (periods <= 200, at most 12 tasks) the products fit u128.
        let (num, den) = tasks.iter().fold((0u128, 1u128), |(n, d), t| {
            let (c, p) = (u128::from(t.wcet.as_nanos() / GRID), u128::from(t.period.as_nanos() / GRID));
            (n * p + c * d, d * p)
        });
        prop_assume!(num > m as u128 * den);
        for (h, d, a) in all_combinations() {
            let v = partition(&tasks, m, h, d, a);
            prop_assert!(!v.schedulable && v.mapping.is_none() && v.failing_task.is_some());
        }
    }

    /// A task with C > D fits no core; among light tasks it is the one reported.
    #[test]
    fn a_task_longer_than_its_deadline_fails(
        (m, mut tasks) in scenario(false, 5..=20),
        at in any::<prop::sample::Index>(),
    ) {
        let bad = at.index(tasks.len());
        let one = Duration::from_nanos(1);
        tasks[bad].deadline = tasks[bad].wcet.saturating_sub(one).max(one);
        tasks[bad].wcet = tasks[bad].deadline + one;
        for (h, d, a) in all_combinations() {
            prop_assert_eq!(partition(&tasks, m, h, d, a), Verdict::no(Some(bad)), "{:?}", (h, d, a));
        }
    }
}

/// Implicit-deadline tasks with utilization `pct` percent of a 100 ms period.
fn util(pcts: &[u64]) -> Vec<SporadicTask> {
    pcts.iter()
        .map(|&p| task_ns(p * MS, 100 * MS, 100 * MS))
        .collect()
}

/// 0.3, 0.3, 0.7, 0.7 on two cores: first fit fills core 0 with the small tasks (0.6), puts the
/// first 0.7 on core 1 and finds no room for the second (task 3). Decreasing order places
/// 0.7, 0.7 on cores 0 and 1 and the 0.3s beside them (exactly 1.0 each).
#[test]
fn decreasing_order_rescues_first_fit() {
    let tasks = util(&[30, 30, 70, 70]);
    for a in [Admission::EdfExact, Admission::EdfUtilization] {
        assert_eq!(
            partition(&tasks, 2, Heuristic::FirstFit, false, a),
            Verdict::no(Some(3))
        );
        let v = partition(&tasks, 2, Heuristic::FirstFit, true, a);
        assert_eq!(v.mapping, Some(vec![0, 1, 0, 1]));
    }
}

/// 0.6, 0.5, 0.4 on two cores: 0.6 -> core 0, 0.5 -> core 1 (1.1 > 1). Then 0.4 fits both
/// (1.0 and 0.9): first fit and best fit (fuller core) pick core 0, worst fit and next fit
/// (open core) pick core 1.
#[test]
fn each_heuristic_picks_its_core() {
    let tasks = util(&[60, 50, 40]);
    let expect = [
        (Heuristic::FirstFit, [0, 1, 0]),
        (Heuristic::BestFit, [0, 1, 0]),
        (Heuristic::WorstFit, [0, 1, 1]),
        (Heuristic::NextFit, [0, 1, 1]),
    ];
    for (h, mapping) in expect {
        let v = partition(&tasks, 2, h, false, Admission::EdfExact);
        assert_eq!(v.mapping, Some(mapping.to_vec()), "{h:?}");
    }
    // Next fit closes core 0 for good: 0.6, 0.5, 0.6, 0.3 on 3 cores ends with 0.3 on core 2,
    // where first fit goes back to core 0.
    let tasks = util(&[60, 50, 60, 30]);
    let nf = partition(&tasks, 3, Heuristic::NextFit, false, Admission::EdfExact);
    assert_eq!(nf.mapping, Some(vec![0, 1, 2, 2]));
    let ff = partition(&tasks, 3, Heuristic::FirstFit, false, Admission::EdfExact);
    assert_eq!(ff.mapping, Some(vec![0, 1, 2, 0]));
}

/// FP admission uses RTA with DM on the core: (C 2, D 3, T 4) and (C 1, D 2, T 5) share one
/// core under DM (R_1 = 1, R_0 = 2 + ceil(2/5) 1 = 3 <= 3) although RM would fail
/// (R_1 = 1 + ceil(1/4) 2 = 3 > 2); Liu & Layland (densities 0.667 + 0.5 > 0.828) needs two.
#[test]
fn fp_admission_is_exact_dm() {
    let tasks = [task_ns(2, 3, 4), task_ns(1, 2, 5)];
    assert_eq!(fp_rta::rate_monotonic(&tasks), Verdict::no(Some(1)));
    let v = partition(&tasks, 1, Heuristic::FirstFit, false, Admission::FpExact);
    assert_eq!(nanos(v.response_times), Some(vec![3, 1]));
    assert_eq!(v.mapping, Some(vec![0, 0]));
    assert_eq!(
        nanos(fp_rta::deadline_monotonic(&tasks).response_times),
        Some(vec![3, 1])
    );
    let ll = partition(
        &tasks,
        2,
        Heuristic::FirstFit,
        false,
        Admission::FpLiuLayland,
    );
    assert_eq!(ll.mapping, Some(vec![0, 1]));
    assert_eq!(
        partition(
            &tasks,
            1,
            Heuristic::FirstFit,
            false,
            Admission::FpLiuLayland
        ),
        Verdict::no(Some(1))
    );
}

#[test]
fn degenerate_inputs() {
    for (h, d, a) in all_combinations() {
        assert_eq!(partition(&[], 0, h, d, a).mapping, Some(vec![]));
        assert_eq!(partition(&util(&[10]), 0, h, d, a), Verdict::no(Some(0)));
        let invalid = [task_ns(0, 0, 0), task_ns(u64::MAX, u64::MAX, u64::MAX)];
        assert!(partition(&invalid, 2, h, d, a).failing_task.is_some());
    }
}

#[test]
fn test_names_parse() {
    assert_eq!(
        partition::parse_test_name("partitioned-bfd-fp"),
        Some((Heuristic::BestFit, true, Admission::FpExact))
    );
    assert_eq!(
        partition::parse_test_name("partitioned-nf-edf"),
        Some((Heuristic::NextFit, false, Admission::EdfExact))
    );
    assert_eq!(
        partition::parse_test_name("partitioned-first-fit-edf"),
        None
    );
    let names = partition::exact_test_names();
    assert!(names.contains(&"partitioned-wfd-edf".to_string()) && names.len() == 16);
}
