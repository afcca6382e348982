//! The RT-Xen study (`kairos experiment` on a config with `study = "rt-xen"`) at a small scale:
//! every figure's CSV, no set the analysis accepts misses in simulation, the interfaces'
//! bandwidth never below the tasks' utilization, reproducible and resumable, and its config
//! errors explained.

mod common;

use common::{stderr, stdout, Scratch};
use serde_json::Value;

const STUDY: &str = r#"
study = "rt-xen"
name = "small"
distribution = "bimo-medium"
seed = 7
samples = 3
duration = "2s"
table_utilization = 2.5
[utilization]
from = 1.1
to = 3.9
step = 1.4
"#;

fn run(dir: &Scratch, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["experiment", "study.toml", "--out-dir", "out", "--quiet"];
    args.extend_from_slice(extra);
    dir.kairos(&args)
}

#[test]
fn the_study_writes_every_figure_and_its_analysis_is_never_contradicted() {
    let dir = Scratch::new("rtxen");
    dir.write("study.toml", STUDY);
    let out = run(&dir, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let points = summary["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        let u = p["utilization"].as_f64().unwrap();
        let missed: u64 = (p["accepted_but_missed"].as_array().unwrap().iter())
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(missed, 0, "U = {u}: sets the analysis accepted missed");
        for g in 0..2 {
            let n = p["bandwidth_sets"][g].as_u64().unwrap();
            if n > 0 {
                let mean = p["bandwidth_sum"][g].as_f64().unwrap() / n as f64;
                assert!(mean >= u - 1e-3, "U = {u}: interfaces of {mean} cores");
            }
        }
        for sim in p["practice"]
            .as_array()
            .unwrap()
            .iter()
            .chain([&p["credit"]])
        {
            assert!(sim["misses"].as_u64() <= sim["released"].as_u64());
        }
    }
    // At U = 1.1 every RT configuration meets every deadline; the analysis accepts it too.
    let low = &points[0];
    assert!(low["practice_accepted"]
        .as_array()
        .unwrap()
        .iter()
        .all(|v| v.as_u64() == Some(3)));
    assert!(low["theory_accepted"]
        .as_array()
        .unwrap()
        .iter()
        .all(|v| v.as_u64() == Some(3)));
    for file in [
        "theory",
        "practice",
        "bandwidth",
        "miss-ratio",
        "servers",
        "back-to-back",
    ] {
        let csv = dir.read(&format!("out/{file}.csv"));
        assert!(csv.lines().count() >= 2, "{file}.csv: {csv}");
    }
    assert!(dir
        .read("out/back-to-back.csv")
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("gEDF,0.")));
    // Same config: resumed, the same files; --fresh recomputes them identically.
    let (theory, misses) = (dir.read("out/theory.csv"), dir.read("out/miss-ratio.csv"));
    let again = run(&dir, &[]);
    assert!(
        stderr(&again).contains("resuming: 3 point(s) already done"),
        "{}",
        stderr(&again)
    );
    assert_eq!(dir.read("out/theory.csv"), theory);
    let fresh = run(&dir, &["--fresh"]);
    assert!(fresh.status.success());
    assert_eq!(dir.read("out/theory.csv"), theory);
    assert_eq!(dir.read("out/miss-ratio.csv"), misses);
}

