//! Overhead-aware compositional analysis against the two-level simulator charging the same
//! overheads: a VM system `kairos_analysis::csa::analyze_with_overheads` accepts, run on the
//! VCPUs it computed, has no miss when every switch-in pays the scheduling and context-switch
//! costs (synchronous releases, every job its WCET, rt-global and rt-partition, deferrable and
//! periodic servers). Non-vacuous: a share of the systems must be accepted, overheads must
//! refuse some system the ideal analysis accepts, and some system on the ideal budgets must
//! miss under those charges.

use kairos_analysis::csa::{analyze, analyze_with_overheads, with_vcpus};
use kairos_analysis::overheads::Charges;
use kairos_model::vm_load::check_vm_source;
use kairos_model::{Duration, Format, Overheads, VmSystem};
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_sim::vm::simulate_vm;
use kairos_sim::SimConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Task periods in ms (hyper-period 40 ms).
const PERIODS_MS: [u64; 3] = [10, 20, 40];

#[derive(Clone, Debug)]
struct Case {
    text: String,
    scheduling_us: u64,
    switch_us: u64,
}

/// Two domains (a gEDF and a pEDF guest) of 1-3 tasks each, 1-6 ms of WCET per 10 ms of
/// period, on 2 cores, VCPUs of 5 ms computed by the analysis.
fn arb_case() -> impl Strategy<Value = Case> {
    let task = (0..PERIODS_MS.len(), 1u64..=6);
    let domain = prop::collection::vec(task, 1..=3);
    let vmm = (
        prop::sample::select(vec!["rt-global", "rt-partition"]),
        prop::sample::select(vec!["deferrable", "periodic"]),
    );
    (vmm, domain.clone(), domain, 0u64..=40, 0u64..=40).prop_map(
        |((scheduler, server), a, b, scheduling_us, switch_us)| {
            let mut text = format!(
                "cores = 2\n[vmm]\nscheduler = \"{scheduler}\"\npriority = \"edf\"\n\
                 server = \"{server}\"\nvcpu_period = \"5ms\"\n"
            );
            for (name, guest, tasks) in [("a", "gedf", a), ("b", "pedf", b)] {
                text.push_str(&format!(
                    "[[domains]]\nname = \"{name}\"\nguest = \"{guest}\"\nvcpus = \"auto\"\n"
                ));
                for (k, (p, load)) in tasks.into_iter().enumerate() {
                    let period = PERIODS_MS[p];
                    let wcet_us = load * period * 100;
                    text.push_str(&format!(
                        "[[domains.tasks]]\nname = \"t{k}\"\nwcet = \"{wcet_us}us\"\nperiod = \"{period}ms\"\n"
                    ));
                }
            }
            Case {
                text,
                scheduling_us,
                switch_us,
            }
        },
    )
}

fn system(case: &Case) -> VmSystem {
    let checked = check_vm_source(&case.text, Format::Toml);
    checked.system.expect("a valid system")
}

/// Deadline misses of `system` on the VCPUs of `report`, charged `overheads`, over 3 hyper-periods.
fn misses(
    system: &VmSystem,
    report: &kairos_analysis::csa::CsaReport,
    overheads: Overheads,
) -> u64 {
    let resolved = with_vcpus(system, report).expect("every domain has VCPUs");
    let plan = VmPlan::new(&resolved).expect("a plan");
    let config = SimConfig {
        duration: Duration::from_millis(120),
        overheads,
        ..SimConfig::default()
    };
    let (outcome, _) = simulate_vm(&plan, &config).expect("the simulation runs");
    outcome.metrics.deadline_misses
}

#[test]
fn systems_accepted_with_overheads_do_not_miss_when_charged() {
    let config = Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let counts = std::cell::Cell::new((0usize, 0usize));
    let ideal_missed = std::cell::Cell::new(0usize);
    runner
        .run(&arb_case(), |case| {
            let s = system(&case);
            let charges = Charges {
                scheduling: Duration::from_micros(case.scheduling_us),
                context_switch: Duration::from_micros(case.switch_us),
                ..Charges::default()
            };
            let aware = analyze_with_overheads(&s, &charges);
            let (accepted, refused) = counts.get();
            let ideal_report = analyze(&s);
            let ideal = ideal_report.schedulable == Some(true);
            let overheads =
                Overheads::fixed(charges.scheduling, charges.context_switch, Duration::ZERO);
            if ideal && misses(&s, &ideal_report, overheads) > 0 {
                ideal_missed.set(ideal_missed.get() + 1);
            }
            if aware.schedulable != Some(true) {
                counts.set((accepted, refused + usize::from(ideal)));
                return Ok(());
            }
            counts.set((accepted + 1, refused));
            let overheads =
                Overheads::fixed(charges.scheduling, charges.context_switch, Duration::ZERO);
            prop_assert_eq!(misses(&s, &aware, overheads), 0, "{}", case.text);
            Ok(())
        })
        .unwrap();
    let (accepted, refused) = counts.get();
    let ideal_missed = ideal_missed.get();
    println!("accepted with overheads: {accepted}; ideal yes, with overheads no: {refused}; ideal budgets missing when charged: {ideal_missed}");
    assert!(
        ideal_missed > 0,
        "the ideal budgets never missed: the charges test nothing"
    );
    assert!(accepted >= 30, "only {accepted} systems accepted");
    assert!(refused > 0, "overheads never changed a verdict");
}
