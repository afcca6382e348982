//! Exact FP partitioning keeps each core's response-time analysis between tasks; it must place
//! every task exactly where analysing each trial core afresh (the admission rule itself, through
//! `partition_with`) places it, or fail on the same task. Seeded random sets with implicit,
//! constrained and arbitrary deadlines, zero WCETs and many tasks per core.

use kairos_analysis::partition::{partition, partition_with, Admission, Heuristic};
use kairos_analysis::SporadicTask;
use kairos_model::Duration;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::RngSeed;

const PERIODS: [u64; 8] = [20, 30, 40, 50, 60, 80, 100, 150];

fn task() -> impl Strategy<Value = SporadicTask> {
    (0..PERIODS.len(), 0u64..=40, 0u64..=3, 0u64..=100).prop_map(|(p, c_pct, kind, f)| {
        let t = PERIODS[p];
        let c = t * c_pct / 100;
        // Implicit, constrained between C and T, or arbitrary up to 2 T.
        let d = match kind {
            0 | 1 => t,
            2 => c + (t - c) * f / 100,
            _ => t + t * f / 100,
        }
        .max(c)
        .max(1);
        let ns = Duration::from_nanos;
        SporadicTask::new(ns(c), ns(d), ns(t))
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 3000,
        rng_seed: RngSeed::Fixed(11),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn incremental_fp_admission_places_as_the_full_analysis(
        cores in 1usize..=4,
        tasks in prop::collection::vec(task(), 1..=30),
    ) {
        let heuristics = Heuristic::ALL.into_iter().chain([Heuristic::CyclicNextFit]);
        for heuristic in heuristics {
            for decreasing in [false, true] {
                let fresh = partition_with(&tasks, cores, heuristic, decreasing, |core| {
                    Admission::FpExact.admits(core)
                });
                let kept = partition(&tasks, cores, heuristic, decreasing, Admission::FpExact);
                prop_assert_eq!(kept.schedulable, fresh.schedulable);
                prop_assert_eq!(&kept.mapping, &fresh.mapping, "{:?} {}", heuristic, decreasing);
                prop_assert_eq!(kept.failing_task, fresh.failing_task);
            }
        }
    }
}

/// The generator reaches both verdicts and the arbitrary-deadline path (a cross-check that only
/// ever saw accepted sets would test little).
#[test]
fn generator_covers_both_verdicts() {
    let mut runner = proptest::test_runner::TestRunner::new(config());
    let strategy = prop::collection::vec(task(), 1..=30);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..300 {
        let tasks = strategy.new_tree(&mut runner).unwrap().current();
        let v = partition(&tasks, 2, Heuristic::FirstFit, true, Admission::FpExact);
        if v.schedulable {
            yes += 1
        } else {
            no += 1
        }
    }
    assert!(yes > 10 && no > 10, "{yes} accepted, {no} rejected");
}
