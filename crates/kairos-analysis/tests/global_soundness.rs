//! Soundness of the global tests against the simulator, and the relations between tests that
//! are theorems.
//!
//! For generated sets (2-8 tasks, 2-4 cores, periods from a small set so hyper-periods stay
//! short, implicit and constrained deadlines, WCET = actual execution time):
//! - every set GFB, BAK, BCL, BCL iterative or the G-EDF RTA accepts has no miss under G-EDF,
//!   with synchronous release (over the hyper-period plus the largest deadline), random offsets
//!   and random sporadic gaps;
//! - every set Bertogna-Cirinei (both variants) or Guan accepts has no miss under G-FP in the
//!   same rate-monotonic order; every set the G-EDZL test accepts has none under EDZL;
//! - response-time bounds are at least the simulated maximum response times;
//! - BCL => BCL iterative, Bertogna-Cirinei SchedCAT variant => published variant, any G-EDF
//!   test => G-EDZL, and Theorem 1 of `gedzl` accepts what its hypotheses give;
//! - the accelerated fixed-point searches of the G-EDF RTA and of Bertogna-Cirinei G-FP give
//!   exactly the response times of the plain iterations (written out here as slow twins);
//! - no entry point panics on extreme inputs.

use kairos_analysis::gedzl;
use kairos_analysis::global_edf::{bcl, bcl_iterative, GlobalEdfTest};
use kairos_analysis::global_fp::{bertogna_cirinei, guan, rate_monotonic_order};
use kairos_analysis::{SporadicTask, Verdict};
use kairos_model::{Arrival, Duration, Overheads, Task, Workload};
use kairos_policy::PolicyKind;
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, Metrics, SimConfig};
use proptest::prelude::*;

/// Periods (in units) whose lcm is at most 120.
const PERIODS: [u64; 10] = [3, 4, 5, 6, 8, 10, 12, 15, 20, 24];

/// How the jobs of a run arrive.
#[derive(Clone, Copy, Debug)]
enum Arrivals {
    Synchronous,
    /// First releases at these fractions (per mille) of each period.
    Offsets(u64),
    /// Gaps drawn in [T, 2T] with this seed.
    Sporadic(u64),
}

#[derive(Clone, Debug)]
struct Case {
    m: usize,
    tasks: Vec<SporadicTask>,
}

/// 2-8 tasks on 2-4 cores; `unit` ns per period unit (1 exercises the discrete-time `+ 1`
/// corners, 1000 larger numbers); WCET anywhere in [1, D]; half the sets implicit deadlines.
fn arb_case() -> impl Strategy<Value = Case> {
    let task = (
        prop::sample::select(PERIODS.to_vec()),
        1u64..=100,
        0u64..=100,
        any::<bool>(),
    );
    (
        2usize..=4,
        prop::collection::vec(task, 2..=8),
        prop::sample::select(vec![1u64, 1000]),
    )
        .prop_map(|(m, raw, unit)| {
            let tasks = raw
                .into_iter()
                .map(|(p, c_pct, d_pct, implicit)| {
                    let period = p * unit;
                    // Mostly light tasks, some heavy: C = period * c_pct^2 / 10^4.
                    let wcet = (period * c_pct * c_pct / 10_000).max(1);
                    let deadline = if implicit {
                        period
                    } else {
                        wcet + (period - wcet) * d_pct / 100
                    };
                    SporadicTask::new(wcet, deadline, period)
                })
                .collect();
            Case { m, tasks }
        })
}

fn lcm(a: u64, b: u64) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
}

