//! `kairos simulate` and `kairos demo` end to end: golden files for the text and JSON reports of
//! a tiny workload, the exit codes, and the pictures they write.
//!
//! Regenerate the golden files after an intended change of the output with
//! `KAIROS_UPDATE_GOLDEN=1 cargo test --profile tests --test cli`, then review the diff of
//! `tests/golden/`.

mod common;

use common::{stderr, stdout, Scratch};
use std::path::Path;

/// Three tasks on two cores, U = 0.4 + 0.3 + 0.6 = 1.3, hyper-period 10ms.
const TINY: &str = r#"name = "tiny"
cores = 2

[[tasks]]
name = "a"
wcet = "2ms"
period = "5ms"

[[tasks]]
name = "b"
wcet = "3ms"
period = "10ms"

[[tasks]]
name = "c"
wcet = "6ms"
period = "10ms"
"#;

/// A scratch folder holding `tiny.toml`.
fn with_tiny() -> Scratch {
    let scratch = Scratch::new("cli-test");
    scratch.write("tiny.toml", TINY);
    scratch
}

/// Compares `actual` with `tests/golden/NAME`, or writes it there when
/// `KAIROS_UPDATE_GOLDEN=1`.
#[track_caller]
fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var("KAIROS_UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create tests/golden");
        std::fs::write(&path, actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; create it with KAIROS_UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert!(
        actual == expected,
        "output differs from {}; if the change is intended, regenerate with \
         KAIROS_UPDATE_GOLDEN=1 cargo test --profile tests --test cli\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

/// `kairos simulate tiny.toml --policy POLICY --duration 20ms [EXTRA]`: stdout, after checking
/// that it succeeded quietly.
fn simulate_tiny(policy: &str, extra: &[&str]) -> String {
    let scratch = with_tiny();
    let mut args = vec![
        "simulate",
        "tiny.toml",
        "--policy",
        policy,
        "--duration",
        "20ms",
    ];
    args.extend(extra);
    let output = scratch.kairos(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
    assert_eq!(stderr(&output), "", "{args:?} prints no notice");
    stdout(&output)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

// ---- golden reports ----------------------------------------------------------------------

/// Global EDF, checked by hand (times in ms; ties on equal deadlines go to the earlier release,
/// then the lower task index; a new job takes the free core with the lowest index):
///
/// ```text
/// core 0: a0 [0,2)  c0 [2,8)            a2 [10,12) c1 [12,18)
/// core 1: b0 [0,3)  a1 [5,7)            b1 [10,13) a3 [15,17)
/// ```
///
/// At 10, b1 and c1 tie on deadline 20 and release; b1 has the lower index and runs first. The
/// only idle core is always free for the new job (a1 at 5, a3 at 15), so nothing is preempted.
/// Responses: a 2ms every time, b 3ms, c 8ms.
/// The run covers [0, 20] closed, so the releases at 20 (a4, b2, c2) count as released and do
/// not complete; nothing is placed at the end instant (nothing runs after the window):
/// 5 + 3 + 3 = 11 released, 4 + 2 + 2 = 8 completed, 0 misses, 0 preemptions, 0 migrations,
/// 8 context switches, 13 scheduling points (0, 2, 3, 5, 7, 8, 10, 12, 13, 15, 17, 18, 20). Busy: core 0
/// 2 + 6 + 2 + 6 = 16ms (80%), core 1 3 + 2 + 3 + 2 = 10ms (50%).
#[test]
fn simulate_gedf_text_matches_golden() {
    golden("simulate-tiny-gedf.txt", &simulate_tiny("gedf", &[]));
}

#[test]
fn simulate_gedf_json_matches_golden_and_the_hand_computed_schedule() {
    let out = simulate_tiny("gedf", &["--json"]);
    golden("simulate-tiny-gedf.json", &out);
    // The numbers worked out above, independently of the golden file.
    let v = json(&out);
    for (field, expected) in [
        ("jobs_released", 11),
        ("jobs_completed", 8),
        ("deadline_misses", 0),
        ("preemptions", 0),
        ("migrations", 0),
        ("context_switches", 8),
        ("scheduling_points", 13),
    ] {
        assert_eq!(v[field], expected, "{field}");
    }
    let response_max: Vec<u64> = v["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["response_max_ns"].as_u64().expect("a response"))
        .collect();
    assert_eq!(response_max, [2_000_000, 3_000_000, 8_000_000]);
    let busy: Vec<u64> = v["core_usage"]
        .as_array()
        .expect("core_usage")
        .iter()
        .map(|c| c["busy_ns"].as_u64().expect("busy"))
        .collect();
    assert_eq!(busy, [16_000_000, 10_000_000]);
}

/// Partitioned fixed priority (rate monotonic: a, then b, then c by index): first-fit
/// decreasing by utilization puts c (0.6) then a (0.4) on core 0 (total 1.0 fits), b on core 1.
/// Core 0 runs a0 [0,2) c0 [2,5) a1 [5,7) c0 [7,10) a2 [10,12) c1 [12,15) a3 [15,17)
/// c1 [17,20), a4 at 20: c is preempted twice and finishes exactly at its deadlines (10 and 20:
/// met), core 0 is busy 20ms; core 1 runs b0 [0,3) b1 [10,13), b2 at 20: 6ms busy. Context
/// switches (none at the end instant): 8 on core 0 + 2 on core 1 = 10.
#[test]
fn simulate_pfp_text_matches_golden() {
    golden("simulate-tiny-pfp.txt", &simulate_tiny("pfp", &[]));
}

#[test]
fn simulate_pfp_json_matches_golden() {
    let out = simulate_tiny("pfp", &["--json"]);
    golden("simulate-tiny-pfp.json", &out);
    let v = json(&out);
    for (field, expected) in [
        ("jobs_released", 11),
        ("jobs_completed", 8),
        ("deadline_misses", 0),
        ("preemptions", 2),
        ("migrations", 0),
        ("context_switches", 10),
    ] {
        assert_eq!(v[field], expected, "{field}");
    }
}

#[test]
fn json_has_the_documented_top_level_fields() {
    for policy in ["gedf", "pedf", "gfp", "pfp", "edzl"] {
        let v = json(&simulate_tiny(policy, &["--json"]));
        for field in [
            "jobs_released",
            "jobs_completed",
            "deadline_misses",
            "preemptions",
            "migrations",
            "context_switches",
        ] {
            assert!(
                v[field].is_u64(),
                "{policy}: `{field}` is a non-negative integer in {v}"
            );
        }
        let tasks = v["tasks"].as_array().expect("a `tasks` array");
        let names: Vec<&str> = tasks.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["a", "b", "c"],
            "{policy}: one entry per task, in file order"
        );
        let released: u64 = tasks
            .iter()
            .map(|t| t["jobs_released"].as_u64().unwrap())
            .sum();
        assert_eq!(v["jobs_released"].as_u64(), Some(released), "{policy}");
    }
}

// ---- exit codes --------------------------------------------------------------------------

#[test]
fn fail_on_miss_exits_1_only_when_a_deadline_is_missed() {
    let scratch = with_tiny();
    // On one core U = 1.3: deadlines are missed.
    let one_core = [
        "simulate",
        "tiny.toml",
        "--policy",
        "gedf",
        "--duration",
        "20ms",
        "--cores",
        "1",
    ];
    let missed = scratch.kairos(&[&one_core[..], &["--fail-on-miss"]].concat());
    assert_eq!(missed.status.code(), Some(1), "{}", stderr(&missed));
    assert!(stdout(&missed).contains("deadline misses "));
    // Without the flag, misses are reported but the run succeeds.
    let reported = scratch.kairos(&one_core);
    assert_eq!(reported.status.code(), Some(0), "{}", stderr(&reported));
    // The schedulable file, with the flag: 0.
    let met = scratch.kairos(&[
        "simulate",
        "tiny.toml",
        "--policy",
        "gedf",
        "--duration",
        "20ms",
        "--fail-on-miss",
    ]);
    assert_eq!(met.status.code(), Some(0), "{}", stderr(&met));
    assert!(stdout(&met).contains("deadline misses 0,"));
}

#[test]
fn bad_duration_exits_2_with_a_message() {
    let scratch = with_tiny();
    let run = |duration: &str| {
        scratch.kairos(&[
            "simulate",
            "tiny.toml",
            "--policy",
            "gedf",
            "--duration",
            duration,
        ])
    };
    let no_unit = run("5");
    assert_eq!(no_unit.status.code(), Some(2));
    assert_eq!(stdout(&no_unit), "");
    assert!(
        stderr(&no_unit).contains(
            "invalid value '5' for '--duration <DURATION>': duration \"5\" has no unit (write e.g. \"10s\", \"250ms\")"
        ),
        "{}",
        stderr(&no_unit)
    );
    let zero = run("0ms");
    assert_eq!(zero.status.code(), Some(2));
    assert_eq!(stdout(&zero), "");
    assert_eq!(
        stderr(&zero),
        "error: --duration must be greater than zero\n"
    );
    let unknown_unit = run("3 fortnights");
    assert_eq!(unknown_unit.status.code(), Some(2));
    assert!(
        stderr(&unknown_unit).contains("has unknown unit \"fortnights\""),
        "{}",
        stderr(&unknown_unit)
    );
}

#[test]
fn invalid_workload_exits_2_and_shows_the_diagnostics() {
    let scratch = Scratch::new("cli-test");
    std::fs::write(
        scratch.0.join("bad.toml"),
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"5\"\nperiod = \"4ms\"\n",
    )
    .unwrap();
    let output = scratch.kairos(&["simulate", "bad.toml", "--policy", "gedf"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    let err = stderr(&output);
    assert!(
        err.contains("bad.toml:4:8: error: tasks[0].wcet: duration \"5\" has no unit"),
        "{err}"
    );
    assert!(err.contains("see `kairos check bad.toml`"), "{err}");
}

// ---- pictures ----------------------------------------------------------------------------

#[test]
fn gantt_and_trace_files_are_written() {
    let scratch = with_tiny();
    let output = scratch.kairos(&[
        "simulate",
        "tiny.toml",
        "--policy",
        "edzl",
        "--duration",
        "20ms",
        "--gantt",
        "out/chart.svg",
        "--trace",
        "out/trace.json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let svg = std::fs::read_to_string(scratch.0.join("out/chart.svg")).expect("the SVG");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("tiny under edzl"));
    let trace =
        json(&std::fs::read_to_string(scratch.0.join("out/trace.json")).expect("the trace"));
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    assert!(!events.is_empty());
    let err = stderr(&output);
    assert!(err.contains("wrote Gantt chart out/chart.svg"), "{err}");
    assert!(err.contains("wrote Perfetto trace out/trace.json"), "{err}");
}

#[test]
fn demo_writes_a_chart_and_a_trace_per_policy() {
    let scratch = Scratch::new("cli-test");
    let out_dir = scratch.0.join("demo-out");
    let output = scratch.kairos(&["demo", "--out-dir", out_dir.to_str().expect("UTF-8 path")]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for policy in ["gedf", "pedf", "gfp", "pfp", "edzl"] {
        let svg = std::fs::read_to_string(out_dir.join(format!("gantt-{policy}.svg")))
            .unwrap_or_else(|e| panic!("gantt-{policy}.svg: {e}"));
        assert!(svg.starts_with("<svg"), "gantt-{policy}.svg");
        let trace = std::fs::read_to_string(out_dir.join(format!("trace-{policy}.json")))
            .unwrap_or_else(|e| panic!("trace-{policy}.json: {e}"));
        assert!(
            json(&trace)["traceEvents"].is_array(),
            "trace-{policy}.json"
        );
        assert!(
            stdout(&output).contains(&format!("gantt-{policy}.svg")),
            "the demo lists what it wrote"
        );
    }
}
