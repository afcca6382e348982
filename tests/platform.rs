//! The platform commands: the OS-latency suite and its stressors, the interference line, the
//! load sweep and bad input (partitions and the task assigner: `partition.rs`). Behaviour only, never a latency bound. Those that touch the machine need root:
//! ignored by a plain `cargo test`, run by the README's command and CI (as root). Each keeps
//! its partition state in its own folder (`KAIROS_STATE_DIR`) and one lock serialises them.

mod common;

use common::machine::{changed, snapshot};
use common::{stderr, stdout, Scratch};
use serde_json::Value;
use std::process::Command;

#[test]
fn platform_commands_refuse_bad_input_with_exit_2() {
    let dir = Scratch::new("platform-bad");
    for (args, says) in [
        (vec!["exec", "--rt", "--", "true"], "no partition in place"),
        (
            vec!["partition", "--rt", "4095"],
            "not one of this machine's CPUs",
        ),
        (vec!["partition", "--rt", "3-1"], "a CPU list"),
        (
            vec!["platform", "latency", "--bench", "nope"],
            "unknown benchmark",
        ),
        (
            vec!["platform", "latency", "--stress", "cpu,bogus"],
            "unknown stressor",
        ),
        (
            vec!["platform", "interference", "--stressors", "bogus"],
            "unknown stressor",
        ),
    ] {
        let out = dir.kairos_with_state(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    let out = dir.kairos_with_state(&["partition", "--reset"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("nothing to undo"));
}

fn stress_ng_running() -> bool {
    Command::new("pgrep")
        .args(["-x", "stress-ng"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether one of kairos's own stressors (`kairos stressor NAME`) is running.
fn own_stressor_running() -> bool {
    Command::new("pgrep")
        .args(["-f", "kairos stressor "])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What a stopped measurement left behind: stress-ng's folders in the working directory
/// `cwd` (where it writes without `--temp-path`, and which a SIGKILL leaves) and kairos's
/// folders for stress-ng and for the suite's files under the temporary directory.
fn leftovers(cwd: &std::path::Path) -> Vec<String> {
    let names = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.path().display().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut left: Vec<String> = names(cwd)
        .into_iter()
        .filter(|p| p.contains("stress-ng"))
        .collect();
    left.extend(
        names(&std::env::temp_dir())
            .into_iter()
            .filter(|p| p.contains("kairos-stress-") || p.contains("kairos-oslat-")),
    );
    left
}

/// The sockets stress-ng's `syscall` stressor binds in `/tmp` whatever `--temp-path` says.
fn client_sockets() -> std::collections::BTreeSet<String> {
    (std::fs::read_dir("/tmp").into_iter().flatten().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("stress-ng-client-"))
        .collect()
}

#[test]
#[ignore = "runs SCHED_FIFO and stress-ng: needs root; the README's test command and CI run it"]
fn the_latency_suite_measures_every_benchmark_with_and_without_stress_and_stops_its_stressors() {
    let _lock = common::serial();
    let dir = Scratch::new("latency");
    let sockets_before = client_sockets();
    let out = dir.kairos_with_state(&[
        "platform",
        "latency",
        "--samples",
        "20",
        "--stress",
        "cpu,fork,syscall,static-key",
        "--json",
        "--quiet",
        "--out-dir",
        "out",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stress_ng_running(), "stress-ng outlived the command");
    assert!(
        !own_stressor_running(),
        "kairos's stressor outlived the command"
    );
    assert_eq!(leftovers(&dir.0), Vec::<String>::new());
    let sockets_after = client_sockets();
    let left: Vec<&String> = sockets_after.difference(&sockets_before).collect();
    assert!(
        left.is_empty(),
        "the syscall stressor's sockets stayed: {left:?}"
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        report["stress"]["stressors"][3], "static-key",
        "{}",
        report["stress"]
    );
    for key in ["benchmarks", "stressed"] {
        let rows = report[key].as_array().unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "ctx", "fcntl", "mmap", "proc", "signal", "syscall", "unix", "fifo", "fs", "pipe",
                "sem", "udp"
            ]
        );
        for r in rows {
            let v = |k: &str| r[k].as_u64().unwrap();
            assert_eq!(v("n"), 20, "{r}");
            assert!(
                v("min_ns") > 0
                    && v("min_ns") <= v("mcet_ns")
                    && v("mcet_ns") <= v("p99_ns")
                    && v("p99_ns") <= v("wcet_ns"),
                "{r}"
            );
        }
    }
    assert_eq!(report["deterioration"].as_array().unwrap().len(), 12);
    for f in ["latency.json", "latency.csv", "latency.svg", "latency.png"] {
        assert!(dir.0.join("out").join(f).exists(), "{f}");
    }
}

#[test]
#[ignore = "runs SCHED_FIFO and stress-ng: needs root; the README's test command and CI run it"]
fn stressors_do_not_outlive_a_killed_measurement() {
    let _lock = common::serial();
    let dir = Scratch::new("killed-latency");
    let mut run = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .current_dir(&dir.0)
        .args([
            "platform",
            "latency",
            "--bench",
            "fs",
            "--samples",
            "60",
            "--stress",
            "cpu,syscall,static-key",
            "--quiet",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = false;
    // The quiet pass comes first (seconds of file batches), then the stressed one.
    for _ in 0..800 {
        seen = stress_ng_running() && own_stressor_running();
        if seen {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen, "stress-ng never started");
    run.kill().unwrap();
    run.wait().unwrap();
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !stress_ng_running() && !own_stressor_running()
    });
    assert!(gone, "a stressor outlived a killed kairos");
    // The killed run could not remove its folders; the next stressed run does.
    let next = dir.kairos_with_state(&[
        "platform",
        "latency",
        "--bench",
        "syscall",
        "--samples",
        "5",
        "--stress",
        "cpu",
        "--quiet",
    ]);
    assert!(next.status.success(), "{}", stderr(&next));
    assert_eq!(leftovers(&dir.0), Vec::<String>::new());
}

#[test]
#[ignore = "runs SCHED_FIFO and stress-ng: needs root; the README's test command and CI run it"]
fn interference_fits_a_line_per_benchmark_and_figure_over_the_stressed_cores() {
    let _lock = common::serial();
    let dir = Scratch::new("interference");
    let out = dir.kairos_with_state(&[
        "platform",
        "interference",
        "--bench",
        "proc,syscall",
        "--samples",
        "300",
        "--stressors",
        "cpu",
        "--repeat",
        "2",
        "--json",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cores = kairos_os::online_cpus().len();
    assert_eq!(report["points"].as_array().unwrap().len(), 2 * cores);
    let fits = report["fits"].as_array().unwrap();
    assert_eq!(fits.len(), 2 * 3);
    for f in fits {
        assert_eq!(f["values_us"].as_array().unwrap().len(), cores);
        let r2 = f["r2"].as_f64().unwrap();
        assert!((0.0..=1.0 + 1e-9).contains(&r2), "{f}");
    }
}

#[test]
#[ignore = "runs SCHED_FIFO, stress-ng and a partition: needs root; the README's test command and CI run it"]
fn the_load_sweep_measures_three_configurations_and_leaves_the_machine_as_it_was() {
    let _lock = common::serial();
    let dir = Scratch::new("load-sweep");
    let before = snapshot();
    let out = dir.kairos_with_state(&[
        "platform",
        "load-sweep",
        "--loads",
        "0,100",
        "--duration",
        "300ms",
        "--json",
        "--quiet",
        "--out-dir",
        "out",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(changed(&before, &snapshot()), Vec::<String>::new());
    assert!(!dir.0.join("partition.json").exists());
    assert!(!stress_ng_running());
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let points = report["points"].as_array().unwrap();
    let configs: Vec<(&str, u64)> = points
        .iter()
        .map(|p| {
            (
                p["config"].as_str().unwrap(),
                p["load_pct"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        configs,
        [
            ("standard", 0),
            ("standard", 100),
            ("fifo", 0),
            ("fifo", 100),
            ("partitioned", 0),
            ("partitioned", 100)
        ]
    );
    for p in points {
        // 300 wake-ups of 1 ms, give or take the start and a stop.
        let n = p["latency_ns"]["count"].as_u64().unwrap();
        assert!((250..=301).contains(&n), "{p}");
        assert_eq!(
            p["period_jitter_ns"]["count"].as_u64().unwrap(),
            n - 1,
            "{p}"
        );
        let buckets = p["period_jitter_histogram"].as_array().unwrap();
        let total: u64 = buckets.iter().map(|b| b[1].as_u64().unwrap()).sum();
        assert_eq!(total, n - 1, "{p}");
    }
    for f in [
        "load-sweep.json",
        "load-sweep.csv",
        "load-sweep.svg",
        "load-sweep.png",
    ] {
        assert!(dir.0.join("out").join(f).exists(), "{f}");
    }
}
