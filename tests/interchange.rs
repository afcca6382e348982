//! Interchange with the tools researchers already use: SimSo configurations written by SimSo
//! itself import and simulate to SimSo's own counts; an rt-app export runs under rt-app and
//! every task's periods show in its logs. Both need the tools (SimSo in the venv that CI
//! creates, rt-app from Debian, root for its real-time threads): ignored by a plain
//! `cargo test`, run by the README's command and CI, and failing, not skipping, when the
//! tool is missing.

mod common;

use common::{stderr, stdout, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kairos(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kairos")
}

fn simso_python() -> PathBuf {
    let python =
        PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/simso-venv/bin/python");
    assert!(
        python.exists(),
        "SimSo's venv is missing: .ci/run creates it (docs/simulate.md#reproducing)"
    );
    python
}

/// "key value" lines as a map.
fn counts(text: &str) -> std::collections::HashMap<String, u64> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(k, v)| Some((k.to_string(), v.trim().parse().ok()?)))
        .collect()
}

#[test]
#[ignore = "needs SimSo 0.8.5 in ~/.cache/simso-venv (CI creates it)"]
fn simso_written_configurations_import_and_simulate_to_simsos_counts() {
    let dir = Scratch::new("simso-import");
    let script = format!("{}/tests/data/simso_write.py", env!("CARGO_MANIFEST_DIR"));
    for (class, policy) in [
        ("simso.schedulers.EDF", "gedf"),
        ("simso.schedulers.RM", "gfp"),
    ] {
        let xml = dir.0.join("config.xml");
        let simso = Command::new(simso_python())
            .args([&script, &xml.display().to_string(), class])
            .output()
            .expect("run SimSo");
        assert!(simso.status.success(), "{}", stderr(&simso));
        let theirs = counts(&stdout(&simso));
        let import = kairos(
            &dir.0,
            &["import", "simso", "config.xml", "-o", "imported.toml"],
        );
        assert!(import.status.success(), "{}", stderr(&import));
        let hint = stderr(&import);
        let run_line = hint
            .lines()
            .find(|l| l.starts_with("SimSo's run: "))
            .expect(&hint);
        assert!(
            run_line.contains(&format!("--policy {policy}")),
            "{run_line}"
        );
        let duration = run_line.rsplit(' ').next().unwrap();
        let ours = kairos(
            &dir.0,
            &[
                "simulate",
                "imported.toml",
                "--policy",
                policy,
                "--duration",
                duration,
                "--json",
            ],
        );
        assert!(ours.status.success(), "{}", stderr(&ours));
        let ours: Value = serde_json::from_slice(&ours.stdout).unwrap();
        for key in ["jobs_released", "jobs_completed"] {
            assert_eq!(
                ours[key].as_u64(),
                theirs.get(key).copied(),
                "{class}: {key}"
            );
        }
    }
}

/// rt-app's per-thread log rows: the `c_period` column (µs) of each row.
fn logged_periods(log: &str) -> Vec<u64> {
    let mut lines = log.lines();
    let header = lines
        .by_ref()
        .find(|l| l.contains("c_period"))
        .unwrap_or_default();
    let column = header
        .split_whitespace()
        .filter(|w| *w != "#")
        .position(|w| w == "c_period");
    let Some(column) = column else {
        return Vec::new();
    };
    lines
        .filter_map(|l| l.split_whitespace().nth(column)?.parse().ok())
        .collect()
}

#[test]
#[ignore = "needs root and rt-app (CI installs it)"]
fn an_rt_app_export_runs_and_every_task_shows_its_periods() {
    let dir = Scratch::new("rt-app");
    let file = format!(
        "{}/examples/runtime-2cores.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let export = kairos(
        &dir.0,
        &[
            "export",
            "rt-app",
            &file,
            "-o",
            "tasks.json",
            "--duration",
            "2s",
        ],
    );
    assert!(export.status.success(), "{}", stderr(&export));
    // A bound, not a speed: rt-app takes 9 to 14 s of wall time here for these 2 s (its own
    // start-up and teardown around the run), and a CI run under load once passed 30 s.
    let run = Command::new("timeout")
        .args(["-s", "KILL", "120", "rt-app", "tasks.json"])
        .current_dir(&dir.0)
        .output()
        .expect("rt-app is installed (Debian: apt install rt-app)");
    assert!(
        run.status.success(),
        "rt-app: {}{}",
        stdout(&run),
        stderr(&run)
    );
    let exported: Value =
        serde_json::from_slice(&std::fs::read(dir.0.join("tasks.json")).unwrap()).unwrap();
    for (name, task) in exported["tasks"].as_object().unwrap() {
        let period = task["timer"]["period"].as_u64().unwrap();
        let log = std::fs::read_dir(&dir.0)
            .unwrap()
            .flatten()
            .find(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(&format!("rt-app-{name}-")) && n.ends_with(".log")
            })
            .unwrap_or_else(|| panic!("no rt-app log for {name}"));
        let periods = logged_periods(&std::fs::read_to_string(log.path()).unwrap());
        // 2 s of periods, less the start-up: at least half of them, each the exported period.
        assert!(
            periods.len() as u64 >= 1_000_000 / period,
            "{name}: {} rows",
            periods.len()
        );
        assert!(periods.iter().all(|p| *p == period), "{name}: {periods:?}");
    }
}
