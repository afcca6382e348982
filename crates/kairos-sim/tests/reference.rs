//! The event-driven engine against a brute-force reference written here from the definitions:
//! time advances one tick at a time; at each tick the released, unfinished jobs are ranked by the
//! policy's total order and the `m` most important run for one tick. With integer task
//! parameters and no overheads every engine event falls on a tick, so both must give exactly the
//! same completion time for every job and the same set of missed jobs; with `abort_on_miss`,
//! the same set of aborted jobs too.
//!
//! EDZL is included: its order changes without job events only when a waiting job's laxity
//! reaches zero, which with integer parameters happens on a tick (the engine asks to be woken at
//! `deadline - remaining`), and a running job's laxity is constant. So re-ranking at every tick,
//! as the reference does, must agree with the engine exactly; no discretization slack is needed.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use kairos_model::{Task, Workload};
use kairos_policy::policies::partition::assign_cores;
use kairos_policy::PolicyKind;
use kairos_sim::SimConfig;
use proptest::prelude::*;

type Key = (u64, u64, u64, u64);

/// One job of the reference simulation, in ticks.
#[derive(Clone, Debug)]
struct RefJob {
    task: usize,
    index: u64,
    release: u64,
    deadline: u64,
    remaining: u64,
}

/// The job orders, written from their definitions (see the module docs of each policy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// (absolute deadline, release, task index, job index).
    Edf,
    /// (rate-monotonic rank: period then task index, job index).
    RateMonotonic,
    /// (0 if laxity <= 0 else 1, deadline, release, task index); laxity = deadline - now - remaining.
    Edzl,
}

/// What the reference says about a run over ticks `[0, horizon]`.
#[derive(Debug, PartialEq, Eq)]
struct RefOutcome {
    completions: BTreeMap<JobId, u64>,
    missed: BTreeSet<JobId>,
    aborted: BTreeSet<JobId>,
    released: usize,
}

/// Tasks as integer ticks: (wcet, period, deadline, offset).
fn ticks(t: &Task) -> (u64, u64, u64, u64) {
    let f = |d: kairos_model::Duration| {
        assert_eq!(d.as_nanos() % UNIT_NS, 0);
        d.as_nanos() / UNIT_NS
    };
    (f(t.wcet), f(t.period), f(t.deadline), f(t.offset))
}

/// Brute-force simulation. `group_of_task` splits tasks into independent groups of `capacity`
/// cores each (one group of `m` cores for a global policy; one core per group for a partitioned
/// one, which is `m` uniprocessors).
fn reference(
    w: &Workload,
    order: Order,
    group_of_task: &[usize],
    groups: usize,
    capacity: usize,
    horizon: u64,
    abort_on_miss: bool,
) -> RefOutcome {
    let params: Vec<_> = w.tasks.iter().map(ticks).collect();
    let mut by_rate: Vec<usize> = (0..params.len()).collect();
    by_rate.sort_by_key(|&i| (params[i].1, i));
    let mut rank = vec![0u64; params.len()];
    for (r, &i) in by_rate.iter().enumerate() {
        rank[i] = r as u64;
    }
    let key = |j: &RefJob, now: u64| -> Key {
        match order {
            Order::Edf => (j.deadline, j.release, j.task as u64, j.index),
            Order::RateMonotonic => (rank[j.task], j.index, 0, 0),
            Order::Edzl => {
                let laxity = j.deadline as i64 - now as i64 - j.remaining as i64;
                (u64::from(laxity > 0), j.deadline, j.release, j.task as u64)
            }
        }
    };

    let mut jobs: Vec<RefJob> = Vec::new();
    let mut next_index = vec![0u64; params.len()];
    let mut completions = BTreeMap::new();
    let mut released = 0;
    let mut aborted = BTreeSet::new();
    for now in 0..=horizon {
        // Jobs that finished during the last tick are already gone; with abort_on_miss, the
        // unfinished jobs whose deadline has come are removed before the releases.
        if abort_on_miss {
            jobs.retain(|j| {
                let late = j.deadline <= now;
                if late {
                    aborted.insert((j.task, j.index));
                }
                !late
            });
        }
        // Releases at `now` (also at the horizon itself: the run is the closed interval).
        for (i, &(wcet, period, deadline, offset)) in params.iter().enumerate() {
            if now >= offset && (now - offset) % period == 0 {
                jobs.push(RefJob {
                    task: i,
                    index: next_index[i],
                    release: now,
                    deadline: now + deadline,
                    remaining: wcet,
                });
                next_index[i] += 1;
                released += 1;
            }
        }
        if now == horizon {
            break;
        }
        // Rank the unfinished jobs of each group; the `capacity` best run for one tick.
        let mut ranked: Vec<Vec<(Key, usize)>> = vec![Vec::new(); groups];
        for (k, j) in jobs.iter().enumerate() {
            ranked[group_of_task[j.task]].push((key(j, now), k));
        }
        let mut finished = Vec::new();
        for group in &mut ranked {
            group.sort_unstable();
            for &(_, k) in group.iter().take(capacity) {
                jobs[k].remaining -= 1;
                if jobs[k].remaining == 0 {
                    finished.push(k);
                }
            }
        }
        finished.sort_unstable();
        for &k in finished.iter().rev() {
            let j = jobs.remove(k);
            completions.insert((j.task, j.index), now + 1);
        }
    }
    // Missed: finished after the deadline, aborted, or unfinished with the deadline inside the run.
    let mut missed: BTreeSet<JobId> = aborted.clone();
    missed.extend(
        jobs.iter()
            .filter(|j| j.deadline <= horizon)
            .map(|j| (j.task, j.index)),
    );
    for (task, index) in completions.keys() {
        let (_, period, deadline, offset) = params[*task];
        if completions[&(*task, *index)] > offset + index * period + deadline {
            missed.insert((*task, *index));
        }
    }
    RefOutcome {
        completions,
        missed,
        aborted,
        released,
    }
}

