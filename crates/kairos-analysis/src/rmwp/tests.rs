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

/// `task` with the optional deadline `od` given, as a workload may give it.
fn given(task: SporadicTask, od: u64) -> SporadicTask {
    SporadicTask {
        optional_deadline: Some(Duration::from_nanos(od)),
        ..task
    }
}

fn unsafe_od(task: usize, given: u64, safe_bound: u64) -> crate::UnsafeOptionalDeadline {
    crate::UnsafeOptionalDeadline {
        task,
        given: Duration::from_nanos(given),
        safe_bound: Duration::from_nanos(safe_bound),
    }
}

#[test]
fn a_given_optional_deadline_is_used_up_to_its_safe_bound() {
    // RM: a (C 1, T 4) above b (m 1, w 1, T 9). R_b^w: 1 + ceil(1/4) 1 = 2, then
    // 1 + ceil(2/4) 1 = 2: the safe bound is 9 - 2 = 7. A wind-up released at 8 waits for a's job
    // released at 8 and ends at 10, past 9.
    let (a, b) = (task_ns(1, 4, 4), imp(1, 1, 9));
    let computed = uniprocessor::is_schedulable(&[a, b]);
    assert!(computed.schedulable);
    assert_eq!(nanos_of(&computed.optional_deadlines), Some(vec![4, 7]));
    for od in [7, 6] {
        let v = uniprocessor::is_schedulable(&[a, given(b, od)]);
        assert!(v.schedulable, "OD {od}");
        assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![4, od]));
        assert!(v.unsafe_optional_deadlines.is_empty());
    }
    let v = uniprocessor::is_schedulable(&[a, given(b, 8)]);
    assert!(!v.schedulable);
    assert_eq!(v.failing_task, Some(1));
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![4, 8]));
    assert_eq!(v.unsafe_optional_deadlines, vec![unsafe_od(1, 8, 7)]);
}

#[test]
fn an_unbounded_windup_only_accepts_optional_deadline_zero() {
    // The set of `an_unbounded_windup_gets_optional_deadline_zero`: b's wind-up cannot be
    // bounded, so its safe bound is 0. The verdict is negative for rate-monotonic analysis
    // already and keeps naming b.
    let (a, b) = (imp(2, 1, 4), imp(1, 3, 8));
    let v = uniprocessor::is_schedulable(&[a, given(b, 2)]);
    assert_eq!((v.schedulable, v.failing_task), (false, Some(1)));
    assert_eq!(v.unsafe_optional_deadlines, vec![unsafe_od(1, 2, 0)]);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 2]));
    let v = uniprocessor::is_schedulable(&[a, given(b, 0)]);
    assert!(v.unsafe_optional_deadlines.is_empty());
}

#[test]
fn g_rmwp_checks_a_given_optional_deadline_against_its_windup_response() {
    // 2 cores, RM: a (m 1, w 1, T 4) and b (m 2, w 2, T 8) never wait: R_a = 2, R_b = 4, bounds
    // 4 - 1 = 3 and 8 - 2 = 6. c (m 1, w 1, T 16), W_j(x) = floor(L/T)C + min(C, L mod T) with
    // L = x + R_j - C_j, terms capped at x - w + 1:
    // x = 1: min(W_a 1, 1) + min(W_b 1, 1) = 2, 1 + floor(2/2) = 2;
    // x = 2: min(2, 2) + min(2, 2) = 4, 1 + 2 = 3; x = 3: min(2, 3) + min(3, 3) = 5, 1 + 2 = 3.
    // R_c^w = 3, so the bound is 16 - 3 = 13.
    let tasks = [imp(1, 1, 4), imp(2, 2, 8), imp(1, 1, 16)];
    let v = global::is_schedulable(&tasks, 2);
    assert!(v.schedulable);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 6, 13]));
    let safe = [given(tasks[0], 3), tasks[1], given(tasks[2], 13)];
    let v = global::is_schedulable(&safe, 2);
    assert!(v.schedulable && v.unsafe_optional_deadlines.is_empty());
    let late = [tasks[0], given(tasks[1], 5), given(tasks[2], 14)];
    let v = global::is_schedulable(&late, 2);
    assert_eq!((v.schedulable, v.failing_task), (false, Some(2)));
    assert_eq!(v.unsafe_optional_deadlines, vec![unsafe_od(2, 14, 13)]);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 5, 14]));
}

#[test]
fn p_rmwp_checks_a_given_optional_deadline_against_its_core() {
    // Cyclic next fit puts a, c on core 0 and b, d on core 1 (test above): bounds 3, 3, 5, 5.
    // On one core with a and b, c's wind-up would not be bounded (1 + 2 + 2 = 5, then
    // 1 + 4 + 4 = 9 > 8): its bound is that of its core.
    let tasks = [imp(1, 1, 4), imp(1, 1, 4), imp(1, 1, 8), imp(1, 1, 8)];
    let h = crate::partition::Heuristic::CyclicNextFit;
    let with = |ods: [u64; 2]| {
        [
            tasks[0],
            given(tasks[1], 3),
            given(tasks[2], ods[0]),
            given(tasks[3], ods[1]),
        ]
    };
    let v = partitioned::is_schedulable(&with([5, 4]), 2, h);
    assert!(v.schedulable && v.unsafe_optional_deadlines.is_empty());
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 3, 5, 4]));
    let v = partitioned::is_schedulable(&with([6, 5]), 2, h);
    assert_eq!((v.schedulable, v.failing_task), (false, Some(2)));
    assert_eq!(v.unsafe_optional_deadlines, vec![unsafe_od(2, 6, 5)]);
    // A file's mapping a, b -> 0 and c, d -> 1: b waits for a (R_b^w = 1 + 2 = 3, bound 1), c
    // for nobody (bound 7), d for c (R_d^w = 1 + 2 = 3, bound 5).
    let v = partitioned::on_cores(&with([6, 5]), vec![0, 0, 1, 1], 2);
    assert_eq!((v.schedulable, v.failing_task), (false, Some(1)));
    assert_eq!(v.unsafe_optional_deadlines, vec![unsafe_od(1, 3, 1)]);
    assert_eq!(nanos_of(&v.optional_deadlines), Some(vec![3, 3, 6, 5]));
}
