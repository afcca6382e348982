//! Kernel dispatch's overheads measured on real cores (`kairos bench overheads --dispatch
//! kernel`): the bundled workload preempts each of its long jobs three times by construction,
//! so every run samples preemptions, hand-overs and releases onto a free CPU under each policy
//! the kernel schedules, and the profile it writes loads as a workload's `[overheads]`. No
//! latency is asserted: only that the measurement took place and reads back. Needs real-time
//! privilege: ignored by a plain `cargo test`, run by CI as root.

use kairos_lab::bench::overheads::{run_kernel, Request, KERNEL_WORKLOAD};
use kairos_model::{check_source, overheads_from_source, Duration, Format};

fn measure(policy: &str) -> kairos_lab::bench::overheads::Measured {
    if let Err(e) = kairos_os::privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
    let workload = check_source(KERNEL_WORKLOAD, Format::Toml)
        .workload
        .expect("the bundled workload is valid");
    let request = Request {
        workload: &workload,
        policy,
        duration: Duration::from_secs(2),
        lead: Duration::ZERO,
    };
    let mut notices = Vec::new();
    let measured = run_kernel(&request, &mut |line: &str| notices.push(line.to_string()))
        .unwrap_or_else(|e| panic!("{policy}: the measurement failed: {e:?}"));
    println!("{policy}: {notices:?}");
    measured
}

/// 2 s of the bundled workload holds 400 long jobs, each preempted three times, and 400
/// hand-overs: a twentieth of each is sampled even when the host takes many.
fn check(policy: &str) {
    let measured = measure(policy);
    let table = measured.table("a test");
    println!("{table}");
    assert_eq!(measured.dispatch, "kernel");
    assert!(
        measured.decisions >= 60,
        "{policy}: preemptions sampled: {}",
        measured.decisions
    );
    assert!(
        measured.switch_ins >= 20,
        "{policy}: hand-overs sampled: {}",
        measured.switch_ins
    );
    let latency = measured.release_latency.expect("releases onto a free CPU");
    assert!(
        latency[0] > 0,
        "{policy}: a release is never handled at its instant"
    );
    assert!(
        measured.release[0] > 0 && measured.context_switch[0] > 0,
        "{table}"
    );
    assert_eq!(measured.scheduling, [0; 6], "inside the kernel's switches");
    assert!(measured.same_core_floor.is_none());
    let loaded = overheads_from_source(&table, Format::Toml)
        .unwrap_or_else(|d| panic!("{policy}: the profile does not load: {d:?}\n{table}"));
    assert!(
        !loaded.release_latency.is_zero() && !loaded.context_switch.is_zero(),
        "{table}"
    );
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn kernel_dispatch_is_measured_under_each_policy_the_kernel_schedules() {
    for policy in ["pfp", "gfp", "edf"] {
        check(policy);
    }
}