/// The engine's view of the same run.
fn engine(w: &Workload, kind: PolicyKind, horizon: u64, abort_on_miss: bool) -> RefOutcome {
    let config = SimConfig {
        duration: units(horizon),
        abort_on_miss,
        ..SimConfig::default()
    };
    let (outcome, trace) = run_traced(w, kind, &config);
    let jobs = jobs_of(&trace);
    let missed: BTreeSet<JobId> = jobs
        .iter()
        .filter(|(_, r)| r.misses > 0)
        .map(|(&id, _)| id)
        .collect();
    let aborted: BTreeSet<JobId> = jobs
        .iter()
        .filter(|(_, r)| r.abort.is_some())
        .map(|(&id, _)| id)
        .collect();
    assert_eq!(outcome.metrics.deadline_misses as usize, missed.len());
    assert_eq!(outcome.metrics.jobs_aborted as usize, aborted.len());
    RefOutcome {
        completions: completions_in_units(&jobs),
        missed,
        aborted,
        released: jobs.len(),
    }
}

fn compare(w: &Workload, kind: PolicyKind) {
    compare_with(w, kind, false);
}

fn compare_with(w: &Workload, kind: PolicyKind, abort_on_miss: bool) {
    let horizon = two_hyperperiods_after_offsets(w).as_nanos() / UNIT_NS;
    let (order, global) = match kind {
        PolicyKind::GlobalEdf => (Order::Edf, true),
        PolicyKind::GlobalFp => (Order::RateMonotonic, true),
        PolicyKind::GlobalEdzl => (Order::Edzl, true),
        PolicyKind::PartitionedEdf => (Order::Edf, false),
        PolicyKind::PartitionedFp => (Order::RateMonotonic, false),
        // On plain tasks the semi-fixed-priority family is rate-monotonic fixed priority.
        PolicyKind::GlobalRm | PolicyKind::GlobalRmwp => (Order::RateMonotonic, true),
        PolicyKind::PartitionedRm | PolicyKind::PartitionedRmwp => (Order::RateMonotonic, false),
    };
    let expected = if global {
        reference(
            w,
            order,
            &vec![0; w.tasks.len()],
            1,
            w.cores,
            horizon,
            abort_on_miss,
        )
    } else {
        // Partitioned = one uniprocessor per core, with the engine's task-to-core binding (the
        // binding heuristic itself is not what this test checks).
        reference(
            w,
            order,
            &assign_cores(w).expect("a checked workload").core_of_task,
            w.cores,
            1,
            horizon,
            abort_on_miss,
        )
    };
    let actual = engine(w, kind, horizon, abort_on_miss);
    assert_eq!(
        actual.released,
        expected.released,
        "{}: releases",
        kind.cli_name()
    );
    if actual.completions != expected.completions {
        let diff: Vec<_> = expected
            .completions
            .iter()
            .filter(|(id, t)| actual.completions.get(id) != Some(t))
            .map(|(id, t)| (id, t, actual.completions.get(id)))
            .take(5)
            .collect();
        panic!(
            "{}: completion times differ (job, reference, engine): {diff:?}\nworkload {w:?}",
            kind.cli_name()
        );
    }
    assert_eq!(
        actual.missed,
        expected.missed,
        "{}: missed jobs",
        kind.cli_name()
    );
    assert_eq!(
        actual.aborted,
        expected.aborted,
        "{}: aborted jobs",
        kind.cli_name()
    );
}

