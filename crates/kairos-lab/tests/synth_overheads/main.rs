//! Overhead-aware tables (`kairos synth --overheads`, the slot guard of
//! `kairos_analysis::overheads::tables`): a hand-worked system whose verdict the guard changes,
//! and, on seeded generated MC-DAG systems and measured-looking profiles, tables that the
//! independent validator accepts and that hold every job's WCET when a run charges costs drawn
//! up to the charged quantile, mode changes included ([`run`]).

mod run;

use kairos_analysis::overheads::tables::{guard, Guarded, Refusal};
use kairos_analysis::overheads::{Charges, Quantile};
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_lab::synth::{synthesize_tables, OverheadRequest, Request, Summary};
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{Cost, Dag, Duration, McSystem, McTask, Overheads, Quantiles, TableSet};
use kairos_validate::ViolationKind;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use run::{job_intervals, JobRun, Losses};
use std::cell::RefCell;
use std::collections::HashMap;

fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

/// A profile whose every cost is fixed: timer lateness `ev`, decision 5 us, switch 15 us,
/// migration 30 us, doorbell 8 us.
fn profile(ev: Duration) -> Overheads {
    Overheads {
        release_latency: Cost::Fixed(ev),
        scheduling: Cost::Fixed(us(5)),
        context_switch: Cost::Fixed(us(15)),
        migration: Cost::Fixed(us(30)),
        ipi: Cost::Fixed(us(8)),
        ..Overheads::default()
    }
}

/// One core, one DAG of period and deadline 6 ms: `a` (1 ms, 2 ms at HI) before `b` (2 ms,
/// LO only). Ideally LO needs 3 of its 6 slots, HI 2.
fn chain() -> McSystem {
    let task = |name: &str, wcet: &[u64]| McTask {
        name: name.into(),
        wcet: wcet.iter().map(|&w| us(w)).collect(),
    };
    McSystem {
        name: None,
        cores: 1,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g".into(),
            period: us(6000),
            deadline: us(6000),
            tasks: vec![task("a", &[1000, 2000]), task("b", &[2000])],
            edges: vec![(0, 1)],
        }],
    }
}

fn synth(system: &McSystem, overheads: Option<Overheads>) -> Summary {
    let request = Request {
        file: "chain".into(),
        policy: "gedzl".into(),
        cores: None,
        out: None,
        overheads: overheads.map(|profile| OverheadRequest {
            profile,
            quantile: Quantile::Max,
        }),
    };
    synthesize_tables(&request, system).unwrap().summary
}

/// Each job's total time in each level's table, by `task#job`.
fn totals(tables: &TableSet) -> Vec<HashMap<String, u64>> {
    (tables.tables.iter())
        .map(|table| {
            let mut sum = HashMap::new();
            for iv in &table.intervals {
                *sum.entry(format!("{}#{}", iv.task, iv.job)).or_default() += iv.end - iv.start;
            }
            sum
        })
        .collect()
}

#[test]
fn the_guard_changes_the_slot_count_and_the_verdict() {
    let system = chain();
    assert!(matches!(synth(&system, None), Summary::Schedulable(_)));
    // Δev 20 us: g = 2 x 20 + 5 + 15 = 60 us of each 1 ms slot, Δmc = 5 + 15 = 20 us.
    // a: 1000 / 940 -> 2 slots at LO, (2000 + 20) / 940 -> 3 at HI; b: 2000 / 940 -> 3.
    // LO needs 2 + 3 = 5 of 6 slots: still schedulable.
    let Summary::Schedulable(small) = synth(&system, Some(profile(us(20)))) else {
        panic!("5 of 6 slots fit")
    };
    let charged = small.overheads.unwrap();
    assert_eq!(charged.slot_guard.guard, us(60));
    assert_eq!(charged.usable_ns, 940_000);
    let inflated: Vec<_> = charged
        .tasks
        .iter()
        .map(|t| t.inflated_wcet.clone())
        .collect();
    assert_eq!(inflated, vec![vec![us(2000), us(3000)], vec![us(3000)]]);
    let request = Request {
        file: "chain".into(),
        policy: "gedzl".into(),
        cores: None,
        out: None,
        overheads: Some(OverheadRequest {
            profile: profile(us(20)),
            quantile: Quantile::Max,
        }),
    };
    let tables = synthesize_tables(&request, &system)
        .unwrap()
        .synthesis
        .unwrap()
        .tables;
    let [lo, hi] = &totals(&tables)[..] else {
        panic!("two levels")
    };
    assert_eq!(
        (lo["g/a#0"], lo["g/b#0"], hi["g/a#0"]),
        (2_000_000, 3_000_000, 3_000_000)
    );
    // Δev 260 us: g = 540 us, 460 us usable: a 1000 / 460 -> 3 slots, b 2000 / 460 -> 5;
    // 8 slots at LO in a 6 ms window: no table.
    let Summary::NotSchedulable(big) = synth(&system, Some(profile(us(260)))) else {
        panic!("8 slots cannot fit in 6")
    };
    let charged = big.overheads.unwrap();
    assert_eq!(
        (charged.slot_guard.guard, charged.usable_ns),
        (us(540), 460_000)
    );
    assert!(big.reason.contains("level LO"), "{}", big.reason);
    // Δev 500 us: g = 1020 us, more than the slot: refused before synthesis.
    let Summary::NotSchedulable(full) = synth(&system, Some(profile(us(500)))) else {
        panic!("no usable time")
    };
    assert!(
        full.reason.contains("no slot keeps any time"),
        "{}",
        full.reason
    );
    assert_eq!(full.overheads.unwrap().usable_ns, 0);
}

