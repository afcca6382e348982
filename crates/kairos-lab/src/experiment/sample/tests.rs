use super::*;
use kairos_model::{Duration, Workload};
use kairos_policy::PolicyKind;

/// Two tasks on one core at U = 1.01 (3.5/7 + 5.61/11): synchronous EDF first misses at
/// 56 ms, where demand 4 x 3.5 + 5 x 5.61 = 56.05 ms exceeds the time; the hyper-period is
/// 77 ms.
fn overloaded_core() -> Workload {
    let source = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3.5ms\"\nperiod = \"7ms\"\n\
                  [[tasks]]\nname = \"b\"\nwcet = \"5.61ms\"\nperiod = \"11ms\"\n";
    kairos_model::check_source(source, kairos_model::Format::Toml)
        .workload
        .expect("valid")
}

#[test]
fn a_cap_before_the_first_miss_is_inconclusive_not_accepted() {
    let cut = simulated(
        &overloaded_core(),
        PolicyKind::PartitionedEdf,
        Duration::from_millis(50),
    )
    .unwrap();
    assert!(!cut.accepted && cut.inconclusive);
}

#[test]
fn the_whole_feasibility_interval_finds_the_miss() {
    let whole = simulated(
        &overloaded_core(),
        PolicyKind::PartitionedEdf,
        Duration::from_secs(1),
    )
    .unwrap();
    assert!(!whole.accepted && !whole.inconclusive);
}

#[test]
fn a_whole_interval_without_miss_accepts() {
    let mut light = overloaded_core();
    light.tasks[1].wcet = Duration::from_millis(5);
    light.tasks[1].bcet = Duration::from_millis(5);
    let verdict = simulated(&light, PolicyKind::PartitionedEdf, Duration::from_secs(1)).unwrap();
    assert!(verdict.accepted && !verdict.inconclusive);
    let cut = simulated(
        &light,
        PolicyKind::PartitionedEdf,
        Duration::from_millis(76),
    )
    .unwrap();
    assert!(
        !cut.accepted && cut.inconclusive,
        "77 ms were not all simulated"
    );
}
