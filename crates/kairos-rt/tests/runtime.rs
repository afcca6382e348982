//! Real runs on this machine's cores: bounded, behaviour only, never a latency bound. Each test
//! needs real-time privilege: it is ignored by a plain `cargo test` and fails, saying what is
//! missing, when run with `--include-ignored` without it (`tests/common`); CI runs them as root. One lock serialises them: they share the
//! CPUs and the process-wide signal disposition, and they scan the process's threads.

use kairos_model::{check_source, Format, Workload};
use kairos_os::{clock, privilege, sched, signals::StopSignals, thread, PlatformError};
use kairos_rt::calibrate::{calibrate, Calibration, JobBody};
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::{plan, run_periodic, PeriodicConfig, PeriodicPolicy, RunError};
use kairos_rt::watchdog::RunControl;
use std::sync::Arc;

mod common;
use common::{assert_no_rt_thread_left, require_cpus, require_rt, serial};

const TWO_TASKS: &str = r#"
name = "two"
cores = 2
[[tasks]]
name = "fast"
wcet = "1ms"
period = "10ms"
[[tasks]]
name = "slow"
wcet = "2ms"
period = "20ms"
deadline = "15ms"
"#;

fn workload(source: &str) -> Workload {
    check_source(source, Format::Toml)
        .workload
        .expect("test workload is valid")
}

fn calibrated(w: &Workload, config: &PeriodicConfig) -> Calibration {
    require_cpus(w.cores);
    let plan = plan(w, config, &kairos_os::online_cpus()).expect("plan");
    calibrate(&plan.cpus).expect("calibration")
}

fn run(w: &Workload, config: &PeriodicConfig) -> Result<RunResult, RunError> {
    run_periodic(w, config, &calibrated(w, config), RunControl::new())
}

