//! Property: every table set kairos synthesizes (each policy, and the federated baseline) is
//! valid for the independent validator (`kairos-validate`) and for the brute-force checker of
//! `common`, on random systems with 2, 3 and 4 levels.

mod common;

use common::{dag, system, task, violations};
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_mc::{federated, measure, synthesize, Policy, SynthOptions, Synthesis};
use kairos_model::McSystem;
use proptest::prelude::*;

/// Both validators agree the tables are right.
fn assert_valid(system: &McSystem, out: &Synthesis, what: &str) {
    let report = kairos_validate::validate(system, &out.tables);
    let listed: Vec<String> = report.violations.iter().map(|v| v.to_string()).collect();
    assert!(report.is_valid(), "{what}: kairos-validate: {listed:?}");
    assert_eq!(
        violations(system, &out.tables),
        Vec::<String>::new(),
        "{what}"
    );
}

/// Synthesizes with every policy and the federated baseline; checks what comes out. Returns how
/// many of them produced tables.
fn check_all(system: &McSystem) -> usize {
    let mut accepted = 0;
    for policy in Policy::ALL {
        let options = SynthOptions {
            policy,
            cores: None,
        };
        if let Ok(out) = synthesize(system, &options) {
            assert_valid(system, &out, policy.name());
            // Same input, same tables.
            assert_eq!(synthesize(system, &options).unwrap().tables, out.tables);
            // Quality is computed from the built pieces: it must be what the tables give.
            assert_eq!(out.quality, measure(&out.tables), "{}", policy.name());
            accepted += 1;
        }
        if let Ok(out) = federated(system, &options) {
            assert_valid(system, &out, "federated");
        }
    }
    accepted
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Systems from the MC-DAG framework's generator (implicit deadlines).
    #[test]
    fn generated_systems(seed in any::<u64>(), levels in 2usize..=4, dags in 1usize..=2,
                         tasks in 4usize..=10, load in 0.3f64..0.9, cores in 2usize..=4) {
        let params = McDagParams {
            dags,
            tasks: tasks.max(levels),
            levels,
            utilization: load * cores as f64,
            cores,
            hyperperiod_base: Some(120),
            max_attempts: 50,
            seed,
            ..McDagParams::default()
        };
        let generated = generate_mcdag(&params);
        prop_assume!(generated.is_ok());
        check_all(&generated.unwrap());
    }

    /// Small hand-rolled systems: constrained deadlines, several periods, edges in any
    /// direction of criticality (paths through tasks absent at a level).
    #[test]
    fn constrained_systems(
        shape in prop::collection::vec(
            (prop::sample::select(vec![4u64, 6, 8, 12]), 0u64..=4,
             prop::collection::vec((1usize..=4, 1u64..=3, 0u64..=2), 1..=5),
             prop::collection::vec(any::<bool>(), 10)),
            1..=2),
        levels in 2usize..=4, cores in 1usize..=3,
    ) {
        let dags = shape.iter().enumerate().map(|(g, (period, cut, specs, edges))| {
            let tasks = specs.iter().enumerate().map(|(i, &(crit, base, step))| {
                let crit = crit.min(levels);
                let wcet: Vec<u64> = (0..crit as u64).map(|l| base + l * step).collect();
                task(&format!("t{i}"), &wcet)
            }).collect::<Vec<_>>();
            let n = tasks.len();
            let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect();
            let edges: Vec<(usize, usize)> = pairs.into_iter().zip(edges).filter(|(_, &e)| e).map(|(p, _)| p).collect();
            let deadline = (*period - cut.min(&(period / 2))).max(1);
            dag(&format!("g{g}"), *period, deadline, tasks, &edges)
        }).collect();
        let s = system(cores, levels, dags);
        check_all(&s);
    }
}

/// The generator's reference shape on 8 cores at moderate load: tables exist and are valid.
#[test]
fn reference_shape_is_mostly_accepted() {
    let mut accepted = 0;
    for seed in 0..10 {
        let params = McDagParams {
            utilization: 3.0,
            seed,
            ..McDagParams::default()
        };
        let s = generate_mcdag(&params).unwrap();
        let out = synthesize(&s, &SynthOptions::default());
        if let Ok(out) = out {
            assert_valid(&s, &out, "gedzl");
            accepted += 1;
        }
    }
    assert!(
        accepted >= 5,
        "only {accepted}/10 accepted at U = 3 on 8 cores"
    );
}
