use super::*;
use crate::{nanos_of, task_ns};
use kairos_model::Duration;

fn imp(m: u64, w: u64, t: u64) -> SporadicTask {
    let ns = Duration::from_nanos;
    SporadicTask::imprecise(ns(m), ns(w), ns(t), ns(t))
}

#[test]
fn uniprocessor_optional_deadlines_by_hand() {
    // RM: a (T 4) above b (T 8). R_a^w = 1, so OD_a = 3. R_b^w: 1 + ceil(R/4) 2 -> 3 -> 3,
    // so OD_b = 5. The plain task c has no wind-up: OD = D.
    let tasks = [imp(1, 1, 4), imp(2, 1, 8), task_ns(1, 16, 16)];
    let v = uniprocessor::is_schedulable(&tasks);
    assert!(v.schedulable);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 5, 16]));
}

#[test]
fn an_unbounded_windup_gets_optional_deadline_zero() {
    // b's wind-up alone (3) plus a's demand every 4 (3 each) never fits 8.
    let tasks = [imp(2, 1, 4), imp(1, 3, 8)];
    let v = uniprocessor::is_schedulable(&tasks);
    assert!(!v.schedulable);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 0]));
}

#[test]
fn on_m_cores_the_m_most_important_windups_never_wait() {
    let tasks = [imp(1, 1, 4), imp(2, 2, 8), imp(1, 1, 16)];
    let v = global::is_schedulable(&tasks, 2);
    assert!(v.schedulable);
    let od = nanos_of(&v.optional_deadlines).unwrap();
    assert_eq!(&od[..2], &[3, 6]);
    // The third waits for the first two only when both run: at most floor((1 + 2) / 2) ticks
    // of interference beyond its own wind-up, well inside its deadline.
    assert!((16 - 1 - 2..=16 - 1).contains(&od[2]), "{od:?}");
}

#[test]
fn p_rmwp_cyclic_next_fit_evens_tasks_and_gives_per_core_deadlines() {
    let tasks = [imp(1, 1, 4), imp(1, 1, 4), imp(1, 1, 8), imp(1, 1, 8)];
    let v = partitioned::is_schedulable(&tasks, 2, crate::partition::Heuristic::CyclicNextFit);
    assert_eq!(v.mapping, Some(vec![0, 1, 0, 1]));
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 3, 5, 5]));
    let classic = partitioned::is_schedulable(&tasks, 2, crate::partition::Heuristic::NextFit);
    // Classic next fit fills core 0 first (two tasks of U 0.5 fill it).
    assert_eq!(classic.mapping, Some(vec![0, 0, 1, 1]));
}

#[test]
fn deadlines_beyond_periods_are_refused() {
    let ns = Duration::from_nanos;
    let tasks = [SporadicTask::imprecise(ns(1), ns(1), ns(10), ns(8))];
    assert_eq!(uniprocessor::is_schedulable(&tasks).failing_task, Some(0));
}