/// A profile of measured-looking costs on a system of slot `slot`: per role (Δev, Δsch, Δcxs,
/// Δcpmd, Δipi) five thousandths of the slot, sorted into its min, p50, p90, p99 and max.
fn profile_for(slot: Duration, per_mille: [[u64; 5]; 5]) -> Overheads {
    let cost = |mut points: [u64; 5]| {
        points.sort_unstable();
        let at = points.map(|p| Duration::from_nanos(slot.as_nanos() * p / 1000));
        Cost::Measured(Quantiles::from_values(at).expect("sorted"))
    };
    Overheads {
        release_latency: cost(per_mille[0]),
        scheduling: cost(per_mille[1]),
        context_switch: cost(per_mille[2]),
        migration: cost(per_mille[3]),
        ipi: cost(per_mille[4]),
        ..Overheads::default()
    }
}

/// The probability of `quantile`'s point of a distribution, as the test reads it. The profiles
/// here carry no p999, so a p999 charge is their max (`Quantile::of`) and draws may reach it.
fn probability(quantile: Quantile) -> f64 {
    match quantile {
        Quantile::P99 => 0.99,
        Quantile::P999 | Quantile::Max => 1.0,
    }
}

/// Synthesizes the guarded system and checks its tables; whether there were tables.
fn check_guarded(
    system: &McSystem,
    guarded: &Guarded,
    changes_seed: &[u64],
    losses: &mut Losses,
) -> Result<bool, TestCaseError> {
    let Ok(out) = synthesize(&guarded.system, &SynthOptions::default()) else {
        return Ok(false);
    };
    let report = kairos_validate::validate(&guarded.system, &out.tables);
    prop_assert!(
        report.is_valid(),
        "inflated system: {:?}",
        report.violations
    );
    // Against the original WCETs only the budgets differ: every job receives more.
    let original = kairos_validate::validate(system, &out.tables);
    for v in &original.violations {
        prop_assert_eq!(v.kind, ViolationKind::Budget, "{}", v);
    }
    let h = out.tables.hyperperiod;
    let s = guarded.guard.slot.as_nanos();
    let mut changes: Vec<u64> = changes_seed.iter().map(|r| r % (h / s + 1) * s).collect();
    changes.sort_unstable();
    let wcets: HashMap<String, &Vec<Duration>> = (guarded.tasks.iter())
        .map(|t| (t.task.clone(), &t.wcet))
        .collect();
    for ((task, job), intervals) in job_intervals(&out.tables) {
        let wcet = wcets[&task];
        for asks in 0..wcet.len() {
            let run = JobRun {
                intervals: &intervals,
                top: wcet.len() - 1,
                asks,
                demand: wcet[asks].as_nanos(),
                slot: s,
            };
            let verdict = run.check(&changes[..system.levels.len() - 1], losses);
            prop_assert!(
                verdict.is_ok(),
                "{}#{} asking level {}, mode changes at {:?}: {:?}",
                task,
                job,
                asks,
                changes,
                verdict
            );
        }
    }
    Ok(true)
}

fn generated(seed: u64, levels: usize, tasks: usize, load: f64, cores: usize) -> Option<McSystem> {
    let params = McDagParams {
        dags: 1,
        tasks: tasks.max(levels),
        levels,
        utilization: load * cores as f64,
        cores,
        hyperperiod_base: Some(120),
        seed,
        ..McDagParams::default()
    };
    generate_mcdag(&params).ok()
}