/// Jobs of each task released in [0, 300 ms): 30 of `fast`, 15 of `slow`.
fn assert_expected_jobs(result: &RunResult) {
    let per_task: Vec<u64> = result.tasks.iter().map(|t| t.jobs_released).collect();
    assert_eq!(per_task, vec![30, 15], "{:?}", result.tasks);
    // Every job runs to completion: the run ends after the last release, not mid-job.
    assert_eq!(result.jobs_completed, 45);
    assert_eq!(result.release_latency_ns.count, 45);
    assert!(result.release_latency_ns.min <= result.release_latency_ns.max);
    assert_eq!(result.stopped_by, None);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn partitioned_fp_releases_and_completes_every_job() {
    let _lock = serial();
    require_rt();
    let w = workload(TWO_TASKS);
    let result = run(&w, &PeriodicConfig::new(PeriodicPolicy::Pfp, 300_000_000)).expect("run");
    assert_expected_jobs(&result);
    // Pinned threads never migrate.
    assert_eq!(result.migrations, 0);
    assert_no_rt_thread_left();
    // The trace has one release and one completion per job, and busy segments of each job
    // add up to at least its WCET (CPU time is what busy work counts).
    let trace = &result.trace;
    let releases = trace
        .events
        .iter()
        .filter(|e| matches!(e, kairos_trace::TraceEvent::Release { .. }))
        .count();
    assert_eq!(releases, 45);
    let fast_job0: u64 = trace
        .segments()
        .filter(|s| s.1 == 0 && s.2 == 0)
        .map(|s| s.4.as_nanos() - s.3.as_nanos())
        .sum();
    assert!(fast_job0 >= 900_000, "fast#0 segments cover {fast_job0} ns");
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn global_fp_releases_and_completes_every_job() {
    let _lock = serial();
    require_rt();
    let w = workload(TWO_TASKS);
    let result = run(&w, &PeriodicConfig::new(PeriodicPolicy::Gfp, 300_000_000)).expect("run");
    assert_expected_jobs(&result);
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn edf_through_sched_deadline_releases_and_completes_every_job() {
    let _lock = serial();
    require_rt();
    let w = workload(TWO_TASKS);
    match run(&w, &PeriodicConfig::new(PeriodicPolicy::Edf, 300_000_000)) {
        Ok(result) => assert_expected_jobs(&result),
        Err(e) => {
            panic!("the SCHED_DEADLINE run failed (this test needs a kernel that admits it): {e}")
        }
    }
    assert_no_rt_thread_left();
}

/// Two tasks of 6 ms every 10 ms on one core (U = 1.2) under partitioned FP: the low-priority
/// thread falls further behind at every period. Every release before the end still happens:
/// the thread works off its backlog (it used to stop at the end of the run and lose the
/// releases it had not reached, as a host stall near the end did to the SCHED_DEADLINE test).
#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_thread_behind_its_releases_still_runs_every_job_due_before_the_end() {
    let _lock = serial();
    require_rt();
    let w = workload(
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"6ms\"\nperiod = \"10ms\"\ncore = 0\n\
         [[tasks]]\nname = \"b\"\nwcet = \"6ms\"\nperiod = \"10ms\"\ncore = 0\n",
    );
    let result = run(&w, &PeriodicConfig::new(PeriodicPolicy::Pfp, 100_000_000)).expect("run");
    let released: Vec<u64> = result.tasks.iter().map(|t| t.jobs_released).collect();
    assert_eq!(released, vec![10, 10], "{:?}", result.tasks);
    assert_eq!(
        result.jobs_completed, 20,
        "the backlog is worked off after the end"
    );
    assert!(
        result.tasks[1].deadline_misses > 0,
        "b is overloaded: {:?}",
        result.tasks
    );
    assert_no_rt_thread_left();
}

/// SCHED_DEADLINE admission is on unless `sched_rt_runtime_us` is -1; the test needs it on.
fn require_admission_control() {
    let limit = std::fs::read_to_string("/proc/sys/kernel/sched_rt_runtime_us")
        .expect("/proc/sys/kernel/sched_rt_runtime_us is readable");
    assert_ne!(
        limit.trim(),
        "-1",
        "this test needs deadline admission control, which sched_rt_runtime_us = -1 turns off"
    );
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn sched_deadline_over_the_admission_limit_is_explained() {
    let _lock = serial();
    require_rt();
    require_admission_control();
    // Three tasks of bandwidth 0.9 ask for 2.7 CPUs: more than any 2-CPU machine admits.
    let cpus = kairos_os::online_cpus().len();
    let mut source = format!("cores = {cpus}\n");
    for i in 0..=cpus {
        source.push_str(&format!(
            "[[tasks]]\nname = \"t{i}\"\nwcet = \"9ms\"\nperiod = \"10ms\"\n"
        ));
    }
    let w = workload(&source);
    let mut config = PeriodicConfig::new(PeriodicPolicy::Edf, 50_000_000);
    config.edf_margin_ratio = 0.0;
    config.edf_margin_ns = 0;
    match run(&w, &config) {
        Err(RunError::Platform(PlatformError::DeadlineRefused(why))) => {
            assert!(why.contains("EBUSY") || why.contains("EPERM"), "{why}");
        }
        Ok(_) => panic!(
            "the kernel admitted {:.1} CPUs of SCHED_DEADLINE bandwidth on {cpus} CPUs",
            0.9 * (cpus + 1) as f64
        ),
        Err(e) => panic!("unexpected failure: {e}"),
    }
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn sigint_stops_a_run_cleanly_and_leaves_no_rt_thread() {
    let _lock = serial();
    require_rt();
    let w = workload(TWO_TASKS);
    let config = PeriodicConfig::new(PeriodicPolicy::Pfp, 10_000_000_000);
    let calibration = calibrated(&w, &config);
    let guard = StopSignals::install();
    let pid = std::process::id().to_string();
    let sender = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let status = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status();
        assert!(status.is_ok_and(|s| s.success()), "kill -INT failed");
    });
    let began = clock::now_ns();
    let result = run_periodic(&w, &config, &calibration, RunControl::new()).expect("run");
    sender.join().expect("signal sender");
    drop(guard);
    assert_eq!(result.stopped_by.as_deref(), Some("SIGINT"));
    assert!(
        clock::now_ns() - began < 5_000_000_000,
        "the run did not stop early"
    );
    assert!(result.jobs_released > 0 && result.jobs_released < 1500);
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_stop_request_ends_the_run_early() {
    let _lock = serial();
    require_rt();
    let w = workload(TWO_TASKS);
    let config = PeriodicConfig::new(PeriodicPolicy::Gfp, 10_000_000_000);
    let calibration = calibrated(&w, &config);
    let control = RunControl::new();
    let stopper = {
        let control = Arc::clone(&control);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(150));
            control.request_stop("test");
        })
    };
    let result = run_periodic(&w, &config, &calibration, control).expect("run");
    stopper.join().expect("stopper");
    assert_eq!(result.stopped_by.as_deref(), Some("test"));
    assert!(result.ran_ns < 5_000_000_000);
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn per_job_commands_run_once_per_job() {
    let _lock = serial();
    require_rt();
    let dir = std::env::temp_dir().join(format!("kairos-rt-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("jobs");
    let _ = std::fs::remove_file(&log);
    let w = workload(TWO_TASKS);
    let mut config = PeriodicConfig::new(PeriodicPolicy::Pfp, 100_000_000);
    config.bodies = vec![
        JobBody::Command(format!("echo x >> {}", log.display())),
        JobBody::Busy,
    ];
    let result = run(&w, &config).expect("run");
    let lines = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count() as u64;
    assert_eq!(lines, result.tasks[0].jobs_completed);
    assert_eq!(result.tasks[0].jobs_released, 10);
    let _ = std::fs::remove_dir_all(&dir);
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn threads_are_born_with_their_policy_and_affinity() {
    let _lock = serial();
    require_rt();
    let cpu = *kairos_os::online_cpus().last().expect("a CPU");
    let spec = thread::ThreadSpec::fifo("kairos-born", 7, vec![cpu]);
    let seen = thread::spawn(spec, move || {
        (sched::policy_of(0), sched::affinity_of(0).ok())
    })
    .expect("spawn")
    .join()
    .expect("join");
    assert_eq!(seen, (Some(libc::SCHED_FIFO), Some(vec![cpu])));
    assert_no_rt_thread_left();
}

/// The lack-of-privilege path for real: a cgroup v1 cpu group with `cpu.rt_runtime_us = 0`
/// (CONFIG_RT_GROUP_SCHED) refuses SCHED_FIFO even to root, and the message names the group.
/// Needs that hierarchy, writable (root on a cgroup v1 machine, as CI here).
#[test]
#[ignore = "needs root and a cgroup v1 cpu hierarchy: cargo test -- --include-ignored"]
fn a_zero_rt_runtime_cgroup_is_named_in_the_refusal() {
    let _lock = serial();
    let root = std::path::Path::new("/sys/fs/cgroup/cpu");
    let group = root.join(format!("kairos-rt-test-{}", std::process::id()));
    assert!(
        root.join("tasks").exists(),
        "this test needs a cgroup v1 cpu hierarchy at {}",
        root.display()
    );
    if let Err(e) = std::fs::create_dir(&group) {
        panic!("this test needs to create {}: {e}", group.display());
    }
    let runtime = std::fs::read_to_string(group.join("cpu.rt_runtime_us")).unwrap_or_default();
    if runtime.trim() != "0" {
        let _ = std::fs::remove_dir(&group);
        panic!("this test needs new cpu groups to get rt_runtime_us 0, not {runtime:?}");
    }
    let inside = group.clone();
    // In v1 a thread can join a group alone: this helper thread does, then tries SCHED_FIFO.
    let refusal = std::thread::spawn(move || {
        let tid = clock::gettid().to_string();
        std::fs::write(inside.join("tasks"), &tid).expect("join the test group");
        let result = privilege::require_rt();
        std::fs::write(root.join("tasks"), &tid).expect("leave the test group");
        result
    })
    .join()
    .expect("helper thread");
    let _ = std::fs::remove_dir(&group);
    match refusal {
        Err(PlatformError::NoPrivilege(text)) => {
            assert!(text.contains("cpu.rt_runtime_us is 0"), "{text}");
            assert!(text.contains(&group.display().to_string()), "{text}");
        }
        other => panic!("SCHED_FIFO in a zero-runtime group was not refused: {other:?}"),
    }
}
