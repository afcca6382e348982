//! Core partitions and the task assigner, on this machine's cgroups and, in a VM, on a kernel
//! whose cgroups are v2 alone. Behaviour only. They change the machine and need root: ignored by
//! a plain `cargo test`, run by the README's command and CI (as root). Each keeps its partition
//! state in its own folder (`KAIROS_STATE_DIR`) and one lock serialises them.

mod common;

use common::machine::{changed, snapshot};
use common::{stderr, stdout, vm, Scratch};
use serde_json::Value;
use std::process::Command;

fn other_cpu() -> String {
    let cpus = kairos_os::online_cpus();
    cpus.last().unwrap().to_string()
}

/// Partitions (with `extra` options), checks the mechanism kairos chose and that a new thread
/// stays off the RT CPU, resets, and compares the machine with what it was.
fn partition_then_reset(extra: &[&str], mechanism: &str) {
    let _lock = common::serial();
    let dir = Scratch::new("partition");
    let before = snapshot();
    let rt = other_cpu();
    let mut args = vec!["partition", "--rt", &rt, "--irqs", "--json"];
    args.extend_from_slice(extra);
    let out = dir.kairos_with_state(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["state"]["mechanism"], mechanism, "{report}");
    assert!(report["report"]["moved"].as_u64().unwrap() > 0, "{report}");
    let during = snapshot();
    assert!(
        !changed(&before, &during).is_empty(),
        "the partition changed nothing"
    );
    // A thread started now lands on the best-effort CPUs only.
    let probe = Command::new("grep")
        .args(["Cpus_allowed_list", "/proc/self/status"])
        .output()
        .unwrap();
    assert!(
        !stdout(&probe)
            .split_whitespace()
            .last()
            .unwrap()
            .contains(&rt),
        "{}",
        stdout(&probe)
    );
    let out = dir.kairos_with_state(&["partition", "--reset"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(changed(&before, &snapshot()), Vec::<String>::new());
    assert!(!dir.0.join("partition.json").exists());
}

#[test]
#[ignore = "changes cpusets, affinities and interrupts: needs root; the README's test command and CI run it"]
fn a_cpuset_partition_and_its_reset_leave_every_affinity_cpuset_and_irq_as_before() {
    partition_then_reset(&[], "cgroup-v1");
}

#[test]
#[ignore = "changes affinities and interrupts: needs root; the README's test command and CI run it"]
fn an_affinity_partition_and_its_reset_leave_everything_as_before() {
    partition_then_reset(&["--affinity-only"], "affinity");
}

#[test]
#[ignore = "changes cpusets and affinities: needs root; the README's test command and CI run it"]
fn a_killed_partition_run_is_undone_by_reset() {
    killed_run_undone();
}

fn killed_run_undone() {
    let _lock = common::serial();
    let dir = Scratch::new("partition-killed");
    let before = snapshot();
    let rt = other_cpu();
    let mut hold = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["partition", "--rt", &rt, "--hold"])
        .env("KAIROS_STATE_DIR", &dir.0)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let state = dir.0.join("partition.json");
    for _ in 0..100 {
        if !changed(&before, &snapshot()).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    hold.kill().unwrap(); // SIGKILL: no chance to clean up
    hold.wait().unwrap();
    assert!(state.exists(), "the state file survives the crash");
    assert!(!changed(&before, &snapshot()).is_empty());
    let out = dir.kairos_with_state(&["partition", "--reset"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(changed(&before, &snapshot()), Vec::<String>::new());
}

#[test]
#[ignore = "changes cpusets and sets real-time policies: needs root; the README's test command and CI run it"]
fn exec_runs_commands_in_their_partition_with_the_policy_asked_and_passes_their_status_through() {
    exec_in_partitions();
}

fn exec_in_partitions() {
    let _lock = common::serial();
    let dir = Scratch::new("exec");
    let rt = other_cpu();
    let out = dir.kairos_with_state(&["partition", "--rt", &rt]);
    assert!(out.status.success(), "{}", stderr(&out));
    // /proc/self/stat fields 40 and 41: rt_priority and policy (2 = SCHED_RR, 1 = FIFO).
    let show =
        "grep Cpus_allowed_list /proc/self/status; awk '{print $40, $41}' /proc/self/stat; exit 7";
    let run = dir.kairos_with_state(&[
        "exec",
        "--rt",
        "--policy",
        "rr",
        "--rt-priority",
        "12",
        "--",
        "sh",
        "-c",
        show,
    ]);
    let be = dir.kairos_with_state(&["exec", "--be", "--", "sh", "-c", show]);
    let killed = dir.kairos_with_state(&["exec", "--be", "--", "sh", "-c", "kill -TERM $$"]);
    let missing = dir.kairos_with_state(&["exec", "--be", "--", "/nonexistent/command"]);
    let reset = dir.kairos_with_state(&["partition", "--reset"]);
    assert!(reset.status.success(), "{}", stderr(&reset));
    assert_eq!(run.status.code(), Some(7), "{}", stderr(&run));
    let text = stdout(&run);
    assert!(
        text.contains(&format!("Cpus_allowed_list:\t{rt}\n")),
        "{text}"
    );
    assert!(text.contains("12 2"), "{text}");
    assert_eq!(be.status.code(), Some(7));
    assert!(
        !stdout(&be).contains(&format!("\t{rt}\n")),
        "{}",
        stdout(&be)
    );
    assert!(stdout(&be).contains("0 0"), "SCHED_OTHER: {}", stdout(&be));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(killed.status.signal(), Some(libc::SIGTERM));
    assert_eq!(missing.status.code(), Some(127));
}

#[test]
#[ignore = "boots a Linux VM under QEMU (scripts/test-deps installs it); the README's test command and CI run it"]
fn on_a_kernel_with_cgroup_v2_alone_or_no_cgroups_partitions_exec_and_reset_behave_the_same() {
    if !vm::inside() {
        // The emulated CPUs keep both host cores busy: the partition tests here wait.
        let _lock = common::serial();
        vm::run_inside(
            "on_a_kernel_with_cgroup_v2_alone_or_no_cgroups_partitions_exec_and_reset_behave_the_same",
            &[],
        );
        return;
    }
    vm::watchdog(vm::TEST_LIMIT);
    vm::assert_cgroup_v2_alone();
    vm::phase("partition and reset", || {
        partition_then_reset(&[], "cgroup-v2")
    });
    vm::phase("killed run", killed_run_undone);
    vm::phase("exec in partitions", exec_in_partitions);
    // Without any cgroup hierarchy (the VM is thrown away after), kairos falls back on
    // affinity masks by itself.
    let umount = Command::new("umount")
        .arg("/sys/fs/cgroup")
        .status()
        .unwrap();
    assert!(umount.success());
    vm::phase("affinity fallback", || {
        partition_then_reset(&[], "affinity")
    });
}
