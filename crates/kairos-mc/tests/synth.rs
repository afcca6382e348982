//! Synthesized tables checked against a brute-force reading of the shared semantics.

mod common;

use common::{dag, ms, system, task, violations};
use kairos_mc::{synthesize, Policy, SynthFailure, SynthOptions};

fn options(policy: Policy) -> SynthOptions {
    SynthOptions {
        policy,
        cores: None,
    }
}

#[test]
fn diamond_on_two_levels_is_valid_for_every_policy() {
    let s = system(
        2,
        2,
        vec![dag(
            "g",
            10,
            10,
            vec![
                task("a", &[2, 3]),
                task("b", &[3]),
                task("c", &[2, 4]),
                task("d", &[1, 2]),
            ],
            &[(0, 1), (0, 2), (1, 3), (2, 3)],
        )],
    );
    for policy in Policy::ALL {
        let out = synthesize(&s, &options(policy)).unwrap();
        assert_eq!(
            violations(&s, &out.tables),
            Vec::<String>::new(),
            "{policy:?}"
        );
        assert_eq!(out.tables.policy.as_deref(), Some(policy.name()));
        assert_eq!(out.slot, ms(1));
    }
}

/// The notes' example of the reference tool's flaw: C = [2, 3, 7] on three levels.
#[test]
fn three_levels_with_growing_budgets_give_safe_transitions() {
    let s = system(
        2,
        3,
        vec![
            dag(
                "g",
                12,
                12,
                vec![task("x", &[2, 3, 7]), task("y", &[3, 3]), task("z", &[4])],
                &[(1, 0)],
            ),
            dag(
                "h",
                6,
                6,
                vec![task("u", &[1, 2, 3]), task("v", &[2])],
                &[(0, 1)],
            ),
        ],
    );
    let out = synthesize(&s, &options(Policy::Gedzl)).unwrap();
    assert_eq!(violations(&s, &out.tables), Vec::<String>::new());
    assert_eq!(out.quality.levels.len(), 3);
}

#[test]
fn precedence_through_a_task_absent_at_the_level_holds() {
    // a -> b -> c with b LO only: at HI, c still waits for a.
    let s = system(
        3,
        2,
        vec![dag(
            "g",
            8,
            8,
            vec![task("a", &[2, 3]), task("b", &[1]), task("c", &[1, 2])],
            &[(0, 1), (1, 2)],
        )],
    );
    let out = synthesize(&s, &options(Policy::Gedzl)).unwrap();
    assert_eq!(violations(&s, &out.tables), Vec::<String>::new());
}

#[test]
fn one_level_is_plain_forward_scheduling() {
    let s = system(
        1,
        1,
        vec![dag(
            "g",
            4,
            4,
            vec![task("a", &[1]), task("b", &[2])],
            &[(0, 1)],
        )],
    );
    let out = synthesize(&s, &options(Policy::Gedf)).unwrap();
    assert_eq!(violations(&s, &out.tables), Vec::<String>::new());
    let iv = &out.tables.tables[0].intervals;
    assert_eq!(iv.len(), 2);
    assert_eq!(
        (&*iv[0].task, iv[0].start, iv[1].start),
        ("g/a", 0, 1_000_000)
    );
}

#[test]
fn overload_fails_with_a_named_job() {
    let s = system(
        1,
        2,
        vec![dag(
            "g",
            4,
            4,
            vec![task("a", &[2, 3]), task("b", &[2, 2])],
            &[],
        )],
    );
    let err = synthesize(&s, &options(Policy::Gedzl)).unwrap_err();
    assert!(!err.is_input_error());
    let text = err.to_string();
    assert!(text.contains("g/"), "{text}");
}

#[test]
fn bad_input_is_an_input_error() {
    let s = system(0, 1, vec![dag("g", 4, 4, vec![task("a", &[1])], &[])]);
    assert!(matches!(
        synthesize(&s, &options(Policy::Gedzl)),
        Err(SynthFailure::Input(_))
    ));
    let cycle = system(
        1,
        1,
        vec![dag(
            "g",
            4,
            4,
            vec![task("a", &[1]), task("b", &[1])],
            &[(0, 1), (1, 0)],
        )],
    );
    assert!(synthesize(&cycle, &options(Policy::Gedzl))
        .unwrap_err()
        .is_input_error());
}

/// Quality is computed from the built pieces; with two tasks sharing a `dag/task` name (the
/// loader refuses it, a hand-built system may not) it must still be what the tables give.
#[test]
fn quality_matches_the_tables_even_with_shared_names() {
    let twin = || {
        dag(
            "g",
            6,
            6,
            vec![task("a", &[1, 2]), task("b", &[2])],
            &[(0, 1)],
        )
    };
    let mut other = twin();
    other.period = ms(12);
    other.deadline = ms(12);
    let s = system(2, 2, vec![twin(), other]);
    for policy in Policy::ALL {
        let out = synthesize(&s, &options(policy)).unwrap();
        assert_eq!(out.quality, kairos_mc::measure(&out.tables), "{policy:?}");
        assert_eq!(
            out.quality.tasks,
            vec!["g/a".to_string(), "g/b".to_string()]
        );
    }
}
