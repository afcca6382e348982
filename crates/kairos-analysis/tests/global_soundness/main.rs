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
//! - (the accelerated fixed-point searches against their plain twins are in
//!   `tests/response_time_twins.rs`);
//! - no entry point panics on extreme inputs.

mod extremes;

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
                    task_ns(wcet, deadline, period)
                })
                .collect();
            Case { m, tasks }
        })
}

/// A task of `(C, D, T)` nanoseconds.
fn task_ns(wcet: u64, deadline: u64, period: u64) -> SporadicTask {
    let ns = Duration::from_nanos;
    SporadicTask::new(ns(wcet), ns(deadline), ns(period))
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
    let hyper = case.tasks.iter().map(|t| t.period.as_nanos()).fold(1, lcm);
    let max_deadline = case
        .tasks
        .iter()
        .map(|t| t.deadline.as_nanos())
        .max()
        .unwrap_or(0);
    let mut max_offset = 0;
    let tasks = case
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let offset = match arrivals {
                Arrivals::Offsets(seed) => {
                    (seed.wrapping_mul(i as u64 * 7919 + 13) % 1000) * t.period.as_nanos() / 1000
                }
                _ => 0,
            };
            max_offset = max_offset.max(offset);
            let arrival = match arrivals {
                Arrivals::Sporadic(_) => Arrival::Sporadic {
                    max_interarrival: Duration::from_nanos(2 * t.period.as_nanos()),
                },
                _ => Arrival::Periodic,
            };
            Task {
                name: format!("t{i}"),
                wcet: t.wcet,
                bcet: t.wcet,
                period: t.period,
                deadline: t.deadline,
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
                    observed <= bound.as_nanos(),
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
        let laxity = u128::from(tk.deadline.as_nanos() - tk.wcet.as_nanos());
        let sum: u128 = tasks
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, ti)| {
                let jobs = tk.deadline.as_nanos() / ti.period.as_nanos();
                let rest = tk.deadline.as_nanos() - jobs * ti.period.as_nanos();
                (u128::from(jobs * ti.wcet.as_nanos()) + u128::from(ti.wcet.as_nanos().min(rest)))
                    .min(laxity)
            })
            .sum();
        sum < m as u128 * laxity
    })
}

fn utilization_at_most(tasks: &[SporadicTask], m: usize) -> bool {
    let hyper = tasks.iter().map(|t| t.period.as_nanos()).fold(1, lcm);
    tasks
        .iter()
        .map(|t| u128::from(t.wcet.as_nanos() * (hyper / t.period.as_nanos())))
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
