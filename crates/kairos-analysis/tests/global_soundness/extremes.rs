//! No entry point panics on extreme inputs, and recurrences that creep (found by fuzzing) end.

use super::*;

/// Parameters from the corners: zero, tiny, huge, near `u64::MAX`.
fn arb_extreme() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..4,
        1u64..1000,
        (1u64 << 40)..(1u64 << 42),
        (u64::MAX - 3)..=u64::MAX,
        any::<u64>()
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every entry point answers on any input, never panics (overflow checks are on in release
    /// too), and a "schedulable" answer keeps its promises on the face of it.
    #[test]
    fn no_panics_on_extreme_inputs(
        raw in prop::collection::vec(
            (arb_extreme(), arb_extreme(), arb_extreme(), any::<bool>()),
            0..6,
        ),
        m in prop_oneof![0usize..5, Just(usize::MAX), any::<usize>()],
        shuffle in any::<u64>(),
    ) {
        // Half the tasks are made valid (0 < C <= D <= T) so the arithmetic is reached.
        let tasks: Vec<SporadicTask> = raw
            .into_iter()
            .map(|(c, d, t, valid)| {
                if valid {
                    let mut v = [c.max(1), d.max(1), t.max(1)];
                    v.sort_unstable();
                    task_ns(v[0], v[1], v[2])
                } else {
                    task_ns(c, d, t)
                }
            })
            .collect();
        let mut order = rate_monotonic_order(&tasks);
        if !order.is_empty() {
            let by = (shuffle % order.len() as u64) as usize;
            order.rotate_left(by);
        }
        let mut verdicts: Vec<Verdict> =
            GlobalEdfTest::ALL.iter().map(|t| t.run(&tasks, m)).collect();
        verdicts.push(bertogna_cirinei::is_schedulable(&tasks, m));
        verdicts.push(bertogna_cirinei::is_schedulable_schedcat_rm(&tasks, m));
        verdicts.push(bertogna_cirinei::is_schedulable_with_order(
            &tasks, m, &order, bertogna_cirinei::Variant::Paper,
        ));
        verdicts.push(guan::is_schedulable_with_order(&tasks, m, &order));
        verdicts.push(gedzl::is_schedulable(&tasks, m));
        for v in verdicts {
            if v.schedulable {
                let valid = |t: &SporadicTask| {
                    !t.wcet.is_zero() && t.wcet <= t.deadline && t.deadline <= t.period
                };
                prop_assert!(tasks.iter().all(valid));
                if let Some(r) = v.response_times {
                    let within = |(r, t): (&Duration, &SporadicTask)| t.wcet <= *r && *r <= t.deadline;
                    prop_assert!(r.iter().zip(&tasks).all(within));
                }
            } else if let Some(k) = v.failing_task {
                prop_assert!(k < tasks.len());
            }
        }
    }
}

/// Sets on which the fixed-point searches once walked ~10^7 to 10^16 teeth of a short-period
/// workload (a hang in CI): a capped term growing exactly as fast as `m x` next to light tasks,
/// up to deadlines near `u64::MAX`. Each must now be answered, and any response time kept within
/// `[C, D]`.
#[test]
fn creeping_recurrences_found_by_fuzzing_are_answered() {
    const MAX: u64 = u64::MAX;
    let t = task_ns;
    let cases: [(usize, Vec<SporadicTask>); 5] = [
        (
            1,
            vec![
                t(236, 709, 763),
                t(8014378577447747813, 15284113907182861079, MAX - 1),
                t(2, 2995920668557, 6494968073861812009),
            ],
        ),
        (
            1,
            vec![t(1754846262209, 15824878573954745676, MAX - 3), t(1, 2, 10)],
        ),
        (
            1,
            vec![
                t(2, 3, 1225759432035),
                t(556, MAX - 2, MAX),
                t(3, 474, 2063956826667),
                t(15855249785243453335, MAX - 2, MAX - 1),
            ],
        ),
        (
            1,
            vec![
                t(10434322835283066074, 15860516798699833253, MAX - 2),
                t(5208936045705120756, 14284049520333292238, MAX),
                t(3, 498, 805),
                t(1, MAX - 3, MAX - 3),
            ],
        ),
        (
            2,
            vec![
                t(3769075040241, 3432448998258517173, 8737500186254100184),
                t(1, 1, 1),
                t(204, 284, 18360051482724933113),
                t(1, 2404793424470, 15675473775621229358),
            ],
        ),
    ];
    for (m, tasks) in cases {
        let rta = GlobalEdfTest::Rta.run(&tasks, m);
        let order = rate_monotonic_order(&tasks);
        let bc = bertogna_cirinei::is_schedulable_with_order(
            &tasks,
            m,
            &order,
            bertogna_cirinei::Variant::Paper,
        );
        let guan = guan::is_schedulable_with_order(&tasks, m, &order);
        for v in [rta, bc, guan] {
            if let Some(r) = v.response_times {
                assert!(r
                    .iter()
                    .zip(&tasks)
                    .all(|(r, t)| t.wcet <= *r && *r <= t.deadline));
            }
        }
    }
}
