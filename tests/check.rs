//! `kairos check FILE` end to end: the exact report (stdout) and exit code for every kind of
//! problem the checker knows. The expected outputs are inline on purpose: changing any message
//! must make a test fail, so that the change is deliberate (users' scripts read this output).
//!
//! Each test writes a small workload into its own folder under the system temp dir and runs the
//! real binary there with a bare file name, so the file name in the report is stable.

mod common;

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

// ---- valid files -------------------------------------------------------------------------

#[test]
fn valid_file_reports_ok_and_exits_0() {
    expect(
        "w.toml",
        r#"name = "ok"
cores = 2

[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"

[[tasks]]
name = "b"
kind = "sporadic"
wcet = "250µs"
bcet = "0.1ms"
period = "1ms"
deadline = "900us"
offset = "2ms"
max_interarrival = "2s"
priority = 1
core = 1

[overheads]
scheduling = "1us"
context_switch = "2us"
migration = "0ns"
"#,
        "w.toml: ok: 2 task(s) on 2 core(s), utilization 0.500, 0 warning(s)\n",
        0,
    );
}

// ---- syntax ------------------------------------------------------------------------------

#[test]
fn toml_syntax_error_has_line_and_column() {
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a
wcet = "1ms"
"#,
        r#"w.toml:3:10: error: TOML syntax: invalid basic string, expected `"`
  hint: see https://toml.io for the syntax; durations are strings: wcet = "2ms"
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn toml_duplicate_key_is_a_syntax_error() {
    expect(
        "w.toml",
        "cores = 2\ncores = 3\n",
        r#"w.toml:2:1: error: TOML syntax: duplicate key
  hint: see https://toml.io for the syntax; durations are strings: wcet = "2ms"
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn json_syntax_error_has_line_and_column() {
    expect(
        "w.json",
        r#"{"cores": 2,
 "tasks": [
   {"name": "a" "wcet": "1ms"}
 ]}
"#,
        r#"w.json:3:17: error: JSON syntax: expected `,` or `}`
  hint: items of a JSON object or array are separated by commas
w.json: 1 error(s), 0 warning(s)
"#,
        2,
    );
    expect(
        "w.json",
        r#"{"cores": 2, "tasks": [ {"name": "a",} ]}"#,
        r#"w.json:1:38: error: JSON syntax: trailing comma
  hint: JSON allows no comma after the last item of an object or array
w.json: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn a_utf8_byte_order_mark_is_accepted_in_json_as_in_toml() {
    let json = "\u{feff}{\"cores\": 1, \"tasks\": [{\"name\": \"a\", \"wcet\": \"1ms\", \"period\": \"4ms\"}]}";
    let toml = "\u{feff}cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n";
    for (name, text) in [("w.json", json), ("w.toml", toml)] {
        let (out, code) = check_output(name, text);
        assert_eq!(code, 0, "{name}: {out}");
        assert!(out.starts_with(&format!("{name}: ok: 1 task(s)")), "{out}");
    }
}

/// A field that cannot be read does not hide the rules that relate the task's other fields.
#[test]
fn a_bad_offset_does_not_hide_the_rest_of_the_task() {
    expect(
        "w.toml",
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3ms\"\nbcet = \"5ms\"\nperiod = \"4ms\"\noffset = \"-1ms\"\n[[tasks]]\nname = \"b\"\nwcet = \"1ms\"\nperiod = \"2ms\"\n",
        r#"w.toml:2:1: warning: tasks: total utilization 1.250 exceeds the 1 core(s): deadlines will be missed under any policy
  hint: add cores or lower wcets
w.toml:5:8: error: tasks[0].bcet: bcet 5ms exceeds the wcet 3ms
  hint: the best case must not be longer than the worst case
w.toml:7:10: error: tasks[0].offset: duration "-1ms" is negative
  hint: durations cannot be negative
w.toml: 2 error(s), 1 warning(s)
"#,
        2,
    );
}

#[test]
fn a_negative_bare_number_gets_a_non_negative_example() {
    expect(
        "w.toml",
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = -10\n",
        r#"w.toml:5:10: error: tasks[0].period: duration -10 is negative and has no unit
  hint: durations are non-negative strings with a unit: ns, us, ms or s (e.g. "10ms")
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn empty_json_file_points_at_column_1() {
    expect(
        "w.json",
        "",
        r#"w.json:1:1: error: JSON syntax: EOF while parsing a value
  hint: the file ends before the JSON does: it is empty, or a } or ] is missing
w.json: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn json_root_must_be_an_object() {
    expect(
        "w.json",
        "[1, 2]",
        r#"w.json: error: expected a table, found an array
  hint: a workload is an object: {"cores": 2, "tasks": [...]}
w.json: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- unknown keys ------------------------------------------------------------------------

#[test]
fn unknown_top_level_key_suggests_the_closest() {
    expect(
        "w.toml",
        &format!("cores = 2\ncorse = 1\ncolour = \"red\"\n{ONE_TASK}"),
        r#"w.toml:2:1: error: corse: unknown key `corse`
  hint: did you mean `cores`?
w.toml:3:1: error: colour: unknown key `colour`
  hint: known keys here: name, cores, tasks, overheads
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn unknown_task_key_suggests_the_closest() {
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
deadlne = "3ms"
WCET = "1ms"
"#,
        r#"w.toml:6:1: error: tasks[0].deadlne: unknown key `deadlne`
  hint: did you mean `deadline`?
w.toml:7:1: error: tasks[0].WCET: unknown key `WCET`
  hint: did you mean `wcet`?
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn unknown_overhead_key_suggests_the_closest() {
    expect(
        "w.toml",
        &format!("cores = 2\n[overheads]\ncontxt_switch = \"2us\"\n{ONE_TASK}"),
        r#"w.toml:3:1: error: overheads.contxt_switch: unknown key `contxt_switch`
  hint: did you mean `context_switch`?
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- missing fields ----------------------------------------------------------------------

#[test]
fn missing_task_name_wcet_and_period() {
    expect(
        "w.toml",
        r#"cores = 2

[[tasks]]
bcet = "1ms"
"#,
        r#"w.toml:3:1: error: tasks[0].name: missing field `name` in tasks[0]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.toml:3:1: error: tasks[0].wcet: missing field `wcet` in tasks[0]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.toml:3:1: error: tasks[0].period: missing field `period` in tasks[0]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn missing_period_points_at_its_task() {
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
[[tasks]]
name = "b"
wcet = "1ms"
"#,
        r#"w.toml:6:1: error: tasks[1].period: missing field `period` in tasks[1]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn missing_cores() {
    expect(
        "w.toml",
        &format!("name = \"x\"\n{ONE_TASK}"),
        r#"w.toml:1:1: error: cores: missing field `cores` in the top level
  hint: say how many identical cores: cores = 4
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn missing_tasks() {
    expect(
        "w.toml",
        "name = \"x\"\ncores = 1\n",
        r#"w.toml:1:1: error: tasks: missing field `tasks` in the top level
  hint: add at least one [[tasks]] table
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn empty_toml_file_misses_cores_and_tasks() {
    expect(
        "w.toml",
        "",
        r#"w.toml:1:1: error: cores: missing field `cores` in the top level
  hint: say how many identical cores: cores = 4
w.toml:1:1: error: tasks: missing field `tasks` in the top level
  hint: add at least one [[tasks]] table
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- wrong types -------------------------------------------------------------------------

#[test]
fn wrong_types_at_top_level() {
    expect(
        "w.toml",
        &format!("cores = \"4\"\nname = 3\n{ONE_TASK}"),
        r#"w.toml:1:9: error: cores: expected an integer, found a string
w.toml:2:8: error: name: expected a string, found an integer
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn wrong_types_in_a_task() {
    expect(
        "w.toml",
        r#"cores = 1
[[tasks]]
name = "a"
wcet = ["1ms"]
period = { ms = 4 }
deadline = true
priority = "1"
core = 1.5
kind = 1979-05-27
"#,
        r#"w.toml:4:8: error: tasks[0].wcet: expected a duration string such as "2ms", found an array
w.toml:5:10: error: tasks[0].period: expected a duration string such as "2ms", found a table
w.toml:6:12: error: tasks[0].deadline: expected a duration string such as "2ms", found a boolean
w.toml:7:12: error: tasks[0].priority: expected an integer, found a string
w.toml:8:8: error: tasks[0].core: expected an integer, found a float
w.toml:9:8: error: tasks[0].kind: expected a string, found a date-time
w.toml: 6 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn tasks_must_be_an_array_of_tables() {
    expect(
        "w.toml",
        "cores = 1\n[tasks]\nname = \"a\"\n",
        r#"w.toml:2:1: error: tasks: expected an array of tables, found a table
  hint: write each task as a [[tasks]] table
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
    expect(
        "w.toml",
        "cores = 1\ntasks = [1, \"x\"]\n",
        r#"w.toml:2:10: error: tasks[0]: expected a table, found an integer
w.toml:2:13: error: tasks[1]: expected a table, found a string
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn negative_and_huge_counts() {
    expect(
        "w.toml",
        r#"cores = -1
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
priority = 99999999999
core = 5000
"#,
        r#"w.toml:1:9: error: cores: must not be negative, found -1
w.toml:6:12: error: tasks[0].priority: 99999999999 is larger than the supported maximum 4294967295
w.toml:7:8: error: tasks[0].core: 5000 is larger than the supported maximum 4096
w.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- durations ---------------------------------------------------------------------------

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

#[test]
fn duration_integer_without_unit() {
    expect(
        "w.toml",
        &task_with("wcet", "5"),
        r#"w.toml:4:8: error: tasks[0].wcet: duration 5 has no unit
  hint: durations are strings with a unit: ns, us, ms or s (e.g. "5ms")
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duration_float_without_unit() {
    expect(
        "w.toml",
        &task_with("deadline", "1.5"),
        r#"w.toml:4:12: error: tasks[0].deadline: duration 1.5 has no unit
  hint: durations are strings with a unit: ns, us, ms or s (e.g. "1.5ms")
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duration_string_without_unit() {
    expect(
        "w.toml",
        &task_with("period", "\"5\""),
        r#"w.toml:4:10: error: tasks[0].period: duration "5" has no unit
  hint: write a unit after the number: ns, us, ms or s (e.g. "5ms")
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duration_with_unknown_unit() {
    expect(
        "w.toml",
        &task_with("wcet", "\"5h\""),
        r#"w.toml:4:8: error: tasks[0].wcet: duration "5h" has unknown unit "h"
  hint: known units: ns, us, µs, ms, s
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn negative_duration() {
    expect(
        "w.toml",
        &task_with("offset", "\"-1ms\""),
        r#"w.toml:4:10: error: tasks[0].offset: duration "-1ms" is negative
  hint: durations cannot be negative
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn malformed_durations() {
    for (text, column) in [
        ("\"abc\"", 8),
        ("\"1.2.3ms\"", 8),
        ("\"\"", 8),
        ("\"ms\"", 8),
    ] {
        let inner = &text[1..text.len() - 1];
        expect(
            "w.toml",
            &task_with("wcet", text),
            &format!(
                r#"w.toml:4:{column}: error: tasks[0].wcet: duration "{inner}" is not a number with a unit
  hint: write a decimal number (no exponent) then a unit, e.g. "1.5ms"
w.toml: 1 error(s), 0 warning(s)
"#
            ),
            2,
        );
    }
}

#[test]
fn exponent_is_malformed_not_an_unknown_unit() {
    expect(
        "w.toml",
        &task_with("period", "\"1e9s\""),
        r#"w.toml:4:10: error: tasks[0].period: duration "1e9s" is not a number with a unit
  hint: write a decimal number (no exponent) then a unit, e.g. "1.5ms"
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duration_finer_than_a_nanosecond() {
    expect(
        "w.toml",
        &task_with("bcet", "\"1.5ns\""),
        r#"w.toml:4:8: error: tasks[0].bcet: duration "1.5ns" is finer than one nanosecond
  hint: kairos counts time in whole nanoseconds
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn zero_wcet_period_and_deadline() {
    expect(
        "w.toml",
        r#"cores = 1
[[tasks]]
name = "a"
wcet = "0ms"
period = "0s"
deadline = "0ns"
offset = "0ns"
bcet = "0ns"
"#,
        r#"w.toml:4:8: error: tasks[0].wcet: must be greater than zero
w.toml:5:10: error: tasks[0].period: must be greater than zero
w.toml:6:12: error: tasks[0].deadline: must be greater than zero
w.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duration_above_the_maximum() {
    // Above 2^60 ns, and beyond 64-bit nanoseconds altogether: one limit either way.
    expect(
        "w.toml",
        r#"cores = 1
[[tasks]]
name = "a"
wcet = "1ms"
period = "2000000000s"
deadline = "99999999999s"
"#,
        r#"w.toml:5:10: error: tasks[0].period: duration "2000000000s" exceeds the supported maximum of 2^60 ns (about 36.5 years)
  hint: real-time periods and budgets are far shorter; check the unit
w.toml:6:12: error: tasks[0].deadline: duration "99999999999s" exceeds the supported maximum of 2^60 ns (about 36.5 years)
  hint: real-time periods and budgets are far shorter; check the unit
w.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn durations_up_to_the_maximum_are_accepted() {
    // 2^60 ns exactly is the largest accepted duration.
    expect(
        "w.toml",
        &task_with("period", "\"1152921504606846976ns\""),
        "w.toml: ok: 1 task(s) on 1 core(s), utilization 0.000, 0 warning(s)\n",
        0,
    );
}

// ---- rules between fields ----------------------------------------------------------------

#[test]
fn wcet_above_deadline() {
    expect(
        "w.toml",
        &task_with("deadline", "\"0.5ms\""),
        r#"w.toml:6:8: error: tasks[0].wcet: wcet 1ms exceeds the deadline 500us: no job can ever meet it
  hint: lower the wcet or raise the deadline (the deadline defaults to the period)
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn wcet_above_the_default_deadline() {
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
wcet = "1ms"
period = "0.8ms"
"#,
        r#"w.toml:4:8: error: tasks[0].wcet: wcet 1ms exceeds the deadline 800us: no job can ever meet it
  hint: lower the wcet or raise the deadline (the deadline defaults to the period)
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn bcet_above_wcet() {
    expect(
        "w.toml",
        &task_with("bcet", "\"1.5ms\""),
        r#"w.toml:4:8: error: tasks[0].bcet: bcet 1.5ms exceeds the wcet 1ms
  hint: the best case must not be longer than the worst case
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn max_interarrival_below_period() {
    expect(
        "w.toml",
        r#"cores = 1
[[tasks]]
name = "a"
kind = "sporadic"
wcet = "1ms"
period = "10ms"
max_interarrival = "5ms"
"#,
        r#"w.toml:7:20: error: tasks[0].max_interarrival: max_interarrival 5ms is shorter than the minimum inter-arrival time (period) 10ms
  hint: for a sporadic task, period is the minimum gap between releases
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn max_interarrival_on_a_periodic_task() {
    expect(
        "w.toml",
        &task_with("max_interarrival", "\"20ms\""),
        r#"w.toml:4:20: error: tasks[0].max_interarrival: max_interarrival is only meaningful for sporadic tasks
  hint: add kind = "sporadic" or remove max_interarrival
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn unknown_kind() {
    expect(
        "w.toml",
        &task_with("kind", "\"aperiodic\""),
        r#"w.toml:4:8: error: tasks[0].kind: unknown task kind "aperiodic"
  hint: kind is "periodic" (the default) or "sporadic"
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn priority_zero() {
    expect(
        "w.toml",
        &task_with("priority", "0"),
        r#"w.toml:4:12: error: tasks[0].priority: priority levels start at 1 (the most important)
  hint: use 1 for the highest priority, larger numbers for lower ones
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn core_out_of_range() {
    expect(
        "w.toml",
        &task_with("core", "1"),
        r#"w.toml:4:8: error: tasks[0].core: core 1 does not exist: the workload has 1 core(s), numbered from 0
  hint: use a core between 0 and 0
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duplicate_task_names() {
    expect(
        "w.toml",
        &format!("cores = 1\n{ONE_TASK}{ONE_TASK}"),
        r#"w.toml:9:8: error: tasks[1].name: duplicate task name `a` (also tasks[0])
  hint: task names must be unique: traces and metrics refer to tasks by name
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn zero_cores() {
    // A task bound to core 0 gets no second error: the core count's says it all.
    expect(
        "w.toml",
        &format!("cores = 0\n{ONE_TASK}core = 0\n"),
        r#"w.toml:1:9: error: cores: a workload needs at least one core
  hint: set cores = 1 or more
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn no_tasks() {
    expect(
        "w.toml",
        "cores = 1\ntasks = []\n",
        r#"w.toml:2:9: error: tasks: the workload has no tasks
  hint: add at least one [[tasks]] table with name, wcet and period
w.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- warnings (exit 0) -------------------------------------------------------------------

#[test]
fn utilization_above_core_count_is_a_warning() {
    expect(
        "w.toml",
        r#"cores = 1
[[tasks]]
name = "a"
wcet = "6ms"
period = "10ms"
[[tasks]]
name = "b"
wcet = "6ms"
period = "10ms"
"#,
        r#"w.toml:2:1: warning: tasks: total utilization 1.200 exceeds the 1 core(s): deadlines will be missed under any policy
  hint: add cores or lower wcets
w.toml: ok: 2 task(s) on 1 core(s), utilization 1.200, 1 warning(s)
"#,
        0,
    );
}

#[test]
fn wcet_above_period_with_a_longer_deadline_is_a_warning() {
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
wcet = "15ms"
period = "10ms"
deadline = "20ms"
"#,
        r#"w.toml:4:8: warning: tasks[0].wcet: wcet 15ms exceeds the period 10ms: the task alone needs more than one core
  hint: its jobs will queue up without bound
w.toml: ok: 1 task(s) on 2 core(s), utilization 1.500, 1 warning(s)
"#,
        0,
    );
}

#[test]
fn hyperperiod_overflow_is_a_warning() {
    // Three primes near 10^9 ns: their product is far beyond 2^64.
    expect(
        "w.toml",
        r#"cores = 4
[[tasks]]
name = "a"
wcet = "1ns"
period = "1000000007ns"
[[tasks]]
name = "b"
wcet = "1ns"
period = "1000000009ns"
[[tasks]]
name = "c"
wcet = "1ns"
period = "1000000021ns"
"#,
        r#"w.toml: warning: tasks: the hyper-period (lcm of the periods) overflows 64-bit nanoseconds
  hint: simulations then need an explicit --duration; periods on a common grid (e.g. whole milliseconds from a small set) keep it short
w.toml: ok: 3 task(s) on 4 core(s), utilization 0.000, 1 warning(s)
"#,
        0,
    );
}

// ---- many problems at once ---------------------------------------------------------------

#[test]
fn several_problems_are_all_reported_in_source_order() {
    // Problems of shape (decoding) and of rules between fields, in several tasks and at the
    // top level; a bad field in one task does not hide the problems of another.
    expect(
        "w.toml",
        r#"name = "many"
cores = 2
colour = "red"

[[tasks]]
name = "a"
wcet = "5ms"
period = "10ms"
deadline = "4ms"

[[tasks]]
name = "b"
kind = "aperiodic"
wcet = "1ms"
period = "5"

[[tasks]]
name = "a"
wcet = "1ms"
bcet = "2ms"
period = "10ms"
core = 2

[overheads]
scheduling = "-1us"
"#,
        r#"w.toml:3:1: error: colour: unknown key `colour`
  hint: known keys here: name, cores, tasks, overheads
w.toml:7:8: error: tasks[0].wcet: wcet 5ms exceeds the deadline 4ms: no job can ever meet it
  hint: lower the wcet or raise the deadline (the deadline defaults to the period)
w.toml:13:8: error: tasks[1].kind: unknown task kind "aperiodic"
  hint: kind is "periodic" (the default) or "sporadic"
w.toml:15:10: error: tasks[1].period: duration "5" has no unit
  hint: write a unit after the number: ns, us, ms or s (e.g. "5ms")
w.toml:18:8: error: tasks[2].name: duplicate task name `a` (also tasks[0])
  hint: task names must be unique: traces and metrics refer to tasks by name
w.toml:20:8: error: tasks[2].bcet: bcet 2ms exceeds the wcet 1ms
  hint: the best case must not be longer than the worst case
w.toml:22:8: error: tasks[2].core: core 2 does not exist: the workload has 2 core(s), numbered from 0
  hint: use a core between 0 and 1
w.toml:25:14: error: overheads.scheduling: duration "-1us" is negative
  hint: durations cannot be negative
w.toml: 8 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn errors_and_warnings_are_counted_together() {
    // wcet > period (warning) in one task, a zero wcet (error) in another: exit 2.
    expect(
        "w.toml",
        r#"cores = 2
[[tasks]]
name = "a"
wcet = "15ms"
period = "10ms"
deadline = "20ms"
[[tasks]]
name = "b"
wcet = "0ms"
period = "10ms"
"#,
        r#"w.toml:4:8: warning: tasks[0].wcet: wcet 15ms exceeds the period 10ms: the task alone needs more than one core
  hint: its jobs will queue up without bound
w.toml:9:8: error: tasks[1].wcet: must be greater than zero
w.toml: 1 error(s), 1 warning(s)
"#,
        2,
    );
}

// ---- files that cannot be read -----------------------------------------------------------

#[test]
fn non_utf8_file() {
    let output = run_check_bytes("w.toml", b"cores = 1\nname = \"\xff\xfe\"\n");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: w.toml is not UTF-8 text (byte 18)\n"
    );
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn missing_file() {
    let scratch = Scratch::new("check-test");
    let output = scratch.kairos(&["check", "absent.toml"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The OS error text after the colon is the platform's own.
    assert!(
        stderr.starts_with("error: cannot read absent.toml: "),
        "stderr: {stderr}"
    );
    assert_eq!(output.status.code(), Some(2));
}

// ---- JSON --------------------------------------------------------------------------------

/// The TOML report with `:LINE:COL` removed and the file renamed, as JSON reports it.
fn without_positions(report: &str, from: &str, to: &str) -> String {
    report
        .lines()
        .map(|line| match line.strip_prefix(from) {
            Some(rest) => {
                let rest = match rest.split_once(": ") {
                    Some((position, tail))
                        if position
                            .trim_start_matches(':')
                            .split(':')
                            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
                    {
                        format!(": {tail}")
                    }
                    _ => rest.to_string(),
                };
                format!("{to}{rest}\n")
            }
            None => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn json_reports_the_same_problems_with_paths_but_no_positions() {
    // Each pair holds one problem, written in TOML and in JSON.
    let pairs: [(&str, &str); 20] = [
        (
            "cores = 2\ncorse = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 2, "corse": 1, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 2\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperod = \"4ms\"\n",
            r#"{"cores": 2, "tasks": [{"name": "a", "wcet": "1ms", "perod": "4ms"}]}"#,
        ),
        (
            "[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        ("cores = 2\n", r#"{"cores": 2}"#),
        (
            "cores = \"4\"\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": "4", "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = 3\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": 3, "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = 5\nperiod = \"5\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": 5, "period": "5"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"5h\"\nperiod = \"-1s\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "5h", "period": "-1s"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1.5ns\"\nperiod = \"x\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1.5ns", "period": "x"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"0ms\"\nperiod = \"2000000000s\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "0ms", "period": "2000000000s"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"5ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "5ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nbcet = \"2ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1ms", "bcet": "2ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nkind = \"sporadic\"\nwcet = \"1ms\"\nperiod = \"4ms\"\nmax_interarrival = \"3ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "kind": "sporadic", "wcet": "1ms", "period": "4ms", "max_interarrival": "3ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\nmax_interarrival = \"8ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms", "max_interarrival": "8ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nkind = \"burst\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "kind": "burst", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\npriority = 0\ncore = 3\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms", "priority": 0, "core": 3}]}"#,
        ),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}, {"name": "a", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        (
            "cores = 0\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 0, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}]}"#,
        ),
        ("cores = 1\ntasks = []\n", r#"{"cores": 1, "tasks": []}"#),
        (
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3ms\"\nperiod = \"4ms\"\n[[tasks]]\nname = \"b\"\nwcet = \"3ms\"\nperiod = \"4ms\"\n",
            r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "3ms", "period": "4ms"}, {"name": "b", "wcet": "3ms", "period": "4ms"}]}"#,
        ),
    ];
    for (toml, json) in pairs {
        let (toml_report, toml_code) = check_output("w.toml", toml);
        let (json_report, json_code) = check_output("w.json", json);
        assert_eq!(json_code, toml_code, "{json}");
        // JSON has no positions, so diagnostics come in the order they are found; compare the
        // set of lines.
        let mut expected: Vec<String> = without_positions(&toml_report, "w.toml", "w.json")
            .lines()
            .map(String::from)
            .collect();
        let mut got: Vec<String> = json_report.lines().map(String::from).collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "JSON report of {json}");
        assert!(
            json_report
                .lines()
                .all(|l| !l.starts_with("w.json:") || l.starts_with("w.json: ")),
            "no positions in {json_report}"
        );
    }
}

#[test]
fn json_report_with_several_problems() {
    expect(
        "w.json",
        r#"{
  "cores": "4",
  "name": 3,
  "colour": 1,
  "tasks": [
    {"name": "a", "wcet": 5, "period": "5", "perod": "1ms"},
    {"wcet": "1ms"},
    {"name": "c", "wcet": "2ms", "period": "1ms"}
  ]
}
"#,
        r#"w.json: error: colour: unknown key `colour`
  hint: known keys here: name, cores, tasks, overheads
w.json: error: name: expected a string, found an integer
w.json: error: cores: expected an integer, found a string
w.json: error: tasks[0].perod: unknown key `perod`
  hint: did you mean `period`?
w.json: error: tasks[0].wcet: duration 5 has no unit
  hint: durations are strings with a unit: ns, us, ms or s (e.g. "5ms")
w.json: error: tasks[0].period: duration "5" has no unit
  hint: write a unit after the number: ns, us, ms or s (e.g. "5ms")
w.json: error: tasks[1].name: missing field `name` in tasks[1]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.json: error: tasks[1].period: missing field `period` in tasks[1]
  hint: every task needs a name, a period and either wcet or mandatory, optional and windup
w.json: error: tasks[2].wcet: wcet 2ms exceeds the deadline 1ms: no job can ever meet it
  hint: lower the wcet or raise the deadline (the deadline defaults to the period)
w.json: 9 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn valid_json_file() {
    expect(
        "w.json",
        r#"{"name": "j", "cores": 2, "tasks": [
  {"name": "a", "wcet": "1ms", "period": "4ms"},
  {"name": "b", "kind": "sporadic", "wcet": "2ms", "period": "8ms", "max_interarrival": "10ms"}
], "overheads": {"context_switch": "5us"}}
"#,
        "w.json: ok: 2 task(s) on 2 core(s), utilization 0.500, 0 warning(s)\n",
        0,
    );
}

#[test]
fn json_max_interarrival_on_a_periodic_task() {
    // The rule needs to know the field was given; JSON fields have no position.
    expect(
        "w.json",
        r#"{"cores": 1, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms", "max_interarrival": "8ms"}]}"#,
        r#"w.json: error: tasks[0].max_interarrival: max_interarrival is only meaningful for sporadic tasks
  hint: add kind = "sporadic" or remove max_interarrival
w.json: 1 error(s), 0 warning(s)
"#,
        2,
    );
}
