//! Many problems at once, files that cannot be read, and `--json`.

use super::*;

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
