//! `kairos gen`, `kairos analyze` (file and batch) and `kairos experiment` end to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn kairos(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("kairos runs")
}

fn scratch() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kairos-analyze-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn gen_writes_a_valid_workload_and_the_same_seed_gives_the_same_file() {
    let dir = scratch();
    let args = [
        "gen",
        "--method",
        "uunifast-discard",
        "--tasks",
        "8",
        "--utilization",
        "2.5",
        "--seed",
        "9",
        "--out",
    ];
    let first = kairos(&[&args[..], &["a.toml"]].concat(), &dir);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    kairos(&[&args[..], &["b.toml"]].concat(), &dir);
    let (a, b) = (
        std::fs::read_to_string(dir.join("a.toml")).unwrap(),
        std::fs::read_to_string(dir.join("b.toml")).unwrap(),
    );
    assert_eq!(a, b);
    let check = kairos(&["check", "a.toml"], &dir);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(stdout(&check).contains("8 task(s) on 4 core(s)"));
}

#[test]
fn batch_keeps_input_order_reports_bad_lines_and_goes_on() {
    let dir = scratch();
    let good = r#"{"cores": 2, "tasks": [{"wcet": "1ms", "period": "4ms"}, {"wcet": "3ms", "period": "4ms", "deadline": "4ms"}]}"#;
    let overloaded = r#"{"cores": 1, "tasks": [{"wcet": "3ms", "period": "4ms"}, {"wcet": "3ms", "period": "4ms"}]}"#;
    let lines = [
        good,
        "not json",
        "",
        overloaded,
        r#"{"cores": 2, "tasks": [{"wcet": "5", "period": "4ms"}]}"#,
    ];
    let mut input = String::new();
    for _ in 0..300 {
        for line in lines {
            input.push_str(line);
            input.push('\n');
        }
    }
    std::fs::write(dir.join("sets.jsonl"), input).unwrap();
    let out = kairos(
        &[
            "analyze",
            "--batch",
            "sets.jsonl",
            "--tests",
            "partitioned-ffd-edf",
            "--jobs",
            "2",
        ],
        &dir,
    );
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1200, "blank lines produce no output");
    for (k, row) in rows.iter().enumerate() {
        let index = row["index"].as_u64().unwrap() as usize;
        let line = lines[index % lines.len()];
        assert_eq!(index / lines.len(), k / 4, "output follows input order");
        match line {
            l if l == good => assert_eq!(row["verdicts"]["partitioned-ffd-edf"], true),
            l if l == overloaded => assert_eq!(row["verdicts"]["partitioned-ffd-edf"], false),
            _ => assert!(row["error"].is_string(), "{row}"),
        }
    }
}

#[test]
fn analyze_file_exit_code_says_whether_every_test_accepted() {
    let dir = scratch();
    std::fs::write(
        dir.join("light.toml"),
        "cores = 2\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
    )
    .unwrap();
    let yes = kairos(
        &[
            "analyze",
            "light.toml",
            "--tests",
            "partitioned-ffd-edf,partitioned-ffd-fp",
        ],
        &dir,
    );
    assert_eq!(yes.status.code(), Some(0), "{}", stdout(&yes));
    std::fs::write(dir.join("heavy.toml"), "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3ms\"\nperiod = \"4ms\"\n[[tasks]]\nname = \"b\"\nwcet = \"2ms\"\nperiod = \"4ms\"\n").unwrap();
    let no = kairos(
        &["analyze", "heavy.toml", "--tests", "uni-edf-qpa", "--json"],
        &dir,
    );
    assert_eq!(no.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&no)).unwrap();
    assert_eq!(json["uni-edf-qpa"]["schedulable"], false);
    let unknown = kairos(&["analyze", "light.toml", "--tests", "nope"], &dir);
    assert_eq!(unknown.status.code(), Some(2));
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
                &["experiment", "exp.toml", "--out", "out", "--quiet"],
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
            "utilization,method,accepted,samples,ratio\n0.5,partitioned-ffd-edf,12,12,1.0000\n"
        ),
        "{csv}"
    );
    assert!(dir.join("out/acceptance.svg").exists() && dir.join("out/acceptance.png").exists());

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
    let out = kairos(&["experiment", "mc.toml", "--out", "out", "--quiet"], &dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("utilization,method,accepted,samples,ratio,preemptions_per_job,migrations_per_job")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3 * 2, "points x methods");
    for row in &rows {
        let accepted: u64 = row[2].parse().unwrap();
        // Quality is reported exactly when some system was accepted.
        assert_eq!(row[5].is_empty(), accepted == 0, "{row:?}");
        if accepted > 0 {
            assert!(row[5].parse::<f64>().unwrap() >= 0.0);
            assert!(row[6].parse::<f64>().unwrap() >= 0.0);
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
