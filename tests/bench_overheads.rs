//! Simulating "this machine": `kairos bench overheads` measures the user-space dispatcher's
//! overheads on a real run and writes them as an [overheads] table of measured distributions,
//! which `kairos simulate --overheads` reads and charges. The real run needs real-time
//! privilege: ignored by a plain `cargo test`, run by the README's command and CI (as root).

mod common;

use common::{stderr, stdout, Scratch};
use kairos_model::{overheads_from_source, Cost, Format};

const WORKLOAD: &str = r#"
name = "w"
cores = 2
[[tasks]]
name = "a"
wcet = "2ms"
period = "5ms"
[[tasks]]
name = "b"
wcet = "3ms"
period = "7ms"
[[tasks]]
name = "c"
wcet = "4ms"
period = "11ms"
"#;

fn overhead_ns(scratch: &Scratch, extra: &[&str]) -> u64 {
    let args = [
        &[
            "simulate",
            "w.toml",
            "--policy",
            "gedf",
            "--duration",
            "1s",
            "--json",
        ][..],
        extra,
    ]
    .concat();
    let output = scratch.kairos(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let metrics: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let cores = metrics["core_usage"].as_array().unwrap().iter();
    cores.map(|c| c["overhead_ns"].as_u64().unwrap()).sum()
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn measured_overheads_are_written_as_distributions_and_simulated() {
    if let Err(e) = kairos_os::privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
    let scratch = Scratch::new("bench-overheads");
    scratch.write("w.toml", WORKLOAD);
    let output = scratch.kairos(&["bench", "overheads", "--duration", "1s", "--out", "o.toml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("written to o.toml"));
    let written = scratch.read("o.toml");
    let overheads = overheads_from_source(&written, Format::Toml).expect("a valid table");
    for cost in [overheads.scheduling, overheads.context_switch] {
        let Cost::Measured(q) = cost else {
            panic!("not a measured distribution: {written}");
        };
        assert!(
            q.p50.as_nanos() > 0 && q.min <= q.p50 && q.p99 <= q.max,
            "{written}"
        );
    }
    assert!(
        matches!(overheads.migration, Cost::Measured(_)),
        "{written}"
    );
    // The machine's real-time throttling, as the kernel states it (absent when off).
    let limits = kairos_os::sched::read_rt_limits().expect("readable limits");
    let throttle = overheads.rt_throttle.map(|t| {
        let us = |d: kairos_model::Duration| (d.as_nanos() / 1000) as i64;
        (us(t.runtime), us(t.period))
    });
    match limits {
        (runtime, _) if runtime < 0 => assert_eq!(throttle, None, "{written}"),
        limits => assert_eq!(throttle, Some(limits), "{written}"),
    }
    let charged = overhead_ns(&scratch, &["--overheads", "o.toml"]);
    assert!(charged > 0);
    assert_eq!(
        overhead_ns(&scratch, &[]),
        0,
        "the workload has no overheads"
    );
    let overridden = [
        "--overheads",
        "o.toml",
        "--overhead-scheduling",
        "0s",
        "--overhead-context-switch",
        "0s",
        "--overhead-migration",
        "0s",
    ];
    assert_eq!(
        overhead_ns(&scratch, &overridden),
        0,
        "flags override the file"
    );
    // The execution loss: every worker is preempted by its core's stall watcher each
    // millisecond, so some share of its wall time holds no work.
    assert!(
        !overheads.execution_loss.is_zero(),
        "no execution loss measured: {written}"
    );
}

#[test]
fn an_overheads_file_without_the_table_is_refused() {
    let scratch = Scratch::new("bench-overheads");
    scratch.write("w.toml", WORKLOAD);
    scratch.write("none.toml", "name = \"x\"\n");
    scratch.write(
        "bad.toml",
        "[overheads]\nscheduling = { min = \"1us\", p50 = \"2us\" }\n",
    );
    for (file, why) in [
        ("none.toml", "no [overheads] table"),
        (
            "bad.toml",
            "bad.toml:2:14: error: overheads.scheduling.p90: missing field `p90`",
        ),
        ("missing.toml", "cannot read missing.toml"),
    ] {
        let output = scratch.kairos(&[
            "simulate",
            "w.toml",
            "--policy",
            "gedf",
            "--overheads",
            file,
        ]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(stderr(&output).contains(why), "{file}: {}", stderr(&output));
    }
}

/// Each dispatch runs its own policies: the kernel's SCHED_DEADLINE is no policy of kairos's
/// dispatcher, and P-EDF is none of the kernel's. Refused before any run.
#[test]
fn a_policy_the_dispatch_does_not_run_is_refused_before_measuring() {
    let scratch = Scratch::new("bench-overheads-policy");
    for (args, why) in [
        (
            &["--policy", "edf"][..],
            "edf is the kernel's SCHED_DEADLINE: give --dispatch kernel",
        ),
        (
            &["--dispatch", "kernel", "--policy", "pedf"][..],
            "kernel dispatch runs pfp, gfp, edf, not pedf: give --dispatch user for pedf",
        ),
    ] {
        let output = scratch.kairos(&[&["bench", "overheads"][..], args].concat());
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(why) && !err.contains("measuring"),
            "{args:?}: {err}"
        );
    }
}