/// Simulates `case` under `kind` (rate-monotonic order for G-FP) and returns the metrics.
fn simulate_case(case: &Case, kind: PolicyKind, arrivals: Arrivals) -> Metrics {
    let hyper = case.tasks.iter().map(|t| t.period).fold(1, lcm);
    let max_deadline = case.tasks.iter().map(|t| t.deadline).max().unwrap_or(0);
    let mut max_offset = 0;
    let tasks = case
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let offset = match arrivals {
                Arrivals::Offsets(seed) => {
                    (seed.wrapping_mul(i as u64 * 7919 + 13) % 1000) * t.period / 1000
                }
                _ => 0,
            };
            max_offset = max_offset.max(offset);
            let arrival = match arrivals {
                Arrivals::Sporadic(_) => Arrival::Sporadic {
                    max_interarrival: Duration::from_nanos(2 * t.period),
                },
                _ => Arrival::Periodic,
            };
            Task {
                name: format!("t{i}"),
                wcet: Duration::from_nanos(t.wcet),
                bcet: Duration::from_nanos(t.wcet),
                period: Duration::from_nanos(t.period),
                deadline: Duration::from_nanos(t.deadline),
                offset: Duration::from_nanos(offset),
                arrival,
                priority: None,
                core: None,
                imprecise: None,
            }
        })
        .collect();
    let workload = Workload {
        name: None,
        cores: case.m,
        tasks,
        overheads: Overheads::default(),
    };
    let horizon = match arrivals {
        Arrivals::Synchronous => hyper + max_deadline,
        Arrivals::Offsets(_) => max_offset + 2 * hyper + max_deadline,
        Arrivals::Sporadic(_) => 4 * hyper + max_deadline,
    };
    let config = SimConfig {
        duration: Duration::from_nanos(horizon),
        seed: match arrivals {
            Arrivals::Sporadic(seed) => seed,
            _ => 0,
        },
        ..SimConfig::default()
    };
    let mut policy = kind.build(PriorityOrder::RateMonotonic);
    simulate(&workload, policy.as_mut(), &config)
        .expect("simulation runs")
        .metrics
}

/// No miss under `kind` in any of the arrival patterns; response bounds respected.
fn check_no_miss(
    case: &Case,
    kind: PolicyKind,
    test: &str,
    verdict: &Verdict,
    seed: u64,
) -> Result<(), TestCaseError> {
    for arrivals in [
        Arrivals::Synchronous,
        Arrivals::Offsets(seed),
        Arrivals::Sporadic(seed),
    ] {
        let metrics = simulate_case(case, kind, arrivals);
        prop_assert_eq!(
            metrics.deadline_misses,
            0,
            "{} accepted {:?} but {} misses ({:?})",
            test,
            case,
            kind.cli_name(),
            arrivals
        );
        if let Some(bounds) = &verdict.response_times {
            for (k, (task, bound)) in metrics.tasks.iter().zip(bounds).enumerate() {
                let observed = task.response_max_ns.unwrap_or(0);
                prop_assert!(
                    observed <= *bound,
                    "{} bound {} < simulated {} for task {} of {:?} ({:?})",
                    test,
                    bound,
                    observed,
                    k,
                    case,
                    arrivals
                );
            }
        }
    }
    Ok(())
}

/// The strict "never reaches zero laxity with no other task in U" condition of `gedzl`'s
/// Theorem 1 for U empty and zero slacks, computed independently.
fn no_task_can_reach_zero_laxity(tasks: &[SporadicTask], m: usize) -> bool {
    tasks.iter().enumerate().all(|(k, tk)| {
        let laxity = u128::from(tk.deadline - tk.wcet);
        let sum: u128 = tasks
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, ti)| {
                let jobs = tk.deadline / ti.period;
                let rest = tk.deadline - jobs * ti.period;
                (u128::from(jobs * ti.wcet) + u128::from(ti.wcet.min(rest))).min(laxity)
            })
            .sum();
        sum < m as u128 * laxity
    })
}

