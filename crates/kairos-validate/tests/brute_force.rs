//! The validator against a slow, obvious twin on random systems and random mutants.
//!
//! All times are small integers, so the twin checks every condition at every nanosecond of the
//! hyper-period: sums per job, occupancy per core and per task, precedence through a transitive
//! closure, and `A_l(t) >= A_{l+1}(t)` at every integer `t <= f_l`. Both must find the same set
//! of violation kinds.

mod common;

use common::{dag, sequential_tables, system};
use kairos_model::{McSystem, TableSet};
use kairos_validate::{validate, ViolationKind};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// A random system whose DAGs fit the sequential layout: 1-4 levels, 1-3 DAGs of 1-5 tasks,
/// periods among the divisors of 120 (small hyper-periods).
fn systems() -> impl Strategy<Value = McSystem> {
    (1usize..=4).prop_flat_map(|levels| {
        let task = (0..levels, prop::collection::vec(0u64..=3, levels), 1u64..=3);
        let one_dag = (
            prop::collection::vec(task, 1..=5),
            prop::collection::vec(any::<bool>(), 10),
            0u64..=6,
        );
        prop::collection::vec(one_dag, 1..=3).prop_map(move |dags| {
            let dags = dags
                .into_iter()
                .enumerate()
                .map(|(g, (tasks, edge_bits, slack))| {
                    let wcets: Vec<Vec<u64>> = tasks
                        .iter()
                        .map(|(crit, steps, base)| {
                            (0..=*crit)
                                .scan(*base, |c, l| {
                                    let now = *c;
                                    *c += steps[l];
                                    Some(now)
                                })
                                .collect()
                        })
                        .collect();
                    let sum: u64 = wcets.iter().map(|w| *w.last().unwrap()).sum();
                    let period = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120]
                        .into_iter()
                        .find(|&p| p >= sum + slack)
                        .unwrap_or(120);
                    let n = wcets.len();
                    let pairs = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b)));
                    let edges: Vec<_> = pairs
                        .zip(edge_bits)
                        .filter(|(_, e)| *e)
                        .map(|(p, _)| p)
                        .collect();
                    let refs: Vec<&[u64]> = wcets.iter().map(Vec::as_slice).collect();
                    dag(&format!("g{g}"), period, &refs, &edges)
                })
                .collect();
            system(levels, dags)
        })
    })
}

/// One random change to one interval: start/end shift, core, or job.
#[derive(Clone, Debug)]
enum Mutation {
    Shift { level: usize, index: usize, by: i64 },
    Stretch { level: usize, index: usize, by: i64 },
    Core { level: usize, index: usize },
    Job { level: usize, index: usize, by: u64 },
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one =
        prop_oneof![
            (any::<usize>(), any::<usize>(), -4i64..=4)
                .prop_map(|(level, index, by)| Mutation::Shift { level, index, by }),
            (any::<usize>(), any::<usize>(), -2i64..=2)
                .prop_map(|(level, index, by)| Mutation::Stretch { level, index, by }),
            (any::<usize>(), any::<usize>())
                .prop_map(|(level, index)| Mutation::Core { level, index }),
            (any::<usize>(), any::<usize>(), 1u64..=2)
                .prop_map(|(level, index, by)| Mutation::Job { level, index, by }),
        ];
    prop::collection::vec(one, 1..=3)
}

/// Applies a mutation when it keeps the interval non-empty, in `[0, H)`, on an existing core and
/// with a job in range (the twin only knows the timing conditions).
fn apply(system: &McSystem, tables: &mut TableSet, m: &Mutation) {
    let h = tables.hyperperiod as i64;
    let (level, index) = match *m {
        Mutation::Shift { level, index, .. }
        | Mutation::Stretch { level, index, .. }
        | Mutation::Core { level, index }
        | Mutation::Job { level, index, .. } => (level % tables.tables.len(), index),
    };
    let intervals = &mut tables.tables[level].intervals;
    if intervals.is_empty() {
        return;
    }
    let count = intervals.len();
    let i = &mut intervals[index % count];
    let (start, end) = (i.start as i64, i.end as i64);
    match *m {
        Mutation::Shift { by, .. } if start + by >= 0 && end + by <= h => {
            i.start = (start + by) as u64;
            i.end = (end + by) as u64;
        }
        Mutation::Stretch { by, .. } if end + by > start && end + by <= h => {
            i.end = (end + by) as u64
        }
        Mutation::Core { .. } => i.core = (i.core + 1) % system.cores,
        Mutation::Job { by, .. } => {
            let task = system.find_task(&i.task).unwrap();
            let jobs = system.dags[task.dag].jobs_in(system.hyperperiod().unwrap());
            i.job = (i.job + by) % jobs;
        }
        _ => {}
    }
}

/// One level's intervals by (task, job): (start, end, core).
type JobSpans = HashMap<(String, u64), Vec<(u64, u64, usize)>>;

