//! `kairos manage` on this machine's cores, free and constrained: each run is bounded, its
//! outputs are read back, and the machine is compared field by field before and after (thread
//! affinities and cpusets, interrupts, every cgroup directory, the root cpuset's balancing).
//! Behaviour only, never a latency bound. Needs root: ignored by a plain `cargo test`, run by
//! the README's command and CI.

mod common;
#[path = "manage/phases.rs"]
mod phases;

use common::machine::{cgroups_added_or_removed, changed, snapshot};
use common::{stderr, vm, Scratch};
use serde_json::Value;
use std::process::Command;

/// A file of examples/manage.
fn example(name: &str) -> String {
    format!("{}/examples/manage/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `kairos manage` on `file` for 3 s and returns its JSON, after checking that nothing it
/// set remains.
fn managed_run(file: &str, extra: &[&str]) -> Value {
    managed_run_for(file, "3s", extra)
}

/// [`managed_run`] for `duration`.
fn managed_run_for(file: &str, duration: &str, extra: &[&str]) -> Value {
    let _serial = common::serial();
    let dir = Scratch::new("manage");
    let out = dir.0.join("out");
    let before = snapshot();
    let mut args = vec![
        "manage",
        file,
        "--duration",
        duration,
        "--isolation",
        "500ms",
        "--json",
        "--out-dir",
    ];
    let out_text = out.display().to_string();
    args.push(&out_text);
    args.extend(extra);
    let run = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(&args)
        .env("KAIROS_STATE_DIR", &dir.0)
        .output()
        .expect("run kairos");
    let after = snapshot();
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(
        changed(&before, &after),
        Vec::<String>::new(),
        "values kairos changed"
    );
    assert_eq!(
        cgroups_added_or_removed(&before, &after),
        Vec::<String>::new()
    );
    assert!(
        !dir.0.join("partition.json").exists(),
        "the state file is gone"
    );
    for file in ["manage.json", "periods.csv", "changes.csv"] {
        assert!(out.join(file).exists(), "{file}");
    }
    serde_json::from_slice(&run.stdout).expect("JSON")
}

fn periods(json: &Value) -> &Vec<Value> {
    json["periods"].as_array().expect("periods")
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups, SCHED_FIFO (CI runs it)"]
fn free_execution_runs_each_job_to_completion_beside_a_throttled_load() {
    free_run(&example("free.toml"));
}

fn free_run(file: &str) {
    let json = managed_run(file, &[]);
    assert_eq!(json["execution"], "free");
    let periods = periods(&json);
    // 3 s of 20 ms periods; jobs that overrun delay the next ones.
    assert!(periods.len() > 50, "{}", periods.len());
    assert!(json["expected_ns"].as_u64().unwrap() > 0);
    for p in periods {
        // Free execution: a job runs to completion, so its wall time is its execution.
        let (start, response, t) = (
            p["start_ns"].as_u64().unwrap(),
            p["response_ns"].as_u64().unwrap(),
            p["t_rt_ns"].as_u64().unwrap(),
        );
        assert_eq!(start + t, response, "{p}");
    }
    let share = &json["be_share"][0];
    assert_eq!(share["core"], 1);
    assert!(
        share["received"].as_f64().unwrap() > 0.0,
        "the load ran: {share}"
    );
    assert!(json["best_effort"][0]["units"].as_u64().unwrap() > 0);
    assert_eq!(json["model"].as_array().unwrap().len(), 1);
    assert!(json["model"][0].get("r2").is_none(), "R² is the model's");
    let r2 = &json["model_r2"];
    assert!(
        r2.is_null() || r2.as_f64().is_some_and(|r2| r2 <= 1.0 + 1e-9),
        "{r2}"
    );
    assert!(json["deadline_misses"].as_u64().is_some());
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups, SCHED_DEADLINE (CI runs it)"]
fn constrained_execution_spreads_a_job_over_the_reservation_periods() {
    constrained_run();
}

fn constrained_run() {
    let json = managed_run(&example("constrained.toml"), &[]);
    assert_eq!(json["execution"], "constrained");
    let periods = periods(&json);
    // 3 s of 30 ms jobs.
    assert!(periods.len() > 50, "{}", periods.len());
    let p = json["period_ns"].as_u64().unwrap();
    // Three periods of P before the deadline: the manager sizes S_RT to a third of the
    // demand (more while a backlog is worked off), so the reservation ends up below the
    // job's CPU time and jobs span periods. The job is longer than S_RT plus a 4 ms tick,
    // so a kernel enforcing budgets at the tick cannot let one finish within a period.
    let rt: Vec<u64> = periods
        .iter()
        .map(|r| r["rt_share_ns"].as_u64().unwrap())
        .collect();
    let cpu = json["expected_ns"].as_u64().unwrap();
    assert!(
        *rt.last().unwrap() < cpu,
        "S_RT {} for a job of {cpu} ns",
        rt.last().unwrap()
    );
    let spanning = periods
        .iter()
        .filter(|r| r["response_ns"].as_u64().unwrap() > p)
        .count();
    assert!(
        spanning * 2 > periods.len(),
        "{spanning} of {} jobs spanned a period",
        periods.len()
    );
    let changes = json["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["to"]["rt_ns"] != c["from"]["rt_ns"]),
        "{changes:?}"
    );
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups (CI runs it)"]
fn an_unmanaged_run_holds_the_files_allocations() {
    let json = managed_run(&example("free.toml"), &["--unmanaged"]);
    assert_eq!(json["managed"], false);
    assert_eq!(json["changes"].as_array().unwrap().len(), 0);
    for p in periods(&json) {
        assert_eq!(p["be_share_ns"][0], 20_000_000, "{p}");
    }
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups (CI runs it)"]
fn a_load_held_at_the_smallest_quota_still_reports_its_work() {
    let file = format!(
        "{}/tests/data/manage-floor-stream.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let json = managed_run(&file, &["--unmanaged"]);
    let load = &json["best_effort"][0];
    // stress-ng writes its report only when it can run after the interrupt: at 1 ms of every
    // 20 ms it could not within the time it is given, unless its quota is lifted first.
    assert_eq!(load["per_stressor"][0][0], "stream", "{load}");
    assert!(load["units"].as_u64().unwrap() > 0, "{load}");
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups (CI runs it)"]
fn a_signalled_run_undoes_itself_and_a_killed_one_is_undone_by_the_partition_reset() {
    signals_undone();
}

fn signals_undone() {
    let _serial = common::serial();
    let dir = Scratch::new("manage-signals");
    let file = example("free.toml");
    let before = snapshot();
    for signal in [libc::SIGTERM, libc::SIGKILL] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args([
                "manage",
                &file,
                "--duration",
                "60s",
                "--isolation",
                "500ms",
                "--quiet",
            ])
            .env("KAIROS_STATE_DIR", &dir.0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start kairos");
        // Past the set-up: the partition, the groups and the load are in place.
        std::thread::sleep(std::time::Duration::from_secs(3));
        assert!(
            dir.0.join("partition.json").exists(),
            "the run recorded its changes"
        );
        // SAFETY: signals the child this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        if signal == libc::SIGKILL {
            assert!(
                dir.0.join("partition.json").exists(),
                "a killed run leaves its record"
            );
            let reset = Command::new(env!("CARGO_BIN_EXE_kairos"))
                .args(["partition", "--reset"])
                .env("KAIROS_STATE_DIR", &dir.0)
                .output()
                .unwrap();
            assert!(reset.status.success(), "{}", stderr(&reset));
        } else {
            assert!(
                status.code().is_some(),
                "a stopped run exits on its own: {status}"
            );
        }
        let after = snapshot();
        assert!(!dir.0.join("partition.json").exists(), "signal {signal}");
        assert_eq!(
            changed(&before, &after),
            Vec::<String>::new(),
            "signal {signal}"
        );
        assert_eq!(
            cgroups_added_or_removed(&before, &after),
            Vec::<String>::new(),
            "signal {signal}"
        );
    }
}

/// free.toml with a CPU-bound load (see the file): what the VM's emulated CPUs complete work of.
fn free_in_vm() -> String {
    format!(
        "{}/tests/data/manage-free-cpu.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
#[ignore = "boots a Linux VM under QEMU (scripts/test-deps installs it); the README's test command and CI run it"]
fn on_a_kernel_with_cgroup_v2_alone_free_and_constrained_runs_and_their_undoing_behave_the_same() {
    if vm::inside() {
        vm::watchdog(vm::TEST_LIMIT);
        vm::assert_cgroup_v2_alone();
        vm::phase("free run", || free_run(&free_in_vm()));
        vm::phase("constrained run", constrained_run);
        vm::phase("signalled runs", signals_undone);
        return;
    }
    let files = [
        free_in_vm(),
        example("constrained.toml"),
        example("free.toml"),
    ];
    let mut extra: Vec<&std::path::Path> = files.iter().map(std::path::Path::new).collect();
    extra.push(std::path::Path::new("/usr/bin/stress-ng"));
    // The emulated CPUs keep both host cores busy: the real-time runs here wait.
    let _serial = common::serial();
    vm::run_inside(
        "on_a_kernel_with_cgroup_v2_alone_free_and_constrained_runs_and_their_undoing_behave_the_same",
        &extra,
    );
}
