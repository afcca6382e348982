//! `kairos check` on imprecise tasks: every rule of the parts, located, in one run; and a valid
//! imprecise file in TOML and JSON reads to the same workload.

mod common;

use kairos_model::{check_source, Duration, Format};
use std::process::Command;

fn check(name: &str, source: &str) -> (String, i32) {
    let dir = common::Scratch::new("check-imprecise");
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .arg("check")
        .arg(&path)
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (
        text.replace(&format!("{}/", dir.0.display()), ""),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn every_rule_of_the_parts_is_reported_where_it_is_broken() {
    let (text, code) = check(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
period = "10ms"
mandatory = "2ms"
optional = "3ms"
windup = "1ms"
wcet = "3ms"
[[tasks]]
name = "b"
period = "10ms"
mandatory = "2ms"
windup = "9ms"
optional = "1ms"
[[tasks]]
name = "c"
period = "10ms"
mandatory = "2ms"
optional = "1ms"
windup = "2ms"
optional_deadline = "9ms"
[[tasks]]
name = "d"
period = "10ms"
mandatory = "0ms"
optinal = "1ms"
windup = "2ms"
"#,
    );
    assert_eq!(
        text,
        r#"w.toml:8:8: error: tasks[0].wcet: an imprecise task takes no wcet: its wcet is mandatory + windup
  hint: remove wcet, or remove mandatory, optional, windup and optional_deadline
w.toml:12:13: error: tasks[1].mandatory: mandatory 2ms + windup 9ms exceeds the deadline 10ms: no job can ever meet it
  hint: shorten the mandatory or wind-up part, or raise the deadline
w.toml:21:21: error: tasks[2].optional_deadline: optional_deadline 9ms leaves less than the windup 2ms before the deadline 10ms
  hint: use at most 8ms (deadline - windup), or leave it out to have it computed
w.toml:22:1: error: tasks[3].optional: missing field `optional` in tasks[3]
  hint: an imprecise task gives mandatory, optional and windup (optional may be "0ms")
w.toml:25:13: error: tasks[3].mandatory: must be greater than zero
w.toml:26:1: error: tasks[3].optinal: unknown key `optinal`
  hint: did you mean `optional`?
w.toml: 6 error(s), 0 warning(s)
"#
    );
    assert_eq!(code, 2);
}

#[test]
fn toml_and_json_give_the_same_imprecise_task() {
    let toml = "cores = 1\n[[tasks]]\nname = \"s\"\nperiod = \"10ms\"\nmandatory = \"2ms\"\noptional = \"0ms\"\nwindup = \"1ms\"\noptional_deadline = \"6ms\"\n";
    let json = r#"{"cores": 1, "tasks": [{"name": "s", "period": "10ms", "mandatory": "2ms",
        "optional": "0ms", "windup": "1ms", "optional_deadline": "6ms"}]}"#;
    let a = check_source(toml, Format::Toml)
        .workload
        .expect("valid TOML");
    let b = check_source(json, Format::Json)
        .workload
        .expect("valid JSON");
    assert_eq!(a, b);
    let parts = a.tasks[0].imprecise.expect("imprecise");
    assert_eq!(a.tasks[0].wcet, Duration::from_millis(3));
    assert_eq!(parts.optional_deadline, Some(Duration::from_millis(6)));
}