/// The twin: every timing condition at every integer instant.
fn brute_force(system: &McSystem, tables: &TableSet) -> BTreeSet<ViolationKind> {
    let mut kinds = BTreeSet::new();
    let h = tables.hyperperiod;
    // per level: (task name, job) -> list of (start, end, core)
    let per_level: Vec<JobSpans> = tables
        .tables
        .iter()
        .map(|t| {
            let mut m: JobSpans = HashMap::new();
            for i in &t.intervals {
                m.entry((i.task.to_string(), i.job))
                    .or_default()
                    .push((i.start, i.end, i.core));
            }
            m
        })
        .collect();
    for (level, jobs) in per_level.iter().enumerate() {
        let mut core_busy = vec![vec![0u32; h as usize]; system.cores];
        let mut task_busy: HashMap<&str, Vec<u32>> = HashMap::new();
        for ((task, job), spans) in jobs {
            let r = system.find_task(task).unwrap();
            let dag = &system.dags[r.dag];
            let (release, due) = (
                job * dag.period.as_nanos(),
                job * dag.period.as_nanos() + dag.deadline.as_nanos(),
            );
            let total: u64 = spans.iter().map(|s| s.1 - s.0).sum();
            if total != system.task(r).wcet[level].as_nanos() {
                kinds.insert(ViolationKind::Budget);
            }
            for &(s, e, c) in spans {
                if s < release || e > due {
                    kinds.insert(ViolationKind::OutsideWindow);
                }
                let busy = task_busy.entry(task).or_insert_with(|| vec![0; h as usize]);
                for t in s..e {
                    core_busy[c][t as usize] += 1;
                    busy[t as usize] += 1;
                }
            }
        }
        if core_busy.iter().flatten().any(|&n| n > 1) {
            kinds.insert(ViolationKind::CoreOverlap);
        }
        if task_busy.values().flatten().any(|&n| n > 1) {
            kinds.insert(ViolationKind::TaskOverlap);
        }
        missing_jobs(system, level, jobs, &mut kinds);
        precedence(system, jobs, &mut kinds);
    }
    for level in 0..per_level.len().saturating_sub(1) {
        transition(&per_level[level], &per_level[level + 1], &mut kinds);
    }
    kinds
}

fn missing_jobs(
    system: &McSystem,
    level: usize,
    jobs: &JobSpans,
    kinds: &mut BTreeSet<ViolationKind>,
) {
    let h = system.hyperperiod().unwrap();
    for r in system.task_refs() {
        if system.task(r).runs_at(level) {
            for k in 0..system.dags[r.dag].jobs_in(h) {
                if !jobs.contains_key(&(system.qualified_name(r), k)) {
                    kinds.insert(ViolationKind::Budget);
                }
            }
        }
    }
}

fn precedence(system: &McSystem, jobs: &JobSpans, kinds: &mut BTreeSet<ViolationKind>) {
    for (d, dag) in system.dags.iter().enumerate() {
        let n = dag.tasks.len();
        let mut reach = vec![vec![false; n]; n];
        for &(a, b) in &dag.edges {
            reach[a][b] = true;
        }
        for k in 0..n {
            for a in 0..n {
                for b in 0..n {
                    reach[a][b] |= reach[a][k] && reach[k][b];
                }
            }
        }
        let name = |t: usize| format!("{}/{}", system.dags[d].name, dag.tasks[t].name);
        for ((task, job), spans) in jobs {
            let Some(r) = system.find_task(task).filter(|r| r.dag == d) else {
                continue;
            };
            let start = spans.iter().map(|s| s.0).min().unwrap();
            for a in (0..n).filter(|&a| reach[a][r.task]) {
                if let Some(pred) = jobs.get(&(name(a), *job)) {
                    if start < pred.iter().map(|s| s.1).max().unwrap() {
                        kinds.insert(ViolationKind::Precedence);
                    }
                }
            }
        }
    }
}

fn transition(low: &JobSpans, high: &JobSpans, kinds: &mut BTreeSet<ViolationKind>) {
    let received = |spans: &[(u64, u64, usize)], t: u64| -> u64 {
        spans.iter().map(|s| t.clamp(s.0, s.1) - s.0).sum()
    };
    for (key, high_spans) in high {
        let Some(low_spans) = low.get(key) else {
            continue;
        };
        let finish = low_spans.iter().map(|s| s.1).max().unwrap();
        if (0..=finish).any(|t| received(low_spans, t) < received(high_spans, t)) {
            kinds.insert(ViolationKind::UnsafeTransition);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn constructed_tables_are_valid(system in systems()) {
        let report = validate(&system, &sequential_tables(&system));
        prop_assert!(report.is_valid(), "{:#?}", report.violations);
    }

    #[test]
    fn mutants_get_the_same_verdict_as_the_twin(system in systems(), muts in mutations()) {
        let mut tables = sequential_tables(&system);
        for m in &muts {
            apply(&system, &mut tables, m);
        }
        let report = validate(&system, &tables);
        let found: BTreeSet<ViolationKind> = report.violations.iter().map(|v| v.kind).collect();
        prop_assert_eq!(found, brute_force(&system, &tables), "{:#?}", report.violations);
    }
}
