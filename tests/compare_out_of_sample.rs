//! `kairos run --compare` simulates with overheads measured out of sample: on a short run of
//! the same workload before the compared one, or the profile `--overheads` gives, never the
//! compared run's own. Behaviour only, never a latency bound. Real-time: ignored by a plain
//! `cargo test`, run by the README's command and CI (as root).

mod common;

use common::{stderr, Scratch};
use serde_json::Value;

const WORKLOAD: &str = r#"
cores = 2
[[tasks]]
name = "control"
wcet = "1ms"
period = "5ms"
[[tasks]]
name = "planner"
wcet = "6ms"
period = "20ms"
"#;

fn run(scratch: &Scratch, extra: &[&str]) -> (Value, String) {
    let args = [
        &["run", "w.toml", "--policy", "gedf", "--duration", "500ms"][..],
        &["--compare", "--json"],
        extra,
    ]
    .concat();
    let output = scratch.kairos(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = serde_json::from_slice(&output.stdout).expect("JSON");
    (report, stderr(&output))
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn the_comparison_charges_overheads_measured_before_the_run_or_given() {
    let _guard = common::serial();
    kairos_os::privilege::require_rt().expect("real-time privilege (root or CAP_SYS_NICE)");
    let scratch = Scratch::new("out-of-sample");
    scratch.write("w.toml", WORKLOAD);
    // Measured first, for as long as the compared run when it is shorter than a second.
    let (report, err) = run(&scratch, &[]);
    let charged = &report["simulated_overheads"];
    assert_eq!(charged["source"], "measured before the run");
    assert_eq!(charged["measured_for_ns"], 500_000_000);
    assert!(err.contains("measuring the overheads the comparison charges: 500ms"));
    assert!(report["compare"]["jobs"].as_u64().unwrap() > 0);
    // Given: charged as they are, and nothing is measured first.
    let profile = "[overheads]\nscheduling = \"7us\"\ncontext_switch = \"11us\"\n";
    scratch.write("o.toml", profile);
    let (report, err) = run(&scratch, &["--overheads", "o.toml"]);
    let charged = &report["simulated_overheads"];
    assert_eq!(charged["source"], "given");
    assert_eq!(charged["scheduling_ns"], 7_000);
    assert_eq!(charged["context_switch_ns"], 11_000);
    assert_eq!(charged["cut_at"], Value::Null);
    assert!(!err.contains("measuring"), "{err}");
    // Cut at the quantile an analysis charged: the comparison says so.
    let measured =
        r#"context_switch = { min = "1us", p50 = "2us", p90 = "3us", p99 = "4us", max = "900us" }"#;
    scratch.write("m.toml", format!("[overheads]\n{measured}\n"));
    let cut = ["--overheads", "m.toml", "--overhead-quantile", "p99"];
    let (report, _) = run(&scratch, &cut);
    let charged = &report["simulated_overheads"];
    assert_eq!(charged["cut_at"], "p99");
    assert_eq!(charged["context_switch_ns"], 2_000);
}

#[test]
fn a_quantile_without_overheads_to_cut_is_refused() {
    let scratch = Scratch::new("out-of-sample-quantile");
    scratch.write("w.toml", WORKLOAD);
    let args = ["run", "w.toml", "--compare", "--overhead-quantile", "p99"];
    let output = scratch.kairos(&args);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("add --overheads"), "{err}");
}

#[test]
fn overheads_without_a_comparison_are_refused() {
    let scratch = Scratch::new("out-of-sample-refused");
    scratch.write("w.toml", WORKLOAD);
    scratch.write("o.toml", "[overheads]\nscheduling = \"7us\"\n");
    let output = scratch.kairos(&["run", "w.toml", "--overheads", "o.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("add --compare"),
        "{}",
        stderr(&output)
    );
}