fn utilization_at_most(tasks: &[SporadicTask], m: usize) -> bool {
    let hyper = tasks.iter().map(|t| t.period).fold(1, lcm);
    tasks
        .iter()
        .map(|t| u128::from(t.wcet * (hyper / t.period)))
        .sum::<u128>()
        <= m as u128 * u128::from(hyper)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn global_edf_tests_are_sound(case in arb_case(), seed in any::<u64>()) {
        for test in GlobalEdfTest::ALL {
            let verdict = test.run(&case.tasks, case.m);
            if verdict.schedulable {
                check_no_miss(&case, PolicyKind::GlobalEdf, test.cli_name(), &verdict, seed)?;
            }
        }
    }

    #[test]
    fn global_fp_tests_are_sound(case in arb_case(), seed in any::<u64>()) {
        let order = rate_monotonic_order(&case.tasks);
        let tests: [(&str, Verdict); 3] = [
            ("gfp-bc", bertogna_cirinei::is_schedulable(&case.tasks, case.m)),
            ("gfp-bc-schedcat", bertogna_cirinei::is_schedulable_schedcat_rm(&case.tasks, case.m)),
            ("gfp-guan", guan::is_schedulable_with_order(&case.tasks, case.m, &order)),
        ];
        for (name, verdict) in &tests {
            if verdict.schedulable {
                check_no_miss(&case, PolicyKind::GlobalFp, name, verdict, seed)?;
            }
        }
    }

    #[test]
    fn gedzl_test_is_sound(case in arb_case(), seed in any::<u64>()) {
        let own = gedzl::is_schedulable_by_zero_laxity(&case.tasks, case.m);
        if own.schedulable {
            check_no_miss(&case, PolicyKind::GlobalEdzl, "gedzl (Theorem 1)", &own, seed)?;
        }
        let full = gedzl::is_schedulable(&case.tasks, case.m);
        if full.schedulable && !own.schedulable {
            check_no_miss(&case, PolicyKind::GlobalEdzl, "gedzl (Theorem 2)", &full, seed)?;
        }
    }

    /// Relations that are theorems (see each module's documentation).
    #[test]
    fn dominance_relations(case in arb_case()) {
        let (tasks, m) = (&case.tasks, case.m);
        if bcl::is_schedulable(tasks, m).schedulable {
            let bcli = bcl_iterative::is_schedulable(tasks, m).schedulable;
            prop_assert!(bcli, "BCL but not BCLI: {:?}", case);
        }
        let schedcat = bertogna_cirinei::is_schedulable_schedcat_rm(tasks, m);
        let paper = bertogna_cirinei::is_schedulable(tasks, m);
        if schedcat.schedulable {
            prop_assert!(paper.schedulable, "cap made it worse: {:?}", case);
            let (rs, rp) = (schedcat.response_times.unwrap(), paper.response_times.unwrap());
            prop_assert!(rp.iter().zip(&rs).all(|(p, s)| p <= s), "{:?} {:?}", rp, rs);
        }
        let edzl = gedzl::is_schedulable(tasks, m).schedulable;
        for test in GlobalEdfTest::ALL {
            if test.run(tasks, m).schedulable {
                prop_assert!(edzl, "{} accepts but G-EDZL does not: {:?}", test.cli_name(), case);
            }
        }
        let preconditions = utilization_at_most(tasks, m);
        if preconditions && no_task_can_reach_zero_laxity(tasks, m) {
            prop_assert!(gedzl::is_schedulable_by_zero_laxity(tasks, m).schedulable, "{:?}", case);
        }
        if preconditions && tasks.len() <= m {
            prop_assert!(gedzl::is_schedulable_by_zero_laxity(tasks, m).schedulable, "{:?}", case);
        }
    }
}

