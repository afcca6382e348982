//! Migrations, continuations and precedence in table runs.

use super::*;

#[test]
fn cyclic_instantaneous_migrations_swap_cores() {
    let g = dag("g", 10, vec![task("p", &[4]), task("q", &[4])], vec![]);
    let system = system(&["LO"], 2, vec![g]);
    let tables = tables(
        &system,
        vec![vec![
            ("g/p", 0, 0, 0, 2),
            ("g/q", 0, 1, 0, 2),
            ("g/p", 0, 1, 2, 4),
            ("g/q", 0, 0, 2, 4),
        ]],
    );
    let outcome = run(&system, &tables, &traced(&[]));
    let m = &outcome.metrics;
    assert_eq!((m.jobs_completed, m.preemptions, m.migrations), (2, 0, 2));
    let trace = outcome.trace.as_ref().unwrap();
    assert_eq!(table_matches_trace(&system, &tables, 0, trace), Ok(()));
    assert_eq!(completion_time(&outcome, "g/p", 0), Some(4));
    assert_eq!(completion_time(&outcome, "g/q", 0), Some(4));
}

#[test]
fn a_job_continuing_on_its_core_is_neither_preempted_nor_migrated() {
    let g = dag("g", 10, vec![task("p", &[4])], vec![]);
    let system = system(&["LO"], 2, vec![g]);
    let split = vec![
        ("g/p", 0, 0, 0, 2),
        ("g/p", 0, 0, 2, 3),
        ("g/p", 0, 1, 5, 6),
    ];
    let outcome = run(&system, &tables(&system, vec![split]), &traced(&[]));
    let m = &outcome.metrics;
    assert_eq!((m.preemptions, m.migrations), (1, 1));
    assert_eq!(outcome.trace.as_ref().unwrap().segments().count(), 2);
}

#[test]
fn precedence_violations_are_counted_not_hidden() {
    let (system, mut tables) = two_levels();
    let outcome = run(&system, &tables, &TableSimConfig::default());
    assert_eq!(outcome.metrics.precedence_violations, 0);
    // c now starts at 1 on core 1, while a runs until 2 on core 0; b moves to core 0.
    let lo = &mut tables.tables[0].intervals;
    (lo[1].core, lo[1].start, lo[1].end) = (1, 1, 3);
    (lo[2].core, lo[2].start, lo[2].end) = (0, 2, 5);
    let outcome = run(&system, &tables, &TableSimConfig::default());
    assert_eq!(outcome.metrics.precedence_violations, 1);
    assert_eq!(outcome.metrics.deadline_misses, 0);
}
