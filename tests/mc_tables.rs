//! The synthesizer against the independent validator (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section
//! 4.2; notes/mixed-criticality.md: kairos "must never emit a table that its own independent
//! validator rejects").
//!
//! 1. Cross-check: systems from the MC-DAG generator with 2, 3 and 4 levels, synthesized with
//!    each slot policy; every table set `kairos_mc::synthesize` emits passes
//!    `kairos_validate::validate`.
//! 2. Mutations: each accepted table set is broken in ways the semantics forbid (an interval
//!    shortened, moved onto a busy core, moved past its deadline, two owners swapped, a successor
//!    started before its predecessor ends, a higher-level unit moved earlier); the validator must
//!    reject each mutant with the violation kind that mutation guarantees.

use kairos_gen::mcdag::{generate_mcdag_with, McDagParams};
use kairos_gen::seeded;
use kairos_mc::{synthesize, Policy, SynthOptions};
use kairos_model::{Duration, McSystem, TableSet};
use kairos_validate::{validate, ViolationKind};
use proptest::prelude::*;

/// Small systems: 1-2 DAGs of `levels..levels + 6` tasks, periods dividing 120 slots, 2-4 cores,
/// utilization a fraction of what the cores and the highest level's tasks allow.
fn system(levels: usize) -> impl Strategy<Value = McSystem> {
    (
        1usize..=2,
        0usize..=6,
        2usize..=4,
        0.2f64..1.0,
        0.0f64..=0.8,
        any::<u64>(),
    )
        .prop_filter_map(
            "the generator found no system",
            move |(dags, extra, cores, load, e, seed)| {
                let tasks = levels + extra;
                let top = 1 + extra / levels;
                let utilization = load * (cores as f64).min((dags * top) as f64);
                let params = McDagParams {
                    dags,
                    tasks,
                    levels,
                    utilization,
                    edge_probability: e,
                    cores,
                    slot: Duration::from_millis(1),
                    hyperperiod_base: Some(120),
                    max_attempts: 200,
                    seed,
                    ..McDagParams::default()
                };
                generate_mcdag_with(&mut seeded(seed), &params).ok()
            },
        )
}

fn policy() -> impl Strategy<Value = Policy> {
    prop::sample::select(Policy::ALL.to_vec())
}

/// Synthesizes; `None` when the heuristic finds no schedule (a "no", not an error).
fn tables_of(system: &McSystem, policy: Policy) -> Option<TableSet> {
    let options = SynthOptions {
        policy,
        cores: None,
    };
    synthesize(system, &options).ok().map(|s| s.tables)
}

/// Every accepted table set is valid, and every mutant of it is rejected. A system the
/// synthesizer refuses is not a case (`prop_assume!`).
fn cross_check(system: &McSystem, policy: Policy, pick: usize) -> Result<(), TestCaseError> {
    let tables = tables_of(system, policy);
    prop_assume!(tables.is_some(), "no schedule found");
    let tables = tables.expect("assumed");
    let report = validate(system, &tables);
    prop_assert!(report.is_valid(), "{:#?}", report.violations);
    for (name, mutate, kind) in mutations() {
        let mut mutant = tables.clone();
        if mutate(system, &mut mutant, pick) {
            let report = validate(system, &mutant);
            prop_assert!(
                report.has(kind),
                "{name}: expected {kind:?}, got {:#?}",
                report.violations
            );
        }
    }
    Ok(())
}

type Mutation = fn(&McSystem, &mut TableSet, usize) -> bool;

