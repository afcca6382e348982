//! `kairos check FILE` end to end: the exact report (stdout) and exit code for every kind of
//! problem the checker knows. The expected outputs are inline on purpose: changing any message
//! must make a test fail, so that the change is deliberate (users' scripts read this output).
//!
//! Each test writes a small workload into its own folder under the system temp dir and runs the
//! real binary there with a bare file name, so the file name in the report is stable.

#[path = "../common/mod.rs"]
mod common;
mod durations;
mod fields;
mod parse;
mod reports;
mod rules;

use common::Scratch;
use std::process::Output;

/// Writes `contents` to `name` in a fresh folder and runs `kairos check name` there.
fn run_check_bytes(name: &str, contents: &[u8]) -> Output {
    let scratch = Scratch::new("check-test");
    scratch.write(name, contents);
    scratch.kairos(&["check", name])
}

/// `kairos check` on a file `name` holding `contents`: its stdout and exit code.
fn check_output(name: &str, contents: &str) -> (String, i32) {
    let output = run_check_bytes(name, contents.as_bytes());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "kairos check wrote to stderr: {stderr}");
    (
        String::from_utf8(output.stdout).expect("UTF-8 report"),
        output.status.code().expect("exit code"),
    )
}

/// Asserts the exact report and exit code.
#[track_caller]
fn expect(name: &str, contents: &str, report: &str, code: i32) {
    let (out, got) = check_output(name, contents);
    assert_eq!(out, report, "report of {name}:\n{contents}");
    assert_eq!(got, code, "exit code for {name}; report:\n{out}");
}

/// A valid task list to append after the top-level keys.
const ONE_TASK: &str = r#"
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
"#;

/// A one-task workload whose task has `field = value` (value as TOML) besides name, wcet and
/// period (unless `field` is one of them); the field is on line 4.
fn task_with(field: &str, value: &str) -> String {
    let mut lines = vec![format!("{field} = {value}")];
    for (key, default) in [
        ("name", "\"a\""),
        ("wcet", "\"1ms\""),
        ("period", "\"4ms\""),
    ] {
        if key != field {
            lines.push(format!("{key} = {default}"));
        }
    }
    format!("cores = 1\n\n[[tasks]]\n{}\n", lines.join("\n"))
}
