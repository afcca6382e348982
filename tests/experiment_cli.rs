//! `kairos experiment` end to end: results written, resumed and refused for another config,
//! every shipped config valid, MC-DAG sweeps, and config problems located.

mod common;

use common::{kairos_in as kairos, Scratch};
use std::path::Path;

fn scratch() -> Scratch {
    Scratch::new("experiment")
}

const EXPERIMENT: &str = r#"seed = 3
cores = 2
samples = 12
[utilization]
from = 0.5
to = 2.0
step = 0.5
[generator]
method = "uunifast-discard"
tasks = 4
periods = "uni-short"
[[methods]]
test = "partitioned-ffd-edf"
[[methods]]
simulate = "pedf"
"#;

#[test]
fn experiment_writes_results_resumes_and_refuses_a_different_config() {
    let dir = scratch();
    std::fs::write(dir.join("exp.toml"), EXPERIMENT).unwrap();
    let run = |extra: &[&str]| {
        kairos(
            &[
                &["experiment", "exp.toml", "--out-dir", "out", "--quiet"],
                extra,
            ]
            .concat(),
            &dir,
        )
    };
    let first = run(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4 * 2, "header + points x methods");
    assert!(
        csv.starts_with(
            "utilization,method,accepted,samples,ratio,inconclusive\n0.5,partitioned-ffd-edf,12,12,1.0000,0\n"
        ),
        "{csv}"
    );
    assert!(dir.join("out/acceptance.svg").exists() && dir.join("out/acceptance.png").exists());
    // A simulation accepts only what it saw whole: never more than the exact partitioned test
    // (the simulator partitions first-fit decreasing too; implicit deadlines, so U <= 1 per core
    // is exact). What the cap cut short is counted apart.
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for pair in rows.chunks(2) {
        let (exact, simulated) = (&pair[0], &pair[1]);
        assert_eq!(
            (exact[1], simulated[1]),
            ("partitioned-ffd-edf", "sim-pedf")
        );
        let count = |row: &Vec<&str>, i: usize| row[i].parse::<u64>().unwrap();
        assert!(count(simulated, 2) <= count(exact, 2), "{pair:?}");
        assert!(count(simulated, 2) + count(simulated, 5) <= count(simulated, 3));
    }

    // Drop the last point as if interrupted: the rerun computes only that point, identically.
    let points = std::fs::read_to_string(dir.join("out/points.jsonl")).unwrap();
    let kept: Vec<&str> = points.lines().take(3).collect();
    std::fs::write(
        dir.join("out/points.jsonl"),
        kept.join("\n") + "\n{\"utilization\": 2.0, \"sampl",
    )
    .unwrap();
    let resumed = run(&[]);
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("resuming: 3 point(s)"));
    assert_eq!(
        std::fs::read_to_string(dir.join("out/results.csv")).unwrap(),
        csv,
        "same results after resuming"
    );

    std::fs::write(
        dir.join("exp.toml"),
        EXPERIMENT.replace("samples = 12", "samples = 13"),
    )
    .unwrap();
    assert_eq!(
        run(&[]).status.code(),
        Some(2),
        "a different config does not mix with old results"
    );
    assert!(run(&["--fresh"]).status.success());
    assert!(std::fs::read_to_string(dir.join("out/results.csv"))
        .unwrap()
        .contains(",13,"));
}

#[test]
fn every_shipped_experiment_config_is_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/experiments");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let out = kairos(&["experiment", path.to_str().unwrap(), "--dry-run"], &dir);
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        seen += 1;
    }
    assert!(seen >= 2);
}

const MC_EXPERIMENT: &str = r#"
name = "mc"
seed = 7
cores = 4
samples = 3
[utilization]
from = 0.3
to = 0.9
step = 0.3
[mcdag]
dags = 2
tasks = 8
levels = 3
[[methods]]
synth = "gedzl"
[[methods]]
synth = "federated"
"#;

/// An MC-DAG sweep runs the synthesizers (each accepted table set passes the validator inside
/// the experiment), writes acceptance plus per-job quality columns and all three plots.
#[test]
fn mc_experiment_writes_acceptance_and_table_quality() {
    let dir = scratch();
    std::fs::write(dir.join("mc.toml"), MC_EXPERIMENT).unwrap();
    let out = kairos(
        &["experiment", "mc.toml", "--out-dir", "out", "--quiet"],
        &dir,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("utilization,method,accepted,samples,ratio,inconclusive,preemptions_per_job,migrations_per_job")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3 * 2, "points x methods");
    for row in &rows {
        let accepted: u64 = row[2].parse().unwrap();
        // Quality is reported exactly when some system was accepted.
        assert_eq!(row[5], "0", "synthesis is never inconclusive: {row:?}");
        assert_eq!(row[6].is_empty(), accepted == 0, "{row:?}");
        if accepted > 0 {
            assert!(row[6].parse::<f64>().unwrap() >= 0.0);
            assert!(row[7].parse::<f64>().unwrap() >= 0.0);
        }
    }
    assert_eq!(rows[0][2], "3", "U/m = 0.3 is accepted by G-EDZL: {csv}");
    for plot in ["acceptance", "preemptions", "migrations"] {
        assert!(dir.join(format!("out/{plot}.svg")).exists(), "{plot}");
    }
}

#[test]
fn mc_experiment_rejects_mixed_methods() {
    let dir = scratch();
    let config = MC_EXPERIMENT.replace("synth = \"federated\"", "test = \"gfb\"");
    std::fs::write(dir.join("bad.toml"), config).unwrap();
    let out = kairos(&["experiment", "bad.toml", "--dry-run"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("methods[1]: MC-DAG experiments take"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every problem of an experiment config in one run, located like `kairos check` reports.
#[test]
fn experiment_config_problems_are_all_reported_with_locations() {
    let dir = scratch();
    let config = r#"seed = 1
cores = 4
samples = 10
stp = 3
simulation_cap = "2 parsecs"
[utilization]
from = 1.0
to = 2.0
step = 0.5
[generator]
method = "uunifast-discard"
task = 10
periods = "uni-forever"
squeeze = "yes"
[[methods]]
test = "gfbb"
[[methods]]
simulate = "gedff"
"#;
    std::fs::write(dir.join("bad.toml"), config).unwrap();
    let out = kairos(&["experiment", "bad.toml", "--dry-run"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let located: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("bad.toml:"))
        .map(|l| l.split(": error: ").nth(1).unwrap_or(l))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        located,
        [
            "stp",
            "simulation_cap",
            "generator.tasks",
            "generator.task",
            "generator.periods",
            "generator.squeeze",
            "methods[0].test",
            "methods[1].simulate"
        ],
        "{err}"
    );
    assert!(err.contains("bad.toml:12:1: error: generator.task: unknown key `task`\n  hint: did you mean `tasks`?"), "{err}");
    assert!(
        err.ends_with("error: bad.toml: 8 error(s): nothing run\n"),
        "{err}"
    );
}