#[test]
fn a_study_config_with_an_error_is_refused_with_the_reason() {
    let dir = Scratch::new("rtxen-bad");
    for (text, says) in [
        (
            STUDY.replace("samples = 3", "sampels = 3"),
            "unknown key `sampels`",
        ),
        (STUDY.replace("bimo-medium", "bimo-hevy"), "bimo-heavy"),
        (
            STUDY.replace("study = \"rt-xen\"", "study = \"rt-xenn\""),
            "the studies are \"rt-xen\" and \"guarantees\"",
        ),
        (
            STUDY.replace("duration = \"2s\"", "duration = \"0s\""),
            "must be greater than zero",
        ),
        (
            format!("execution = \"virtual\"\n{STUDY}"),
            "execution = \"simulated\" or \"real\"",
        ),
        (
            format!("periods = [\"170ms\", \"70ms\"]\n{STUDY}"),
            "170ms is above 70ms",
        ),
        (
            format!("periods = [\"70500us\", \"170ms\"]\n{STUDY}"),
            "whole number of milliseconds",
        ),
        (REAL.replace("cores = 2", "cores = 4096"), "online CPU(s)"),
    ] {
        dir.write("study.toml", text);
        let out = run(&dir, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{says}: {}", stderr(&out));
    }
}

#[test]
fn kairos_check_reports_every_error_of_a_study_config_at_once_each_at_its_line() {
    let dir = Scratch::new("rtxen-errors");
    let text = STUDY
        .replace("samples = 3", "samples = 0")
        .replace("duration = \"2s\"", "duration = \"2 parsecs\"");
    dir.write("study.toml", format!("guest = \"xen\"\n{text}"));
    let out = dir.kairos(&["check", "study.toml", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let found: Vec<(u64, &str)> = (report["diagnostics"].as_array().unwrap().iter())
        .map(|d| (d["line"].as_u64().unwrap(), d["path"].as_str().unwrap()))
        .collect();
    // `guest` on line 1; the study's text starts on line 2 with an empty line.
    assert_eq!(
        found,
        [(1, "guest"), (7, "samples"), (8, "duration")],
        "{report}"
    );
}

const REAL: &str = r#"
study = "rt-xen"
name = "real"
distribution = "bimo-medium"
execution = "real"
seed = 3
cores = 2
domains = 2
samples = 1
periods = ["70ms", "170ms"]
vcpu_period = "5ms"
duration = "400ms"
table_utilization = 0.7
[utilization]
from = 0.7
to = 0.7
step = 0.2
"#;

#[test]
fn a_real_study_plans_its_runs_without_running_them() {
    let dir = Scratch::new("rtxen-real-plan");
    dir.write("study.toml", REAL);
    let out = run(&dir, &["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan = stdout(&out);
    assert!(plan.contains("400ms run on real cores"), "{plan}");
    assert!(plan.contains("5 s of runs in all"), "{plan}");
}

/// The real-run version on this machine's cores: every configuration ran and released what its
/// simulated twin released over the same time; the VCPUs were replenished as often. Behaviour
/// only: how many deadlines the runs miss depends on the machine.
#[test]
#[ignore = "runs on real cores: needs SCHED_FIFO (root); the README's test command and CI run it"]
fn a_real_study_runs_every_configuration_on_real_cores_beside_its_simulated_twin() {
    let dir = Scratch::new("rtxen-real");
    dir.write("study.toml", REAL);
    let out = run(&dir, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let point = &summary["points"][0];
    let (measured, simulated) = (&point["measured"], point);
    let runs = |of: &Value| -> Vec<Value> {
        let mut all: Vec<Value> = of["practice"].as_array().unwrap().clone();
        all.extend(of["deferrable"].as_array().unwrap().iter().cloned());
        all.push(of["credit"].clone());
        all
    };
    let (real, twin) = (runs(measured), runs(simulated));
    assert_eq!(real.len(), 13);
    let count = |v: &Value, key: &str| v[key].as_u64().unwrap() as i64;
    for (r, t) in real.iter().zip(&twin) {
        assert_eq!(count(r, "sets"), count(t, "sets"), "{r} {t}");
        if count(r, "sets") == 0 {
            continue;
        }
        assert!(count(r, "released") > 0, "{r}");
        assert!(
            (count(r, "released") - count(t, "released")).abs() <= 2,
            "released: real {r}, simulated {t}"
        );
        let (rr, tr) = (count(r, "replenishments"), count(t, "replenishments"));
        assert!(
            (rr - tr).abs() * 20 <= tr.max(1),
            "replenishments: real {r}, simulated {t}"
        );
    }
    assert_eq!(
        real.iter().filter(|r| count(r, "sets") > 0).count(),
        13,
        "every configuration had interfaces at U = 0.7"
    );
    for (file, lines) in [
        ("practice-real", 2),
        ("miss-ratio-real", 2),
        ("servers-real", 2),
        ("back-to-back-real", 1 + 4),
    ] {
        let csv = dir.read(&format!("out/{file}.csv"));
        assert_eq!(csv.lines().count(), lines, "{file}.csv: {csv}");
    }
}