/// The generator must produce accepted sets for every test, or the soundness checks above
/// would be vacuous. Counts over a fixed sample.
#[test]
fn generated_sets_exercise_every_test() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arb_case();
    let mut accepted = std::collections::BTreeMap::<&str, usize>::new();
    let mut rejected_by_all_edf = 0;
    for _ in 0..2000 {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let mut any_edf = false;
        for test in GlobalEdfTest::ALL {
            let ok = test.run(&case.tasks, case.m).schedulable;
            any_edf |= ok;
            *accepted.entry(test.cli_name()).or_default() += usize::from(ok);
        }
        rejected_by_all_edf += usize::from(!any_edf);
        let fp = bertogna_cirinei::is_schedulable(&case.tasks, case.m).schedulable;
        *accepted.entry("gfp-bc").or_default() += usize::from(fp);
        let guan = guan::is_schedulable(&case.tasks, case.m).schedulable;
        *accepted.entry("gfp-guan").or_default() += usize::from(guan);
        let own = gedzl::is_schedulable_by_zero_laxity(&case.tasks, case.m).schedulable;
        *accepted.entry("gedzl-theorem-1").or_default() += usize::from(own && !any_edf);
    }
    eprintln!(
        "accepted out of 2000: {accepted:?}; rejected by every G-EDF test: {rejected_by_all_edf}"
    );
    for (name, count) in &accepted {
        assert!(
            *count >= 20,
            "{name} accepted only {count} of 2000 generated sets"
        );
    }
}

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
                    SporadicTask::new(v[0], v[1], v[2])
                } else {
                    SporadicTask::new(c, d, t)
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
                let valid =
                    |t: &SporadicTask| 0 < t.wcet && t.wcet <= t.deadline && t.deadline <= t.period;
                prop_assert!(tasks.iter().all(valid));
                if let Some(r) = v.response_times {
                    let within = |(r, t): (&u64, &SporadicTask)| t.wcet <= *r && *r <= t.deadline;
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
    let t = SporadicTask::new;
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

/// SchedCAT's `RTAGedf` written out with the plain fixed-point iteration: the slow obvious twin
/// of `global_edf::rta`. Response times if schedulable within 25 rounds.
fn plain_gedf_rta(tasks: &[SporadicTask], m: usize) -> Option<Vec<u64>> {
    let n = tasks.len();
    let mut slack = vec![0u64; n];
    let mut response = vec![0u64; n];
    let (mut updated, mut schedulable, mut round) = (true, n == 0, 0);
    while updated && !schedulable && round < 25 {
        round += 1;
        schedulable = true;
        updated = false;
        for k in 0..n {
            let tk = tasks[k];
            let estimate = |r: u64, slack: &[u64]| {
                let mut work = 0u64;
                for (i, ti) in tasks.iter().enumerate().filter(|&(i, _)| i != k) {
                    let jobs = tk.deadline / ti.period;
                    let rest = tk.deadline % ti.period;
                    let edf = jobs * ti.wcet + ti.wcet.min(rest.saturating_sub(slack[i]));
                    let span = r + ti.deadline - ti.wcet - slack[i];
                    let wl = span / ti.period * ti.wcet + ti.wcet.min(span % ti.period);
                    work += edf.min(wl).min(r - tk.wcet + 1);
                }
                tk.wcet + work / m as u64
            };
            let mut last = tk.wcet;
            let mut r = estimate(last, &slack);
            while last != r && r <= tk.deadline {
                last = r;
                r = estimate(last, &slack);
            }
            if r <= tk.deadline {
                response[k] = r;
                if tk.deadline - r != slack[k] {
                    slack[k] = tk.deadline - r;
                    updated = true;
                }
            } else {
                schedulable = false;
            }
        }
    }
    schedulable.then_some(response)
}

/// Bertogna-Cirinei G-FP in RM order with the plain iteration, capped or not: the slow twin of
/// `global_fp::bertogna_cirinei`.
fn plain_gfp_bc(tasks: &[SporadicTask], m: usize, cap: bool) -> Option<Vec<u64>> {
    let order = rate_monotonic_order(tasks);
    let mut response = vec![0u64; tasks.len()];
    for (rank, &k) in order.iter().enumerate() {
        let tk = tasks[k];
        let mut x = tk.wcet;
        if rank >= m {
            loop {
                let work: u64 = order[..rank]
                    .iter()
                    .map(|&i| {
                        let ti = tasks[i];
                        let span = x + response[i] - ti.wcet;
                        let wl = span / ti.period * ti.wcet + ti.wcet.min(span % ti.period);
                        if cap {
                            wl.min(x - tk.wcet + 1)
                        } else {
                            wl
                        }
                    })
                    .sum();
                let next = tk.wcet + work / m as u64;
                if next > tk.deadline {
                    return None;
                }
                if next == x {
                    break;
                }
                x = next;
            }
        }
        response[k] = x;
    }
    Some(response)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The accelerated fixed-point searches give exactly what the plain iterations give.
    #[test]
    fn response_time_analyses_match_their_plain_twins(case in arb_case()) {
        let (tasks, m) = (&case.tasks, case.m);
        prop_assume!(utilization_at_most(tasks, m));
        let ours = kairos_analysis::global_edf::rta::is_schedulable(tasks, m).response_times;
        prop_assert_eq!(ours, plain_gedf_rta(tasks, m), "G-EDF RTA on {:?}", case);
        let paper = bertogna_cirinei::is_schedulable(tasks, m).response_times;
        prop_assert_eq!(paper, plain_gfp_bc(tasks, m, true), "G-FP BC on {:?}", case);
        let schedcat = bertogna_cirinei::is_schedulable_schedcat_rm(tasks, m).response_times;
        let plain = plain_gfp_bc(tasks, m, false);
        prop_assert_eq!(schedcat, plain, "G-FP BC (SchedCAT) on {:?}", case);
    }
}
