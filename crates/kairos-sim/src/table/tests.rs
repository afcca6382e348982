//! Unit tests of the table policy on hand-built 2- and 3-level tables (times in plain ns).

use super::*;
use kairos_model::{Dag, Interval, LevelTable, McTask};
use kairos_trace::TraceEvent;
use proptest::prelude::*;

fn task(name: &str, wcet: &[u64]) -> McTask {
    McTask {
        name: name.into(),
        wcet: wcet.iter().map(|&w| Duration::from_nanos(w)).collect(),
    }
}

fn dag(name: &str, period: u64, tasks: Vec<McTask>, edges: Vec<(usize, usize)>) -> Dag {
    Dag {
        name: name.into(),
        period: Duration::from_nanos(period),
        deadline: Duration::from_nanos(period),
        tasks,
        edges,
    }
}

fn system(levels: &[&str], cores: usize, dags: Vec<Dag>) -> McSystem {
    McSystem {
        name: None,
        cores,
        levels: levels.iter().map(|l| l.to_string()).collect(),
        dags,
    }
}

/// `(task, job, core, start, end)` per level, lowest first.
type Rows<'a> = Vec<Vec<(&'a str, u64, usize, u64, u64)>>;

fn tables(system: &McSystem, rows: Rows) -> TableSet {
    TableSet {
        unit: "ns".into(),
        hyperperiod: system.hyperperiod().unwrap().as_nanos(),
        cores: system.cores,
        levels: system.levels.clone(),
        policy: None,
        tables: rows
            .into_iter()
            .zip(&system.levels)
            .map(|(rows, level)| LevelTable {
                level: level.clone(),
                intervals: rows
                    .into_iter()
                    .map(|(task, job, core, start, end)| Interval {
                        task: task.into(),
                        job,
                        core,
                        start,
                        end,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Two levels on two cores: g = {a (HI, 2/4) -> c (HI, 2/3), b (LO, 3)} every 10 ns and
/// h = {l (LO, 1)} every 5 ns.
fn two_levels() -> (McSystem, TableSet) {
    let g = dag(
        "g",
        10,
        vec![task("a", &[2, 4]), task("b", &[3]), task("c", &[2, 3])],
        vec![(0, 2)],
    );
    let h = dag("h", 5, vec![task("l", &[1])], vec![]);
    let system = system(&["LO", "HI"], 2, vec![g, h]);
    let lo = vec![
        ("g/a", 0, 0, 0, 2),
        ("g/c", 0, 0, 2, 4),
        ("g/b", 0, 1, 0, 3),
        ("h/l", 0, 1, 3, 4),
        ("h/l", 1, 1, 5, 6),
    ];
    let hi = vec![("g/a", 0, 0, 2, 6), ("g/c", 0, 1, 6, 9)];
    let tables = tables(&system, vec![lo, hi]);
    (system, tables)
}

/// Three levels on two cores, one DAG every 10 ns: x (HI, 2/3/4), y (MID, 2/3), z (LO, 1).
/// x's MID table gives it 2 before the LO table ends, so an overrun to HI needs both rises.
fn three_levels() -> (McSystem, TableSet) {
    let g = dag(
        "g",
        10,
        vec![task("x", &[2, 3, 4]), task("y", &[2, 3]), task("z", &[1])],
        vec![],
    );
    let system = system(&["LO", "MID", "HI"], 2, vec![g]);
    let lo = vec![
        ("g/x", 0, 0, 0, 2),
        ("g/y", 0, 1, 0, 2),
        ("g/z", 0, 1, 2, 3),
    ];
    let mid = vec![
        ("g/x", 0, 0, 0, 2),
        ("g/x", 0, 0, 3, 4),
        ("g/y", 0, 1, 0, 2),
        ("g/y", 0, 1, 2, 3),
    ];
    let hi = vec![
        ("g/x", 0, 0, 0, 2),
        ("g/x", 0, 0, 3, 4),
        ("g/x", 0, 0, 5, 6),
    ];
    let tables = tables(&system, vec![lo, mid, hi]);
    (system, tables)
}

fn traced(overruns: &[&str]) -> TableSimConfig {
    TableSimConfig {
        overruns: overruns.iter().map(|o| o.parse().unwrap()).collect(),
        record_trace: true,
        ..TableSimConfig::default()
    }
}

fn run(system: &McSystem, tables: &TableSet, config: &TableSimConfig) -> TableSimOutcome {
    simulate_tables(system, tables, config).expect("the run starts")
}

/// `(at, from, to, triggers)` of every mode change.
fn changes(outcome: &TableSimOutcome) -> Vec<(u64, &str, &str, Vec<&str>)> {
    let changes = outcome.metrics.mode_changes.iter();
    changes
        .map(|c| {
            let triggers = c.triggers.iter().map(String::as_str).collect();
            (c.at_ns, c.from.as_str(), c.to.as_str(), triggers)
        })
        .collect()
}

fn completion_time(outcome: &TableSimOutcome, name: &str, job: u64) -> Option<u64> {
    let trace = outcome.trace.as_ref().unwrap();
    let task = trace.task_names.iter().position(|n| n == name)?;
    trace.events.iter().find_map(|e| match *e {
        TraceEvent::Completion {
            task: t,
            job: j,
            at,
        } if t == task && j == job => Some(at.as_nanos()),
        _ => None,
    })
}

#[test]
fn without_overruns_the_run_is_table_zero() {
    for (system, tables) in [two_levels(), three_levels()] {
        for hyperperiods in [1, 3] {
            let config = TableSimConfig {
                duration: Some(Duration::from_nanos(10 * hyperperiods)),
                ..traced(&[])
            };
            let outcome = run(&system, &tables, &config);
            let trace = outcome.trace.as_ref().unwrap();
            assert_eq!(table_matches_trace(&system, &tables, 0, trace), Ok(()));
            let m = &outcome.metrics;
            assert!(m.mode_changes.is_empty() && m.deadline_misses == 0);
            assert_eq!(m.jobs_completed, m.jobs_released);
            assert_eq!((m.jobs_discarded, m.precedence_violations), (0, 0));
            assert_eq!(m.time_in_mode_ns.get(0), 10 * hyperperiods);
        }
    }
}

#[test]
fn the_comparison_sees_a_different_table() {
    let (system, tables) = two_levels();
    let outcome = run(&system, &tables, &traced(&[]));
    let trace = outcome.trace.as_ref().unwrap();
    let error = table_matches_trace(&system, &tables, 1, trace).unwrap_err();
    assert!(error.contains("g/a job 0"), "{error}");
}

#[test]
fn an_overrun_raises_the_mode_discards_and_returns_at_the_hyperperiod() {
    let (system, tables) = two_levels();
    let outcome = run(&system, &tables, &traced(&["g/a@0"]));
    assert_eq!(
        changes(&outcome),
        [(2, "LO", "HI", vec!["g/a#0"]), (10, "HI", "LO", vec![])]
    );
    // a had 2 of its 4 by the end of its LO interval; the HI table's [2, 6) gives the rest.
    assert_eq!(completion_time(&outcome, "g/a", 0), Some(4));
    assert_eq!(completion_time(&outcome, "g/c", 0), Some(8));
    let m = &outcome.metrics;
    // b and l#0 are dropped at the rise, l#1 at its release at 5.
    assert_eq!(m.jobs_discarded, 3);
    assert_eq!(m.jobs_discarded_by_level.get(0), 3);
    assert_eq!((m.deadline_misses, m.guaranteed_misses), (0, 0));
    assert_eq!(m.max_mode, "HI");
    assert_eq!((m.time_in_mode_ns.get(0), m.time_in_mode_ns.get(1)), (2, 8));
    assert_eq!(m.jobs_released, m.jobs_completed + m.jobs_discarded);
    let trace = outcome.trace.as_ref().unwrap();
    let discards: Vec<(usize, u64, u64)> = trace
        .events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Discard { task, job, at } => Some((task, job, at.as_nanos())),
            _ => None,
        })
        .collect();
    assert_eq!(discards, [(1, 0, 2), (3, 0, 2), (3, 1, 5)]);
}

#[test]
fn the_next_hyperperiod_starts_in_the_lowest_mode() {
    let (system, tables) = two_levels();
    let config = TableSimConfig {
        duration: Some(Duration::from_nanos(30)),
        ..traced(&["g/a@0", "g/a@2"])
    };
    let outcome = run(&system, &tables, &config);
    assert_eq!(
        changes(&outcome),
        [
            (2, "LO", "HI", vec!["g/a#0"]),
            (10, "HI", "LO", vec![]),
            (22, "LO", "HI", vec!["g/a#2"]),
            (30, "HI", "LO", vec![]),
        ]
    );
    // The second hyper-period is table 0 again: b#1 and l#2, l#3 run and complete.
    assert_eq!(completion_time(&outcome, "g/b", 1), Some(13));
    assert_eq!(completion_time(&outcome, "h/l", 3), Some(16));
    assert_eq!(outcome.metrics.jobs_discarded, 6);
    assert_eq!(outcome.metrics.deadline_misses, 0);
}

#[test]
fn simultaneous_overruns_raise_the_mode_once() {
    let (system, tables) = three_levels();
    let outcome = run(&system, &tables, &traced(&["g/x@0", "g/y@0"]));
    assert_eq!(
        changes(&outcome),
        [
            (2, "LO", "MID", vec!["g/x#0", "g/y#0"]),
            // x got 1 more in MID by 4, 3 of its 4: a second overrun, one more level.
            (4, "MID", "HI", vec!["g/x#0"]),
            (10, "HI", "LO", vec![]),
        ]
    );
    assert_eq!(completion_time(&outcome, "g/y", 0), Some(3));
    assert_eq!(completion_time(&outcome, "g/x", 0), Some(6));
    let m = &outcome.metrics;
    assert_eq!(
        (m.jobs_discarded, m.deadline_misses, m.budget_exhausted),
        (1, 0, 0)
    );
}

#[test]
fn an_overrun_to_the_middle_level_stops_there() {
    let (system, tables) = three_levels();
    let outcome = run(&system, &tables, &traced(&["g/x@0:MID"]));
    assert_eq!(
        changes(&outcome),
        [(2, "LO", "MID", vec!["g/x#0"]), (10, "MID", "LO", vec![])]
    );
    assert_eq!(completion_time(&outcome, "g/x", 0), Some(4));
}

#[test]
fn budget_exhaustion_at_the_top_level_stops_the_job() {
    let (system, tables) = three_levels();
    let outcome = run(&system, &tables, &traced(&["g/x@0=5ns"]));
    let m = &outcome.metrics;
    assert_eq!(m.max_mode, "HI");
    assert_eq!(m.budget_exhausted, 1);
    assert_eq!(completion_time(&outcome, "g/x", 0), None);
    assert_eq!(m.deadline_misses, 1);
    assert_eq!(m.deadline_misses_by_level.get(2), 1);
    assert_eq!(m.deadline_misses_by_mode.get(2), 1);
    assert_eq!(m.guaranteed_misses, 0, "5 ns is more than x's HI WCET");
    let miss = &m.misses[0];
    assert_eq!(
        (miss.task.as_str(), miss.deadline_ns, miss.guaranteed),
        ("g/x", 10, false)
    );
    // Stopped at 6, the end of its last HI interval: no execution after it.
    let trace = outcome.trace.as_ref().unwrap();
    let last_end = trace.segments().filter(|s| s.1 == 0).map(|s| s.4).max();
    assert_eq!(last_end, Some(kairos_model::Instant::from_nanos(6)));
}

#[test]
fn a_job_without_budget_left_in_the_new_table_raises_again_at_once() {
    let g = dag("g", 10, vec![task("w", &[2, 2, 4])], vec![]);
    let system = system(&["LO", "MID", "HI"], 1, vec![g]);
    let tables = tables(
        &system,
        vec![
            vec![("g/w", 0, 0, 0, 2)],
            vec![("g/w", 0, 0, 0, 2)],
            vec![("g/w", 0, 0, 0, 2), ("g/w", 0, 0, 3, 5)],
        ],
    );
    let outcome = run(&system, &tables, &traced(&["g/w@0"]));
    assert_eq!(
        changes(&outcome)[..2],
        [
            (2, "LO", "MID", vec!["g/w#0"]),
            (2, "MID", "HI", vec!["g/w#0"])
        ]
    );
    assert_eq!(completion_time(&outcome, "g/w", 0), Some(5));
    assert_eq!(outcome.metrics.deadline_misses, 0);
}

#[test]
fn uniform_times_finish_early_inside_table_zero() {
    let (system, tables) = two_levels();
    let config = TableSimConfig {
        execution_times: TableExecModel::Uniform { min_fraction: 0.0 },
        duration: Some(Duration::from_nanos(50)),
        seed: 3,
        ..traced(&[])
    };
    let first = run(&system, &tables, &config);
    let again = run(&system, &tables, &config);
    assert_eq!(first.metrics, again.metrics);
    let m = &first.metrics;
    assert!(m.mode_changes.is_empty());
    assert_eq!((m.jobs_completed, m.deadline_misses), (m.jobs_released, 0));
    let table = &tables.tables[0].intervals;
    for (core, task, _, start, end) in first.trace.as_ref().unwrap().segments() {
        let name = &first.trace.as_ref().unwrap().task_names[task];
        let (start, end) = (start.as_nanos() % 10, (end.as_nanos() - 1) % 10 + 1);
        assert!(
            table
                .iter()
                .any(|i| *i.task == **name && i.core == core && i.start <= start && end <= i.end),
            "{name} [{start}, {end}) on core {core} is outside table 0"
        );
    }
}

proptest! {
    /// Random overruns (never above a task's own WCET) on valid tables: every job the tables
    /// guarantee meets its deadline, and every released job is accounted for.
    #[test]
    fn random_overruns_never_miss_a_guaranteed_job(
        seed in any::<u64>(),
        probability in 0.0f64..=1.0,
        hyperperiods in 1u64..4,
        uniform in any::<bool>(),
    ) {
        for (system, tables) in [two_levels(), three_levels()] {
            let config = TableSimConfig {
                duration: Some(Duration::from_nanos(10 * hyperperiods)),
                execution_times: if uniform {
                    TableExecModel::Uniform { min_fraction: 0.5 }
                } else {
                    TableExecModel::Wcet
                },
                overrun_probability: probability,
                seed,
                ..traced(&[])
            };
            let m = run(&system, &tables, &config).metrics;
            prop_assert_eq!(m.guaranteed_misses, 0);
            prop_assert_eq!(m.deadline_misses, 0);
            prop_assert_eq!(m.budget_exhausted, 0);
            prop_assert_eq!(m.precedence_violations, 0);
            prop_assert_eq!(m.jobs_released, m.jobs_completed + m.jobs_discarded);
            let rises = m.mode_changes.iter().filter(|c| !c.triggers.is_empty()).count();
            prop_assert!(rises as u64 <= (system.levels.len() as u64 - 1) * hyperperiods);
        }
    }
}

mod input;
mod moves;
