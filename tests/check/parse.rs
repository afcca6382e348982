//! Valid files, syntax errors and unknown keys.

use super::*;

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