/// Tiny task sets: periods 2..=12 ticks without 7 and 11 (so 2H + offsets stays at most 725
/// ticks), 1..=5 tasks, D <= T, C <= D, offsets 0..=5.
fn arb_workload(max_cores: usize) -> impl Strategy<Value = Workload> {
    arb_workload_with(max_cores, 1)
}

/// As [`arb_workload`], with relative deadlines up to `deadline_factor` periods (C <= D still).
fn arb_workload_with(max_cores: usize, deadline_factor: u64) -> impl Strategy<Value = Workload> {
    let one_task = (
        prop::sample::select(vec![2u64, 3, 4, 5, 6, 8, 9, 10, 12]),
        0u64..=5,
    )
        .prop_flat_map(move |(period, offset)| {
            (1..=deadline_factor * period).prop_flat_map(move |deadline| {
                (1..=deadline).prop_map(move |wcet| task("t", wcet, period, deadline, offset))
            })
        });
    (1..=max_cores, prop::collection::vec(one_task, 1..=5)).prop_map(|(cores, mut tasks)| {
        for (i, t) in tasks.iter_mut().enumerate() {
            t.name = format!("t{i}");
        }
        workload(cores, tasks)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn global_edf_matches_the_reference(w in arb_workload(3)) {
        compare(&w, PolicyKind::GlobalEdf);
    }

    #[test]
    fn global_rm_matches_the_reference(w in arb_workload(3)) {
        compare(&w, PolicyKind::GlobalFp);
    }

    #[test]
    fn global_edzl_matches_the_reference(w in arb_workload(3)) {
        compare(&w, PolicyKind::GlobalEdzl);
    }

    /// Uniprocessor EDF and FP, both as the global and the partitioned policy on one core.
    #[test]
    fn uniprocessor_edf_and_rm_match_the_reference(w in arb_workload(1)) {
        for kind in PolicyKind::ALL {
            compare(&w, kind);
        }
    }

    /// Partitioned EDF/FP on several cores: independent uniprocessors.
    #[test]
    fn partitioned_edf_and_rm_match_the_reference(w in arb_workload(3)) {
        compare(&w, PolicyKind::PartitionedEdf);
        compare(&w, PolicyKind::PartitionedFp);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// With abort_on_miss: late jobs leave at their deadline, which changes who runs after.
    #[test]
    fn every_policy_matches_the_reference_with_aborts(w in arb_workload(3)) {
        for kind in PolicyKind::ALL {
            compare_with(&w, kind, true);
        }
    }

    /// Beyond the brief's D <= T: deadlines up to 2T, so jobs of one task overlap and the job
    /// index / release tie-breakers decide; the orders are total either way.
    #[test]
    fn every_policy_matches_the_reference_with_arbitrary_deadlines(w in arb_workload_with(3, 2)) {
        for kind in PolicyKind::ALL {
            compare(&w, kind);
        }
    }
}

/// A hand-checked case so the comparison itself is known to bite: two cores, G-EDF. At 0 all
/// three jobs are released; a (d=3) and b (d=4) run, c (d=6) waits until a finishes at 2 and
/// then runs [2,5): it completes at 5 and misses nothing.
#[test]
fn reference_and_engine_agree_on_a_hand_checked_case() {
    let w = workload(
        2,
        vec![
            task("a", 2, 3, 3, 0),
            task("b", 2, 4, 4, 0),
            task("c", 3, 6, 6, 0),
        ],
    );
    let expected = reference(&w, Order::Edf, &[0, 0, 0], 1, 2, 12, false);
    assert_eq!(expected.completions[&(0, 0)], 2);
    assert_eq!(expected.completions[&(1, 0)], 2);
    assert_eq!(expected.completions[&(2, 0)], 5);
    assert_eq!(engine(&w, PolicyKind::GlobalEdf, 12, false), expected);
}