/// Each mutation (applied when the tables offer a place for it) and what it must cause.
fn mutations() -> [(&'static str, Mutation, ViolationKind); 6] {
    [
        ("shorten", shorten, ViolationKind::Budget),
        (
            "onto a busy core",
            onto_busy_core,
            ViolationKind::CoreOverlap,
        ),
        (
            "past the deadline",
            past_deadline,
            ViolationKind::OutsideWindow,
        ),
        ("swap owners", swap_owners, ViolationKind::Budget),
        (
            "successor first",
            successor_first,
            ViolationKind::Precedence,
        ),
        (
            "higher level earlier",
            higher_level_earlier,
            ViolationKind::UnsafeTransition,
        ),
    ]
}

/// The `pick`-th interval of a non-empty level, as (level, index).
fn nth(tables: &TableSet, pick: usize) -> Option<(usize, usize)> {
    let all: Vec<(usize, usize)> = tables
        .tables
        .iter()
        .enumerate()
        .flat_map(|(l, t)| (0..t.intervals.len()).map(move |i| (l, i)))
        .collect();
    all.get(pick % all.len().max(1)).copied()
}

/// One interval loses half its length: its job no longer gets exactly its WCET.
fn shorten(_: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let Some((l, i)) = nth(tables, pick) else {
        return false;
    };
    let interval = &mut tables.tables[l].intervals[i];
    interval.end -= (interval.end - interval.start).div_ceil(2);
    true
}

/// An interval moves to the core of another interval that overlaps it in time (levels tried
/// from the `pick`-th on).
fn onto_busy_core(_: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let levels = tables.tables.len();
    for step in 0..levels {
        let table = &mut tables.tables[(pick + step) % levels];
        let found = table.intervals.iter().enumerate().find_map(|(a, x)| {
            table.intervals.iter().find_map(|y| {
                (y.core != x.core && y.start < x.end && x.start < y.end).then_some((a, y.core))
            })
        });
        if let Some((a, core)) = found {
            table.intervals[a].core = core;
            return true;
        }
    }
    false
}

/// An interval moves to start at its job's deadline.
fn past_deadline(system: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let Some((l, i)) = nth(tables, pick) else {
        return false;
    };
    let interval = &mut tables.tables[l].intervals[i];
    let Some(task) = system.find_task(&interval.task) else {
        return false;
    };
    let dag = &system.dags[task.dag];
    let due = interval.job * dag.period.as_nanos() + dag.deadline.as_nanos();
    let length = interval.end - interval.start;
    interval.start = due;
    interval.end = due + length;
    true
}

/// Two intervals of different jobs and different lengths exchange owners: both jobs' totals
/// change.
fn swap_owners(_: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let Some((l, i)) = nth(tables, pick) else {
        return false;
    };
    let intervals = &mut tables.tables[l].intervals;
    let x = intervals[i].clone();
    let other = intervals
        .iter()
        .position(|y| (y.task != x.task || y.job != x.job) && y.end - y.start != x.end - x.start);
    let Some(j) = other else { return false };
    let y = intervals[j].clone();
    (intervals[i].task, intervals[i].job) = (y.task, y.job);
    (intervals[j].task, intervals[j].job) = (x.task, x.job);
    true
}

/// For an edge `a -> b` with both at a level, b's first interval of some job moves to start just
/// before a's job ends.
fn successor_first(system: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let edges: Vec<(usize, String, String)> = (0..tables.tables.len())
        .flat_map(|l| {
            system.dags.iter().flat_map(move |dag| {
                dag.edges.iter().filter_map(move |&(a, b)| {
                    let (ta, tb) = (&dag.tasks[a], &dag.tasks[b]);
                    (ta.runs_at(l) && tb.runs_at(l)).then(|| {
                        (
                            l,
                            format!("{}/{}", dag.name, ta.name),
                            format!("{}/{}", dag.name, tb.name),
                        )
                    })
                })
            })
        })
        .collect();
    let Some((l, a, b)) = edges.get(pick % edges.len().max(1)).cloned() else {
        return false;
    };
    let intervals = &mut tables.tables[l].intervals;
    let a_end = intervals
        .iter()
        .filter(|i| *i.task == *a && i.job == 0)
        .map(|i| i.end)
        .max();
    let b_first = intervals
        .iter()
        .enumerate()
        .filter(|(_, i)| *i.task == *b && i.job == 0)
        .min_by_key(|(_, i)| i.start)
        .map(|(index, _)| index);
    let (Some(a_end), Some(index)) = (a_end, b_first) else {
        return false;
    };
    let length = intervals[index].end - intervals[index].start;
    intervals[index].start = a_end - 1;
    intervals[index].end = a_end - 1 + length;
    true
}

/// A job's first interval in table `l + 1` moves to start one nanosecond before the job's first
/// start in table `l`: right then, table `l + 1` has given it more.
fn higher_level_earlier(_: &McSystem, tables: &mut TableSet, pick: usize) -> bool {
    let levels = tables.tables.len();
    for step in 0..levels.saturating_sub(1) {
        let l = (pick + step) % (levels - 1);
        let (low, high) = tables.tables.split_at_mut(l + 1);
        let (low, high) = (&low[l].intervals, &mut high[0].intervals);
        let n = high.len();
        for k in 0..n {
            let h = (pick + k) % n;
            let (task, job) = (&high[h].task, high[h].job);
            let low_start = low
                .iter()
                .filter(|i| &i.task == task && i.job == job)
                .map(|i| i.start)
                .min();
            let high_first = high
                .iter()
                .enumerate()
                .filter(|(_, i)| &i.task == task && i.job == job)
                .min_by_key(|(_, i)| i.start)
                .map(|(index, _)| index);
            if let (Some(s), Some(index)) = (low_start.filter(|&s| s > 0), high_first) {
                let length = high[index].end - high[index].start;
                high[index].start = s - 1;
                high[index].end = s - 1 + length;
                return true;
            }
        }
    }
    false
}

/// 1000 accepted systems per level count; more than 500 refused draws fail the run, so at
/// least two thirds of the draws must be accepted for the cross-check to mean something.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1000,
        max_global_rejects: 500,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn two_levels(system in system(2), policy in policy(), pick in any::<usize>()) {
        cross_check(&system, policy, pick)?;
    }

    #[test]
    fn three_levels(system in system(3), policy in policy(), pick in any::<usize>()) {
        cross_check(&system, policy, pick)?;
    }

    #[test]
    fn four_levels(system in system(4), policy in policy(), pick in any::<usize>()) {
        cross_check(&system, policy, pick)?;
    }
}

/// The reference protocol's shape (1 DAG of 30 tasks, 8 cores, e = 0.4) at several loads: every
/// table the synthesizer emits is valid.
#[test]
fn reference_protocol_tables_are_valid() {
    let mut accepted = 0;
    for step in 0..8 {
        for seed in 0..5 {
            let params = McDagParams {
                utilization: 8.0 * (0.25 + 0.1 * step as f64),
                seed,
                ..McDagParams::default()
            };
            let system = kairos_gen::mcdag::generate_mcdag(&params).unwrap();
            for policy in Policy::ALL {
                if let Some(tables) = tables_of(&system, policy) {
                    accepted += 1;
                    let report = validate(&system, &tables);
                    assert!(
                        report.is_valid(),
                        "U = {}, seed {seed}, {policy:?}: {:#?}",
                        params.utilization,
                        report.violations
                    );
                }
            }
        }
    }
    assert!(accepted > 0, "no table was accepted at all");
}