/// How the generated cases ended.
#[derive(Debug, Default)]
struct Outcomes {
    /// The generator found no system for the parameters.
    not_generated: usize,
    /// The guard left a task no room before synthesis.
    refused: usize,
    /// Synthesis found no table for the guarded system.
    no_table: usize,
    /// Tables synthesized, validated and run.
    checked: usize,
}

/// One generated case: the system's shape, the profile's points per role (thousandths of the
/// slot), the quantile charged, the mode-change draws and the seed of the run's costs.
#[derive(Clone, Debug)]
struct Case {
    shape: (u64, usize, usize, u32, usize),
    costs: [[u64; 5]; 5],
    quantile: Quantile,
    changes: Vec<u64>,
    draw_seed: u64,
}

/// Generates, guards, synthesizes and runs `case`, counting how it ended in `outcomes`.
fn check_case(case: Case, outcomes: &RefCell<Outcomes>) -> Result<(), TestCaseError> {
    let (seed, levels, tasks, tenths, cores) = case.shape;
    let load = f64::from(tenths) / 10.0;
    let Some(system) = generated(seed, levels, tasks, load, cores) else {
        outcomes.borrow_mut().not_generated += 1;
        return Ok(());
    };
    let profile = profile_for(system.slot().expect("a grid"), case.costs);
    let charges = Charges::at(&profile, case.quantile);
    let guarded = match guard(&system, cores, &charges) {
        Ok(guarded) => guarded,
        Err(Refusal::GuardFillsSlot(_) | Refusal::TooLong { .. }) => {
            outcomes.borrow_mut().refused += 1;
            return Ok(());
        }
        Err(Refusal::NoSlot) => panic!("a generated system has a grid"),
    };
    let mut losses = Losses {
        profile,
        cores,
        top: probability(case.quantile),
        state: case.draw_seed,
    };
    match check_guarded(&system, &guarded, &case.changes, &mut losses)? {
        true => outcomes.borrow_mut().checked += 1,
        false => outcomes.borrow_mut().no_table += 1,
    }
    Ok(())
}

/// Every table synthesized with the guard of a profile at a quantile is valid for the inflated
/// system, differs from the original only by larger budgets, and holds each job's WCET in every
/// mode it can run in when the run draws each cost up to that quantile. Not vacuous: most
/// cases must reach the run (every case is counted by how it ended).
#[test]
fn guarded_tables_hold_every_wcet() {
    let cases = 128;
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let shape = (any::<u64>(), 2usize..=3, 4usize..=10, 1u32..=5, 1usize..=3);
    let costs = prop::array::uniform5(prop::array::uniform5(0u64..=50));
    let quantile = prop_oneof![Just(Quantile::P99), Just(Quantile::Max)];
    let draws = (prop::collection::vec(any::<u64>(), 2), any::<u64>());
    let outcomes = RefCell::new(Outcomes::default());
    runner
        .run(
            &(shape, costs, quantile, draws),
            |(shape, costs, quantile, (changes, draw_seed))| {
                let case = Case {
                    shape,
                    costs,
                    quantile,
                    changes,
                    draw_seed,
                };
                check_case(case, &outcomes)
            },
        )
        .unwrap();
    let outcomes = outcomes.into_inner();
    println!("{outcomes:?} of {cases} cases");
    assert!(
        outcomes.checked * 2 >= cases as usize,
        "fewer than half the cases reached a run: {outcomes:?}"
    );
}

/// The case an earlier version of the property failed on, as proptest shrank it: one core, two
/// levels, six tasks at half load, fixed costs of 39, 36 and 22 thousandths of the slot for
/// the timer, the decision and the switch, and the mode change at the start of the
/// hyper-period. The property now draws from a fixed seed and keeps no regression file, so
/// the case is pinned here: it must reach a run and hold.
#[test]
fn a_mode_change_at_the_start_with_fixed_costs_holds_every_wcet() {
    let fixed = |per_mille: u64| [per_mille; 5];
    let case = Case {
        shape: (16_486_939_274_990_586_715, 2, 6, 5, 1),
        costs: [fixed(39), fixed(36), fixed(22), fixed(0), fixed(0)],
        quantile: Quantile::Max,
        changes: vec![1_751_360_577_249_128_010, 0],
        draw_seed: 0,
    };
    let outcomes = RefCell::new(Outcomes::default());
    check_case(case, &outcomes).unwrap();
    assert_eq!(outcomes.into_inner().checked, 1, "the case reaches a run");
}
