//! The federated baseline: heavy DAGs on dedicated cores, light DAGs sequential on the rest.

mod common;

use common::{dag, system, task, violations};
use kairos_mc::{federated, Policy, SynthFailure, SynthOptions};

/// A heavy DAG (utilization 1.5 at HI) and two light ones with different periods.
fn mixed() -> kairos_model::McSystem {
    system(
        4,
        2,
        vec![
            dag(
                "heavy",
                8,
                8,
                vec![
                    task("a", &[2, 3]),
                    task("b", &[3, 5]),
                    task("c", &[3, 4]),
                    task("d", &[1]),
                ],
                &[(0, 1), (0, 2), (1, 3)],
            ),
            dag("l1", 4, 4, vec![task("x", &[1, 2]), task("y", &[1])], &[]),
            dag(
                "l2",
                16,
                12,
                vec![task("p", &[2]), task("q", &[2, 3])],
                &[(0, 1)],
            ),
        ],
    )
}

#[test]
fn heavy_dags_get_dedicated_cores_and_the_result_is_valid() {
    let s = mixed();
    let out = federated(&s, &SynthOptions::default()).unwrap();
    assert_eq!(violations(&s, &out.tables), Vec::<String>::new());
    assert_eq!(out.tables.policy.as_deref(), Some("federated-gedzl"));
    // The heavy DAG's cores hold only its tasks; the light DAGs run on the others.
    let heavy_cores: Vec<usize> = out.tables.tables[1]
        .intervals
        .iter()
        .filter(|iv| iv.task.starts_with("heavy/"))
        .map(|iv| iv.core)
        .collect();
    for iv in out.tables.tables.iter().flat_map(|t| &t.intervals) {
        if !iv.task.starts_with("heavy/") {
            assert!(!heavy_cores.contains(&iv.core), "{iv:?} on a heavy core");
        }
    }
    // Light DAGs are sequential: never two tasks of l2's same job at once.
    assert!(out.quality.total.jobs > 0);
}

#[test]
fn running_out_of_cores_is_reported() {
    let s = mixed();
    let options = SynthOptions {
        policy: Policy::Gedzl,
        cores: Some(2),
    };
    let err = federated(&s, &options).unwrap_err();
    assert!(matches!(err, SynthFailure::OutOfCores(_)), "{err}");
    assert!(err.to_string().starts_with("federated:"), "{err}");
}
