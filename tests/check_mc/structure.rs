//! Cores, levels, names and budgets.

use super::*;

#[test]
fn valid_system_reports_the_summary_and_exits_0() {
    expect(
        "mc.toml",
        r#"name = "ok"
cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a", "b"], ["a", "c"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]

[[dags]]
name = "h"
period = "15ms"
deadline = "12ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml: ok: 2 DAG(s), 4 task(s), 2 level(s) on 2 core(s), utilization LO 0.467, HI 0.633, hyper-period 30ms, 0 warning(s)
"#,
        0,
    );
}

#[test]
fn missing_cores_bad_levels_no_dags() {
    expect(
        "mc.toml",
        r#"name = "x"
levels = 3
"#,
        r#"mc.toml:1:1: error: cores: missing field `cores` in the top level
  hint: say how many identical cores: cores = 4
mc.toml:1:1: error: dags: missing field `dags` in the top level
  hint: add at least one [[dags]] table
mc.toml:2:10: error: levels: expected an array of level names, found an integer
  hint: name the criticality levels, lowest first: levels = ["LO", "HI"]
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn no_levels() {
    expect(
        "mc.toml",
        r#"cores = 1
levels = []

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms"]
"#,
        r#"mc.toml:2:10: error: levels: the system has no criticality levels
  hint: name at least one level, lowest first: levels = ["LO", "HI"]
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn duplicate_and_empty_level_names() {
    let system = |levels: &str| {
        format!(
            "cores = 1\nlevels = {levels}\n\n[[dags]]\nname = \"g\"\nperiod = \"10ms\"\n\n\
             [[dags.tasks]]\nname = \"a\"\nwcet = [\"1ms\", \"2ms\"]\n"
        )
    };
    expect(
        "mc.toml",
        &system(r#"["LO", "HI", "LO"]"#),
        r#"mc.toml:2:23: error: levels[2]: duplicate level name `LO` (also levels[0])
  hint: level names must be unique
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
    // A name every kind of file refuses ends the levels' reading: its rules come first.
    expect(
        "mc.toml",
        &system(r#"["LO", "HI", ""]"#),
        r#"mc.toml:2:23: error: levels[2]: the name is empty
  hint: names tell tasks apart in tables, traces and charts: give it a visible name
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
    // It does not hide a duplicate among the others.
    expect(
        "mc.toml",
        &system(r#"["LO", "", "LO"]"#),
        r#"mc.toml:2:17: error: levels[1]: the name is empty
  hint: names tell tasks apart in tables, traces and charts: give it a visible name
mc.toml:2:21: error: levels[2]: duplicate level name `LO` (also levels[0])
  hint: level names must be unique
mc.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn no_dags() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]
dags = []
"#,
        r#"mc.toml:3:8: error: dags: the system has no DAGs
  hint: add at least one DAG with a name, a period and its tasks
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn cores_zero_and_too_many() {
    expect(
        "mc.toml",
        r#"cores = 0
levels = ["LO"]

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms"]
"#,
        r#"mc.toml:1:9: error: cores: a system needs at least one core
  hint: set cores = 1 or more
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn dag_names_empty_slash_duplicate() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = ""
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "a/b"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml:5:8: error: dags[0].name: the name is empty
  hint: names tell tasks apart in tables, traces and charts: give it a visible name
mc.toml:13:8: error: dags[1].name: DAG name `a/b` contains '/'
  hint: tables and traces refer to tasks as `dag/task`: use another character
mc.toml:29:8: error: dags[3].name: duplicate DAG name `g` (also dags[2])
  hint: DAG names must be unique: tables and traces refer to tasks as `dag/task`
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn task_names_empty_slash_duplicate() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = ""
wcet = ["1ms"]

[[dags.tasks]]
name = "x/y"
wcet = ["1ms"]

[[dags.tasks]]
name = "a"
wcet = ["1ms"]

[[dags.tasks]]
name = "a"
wcet = ["1ms"]
"#,
        r#"mc.toml:9:8: error: dags[0].tasks[0].name: the name is empty
  hint: names tell tasks apart in tables, traces and charts: give it a visible name
mc.toml:13:8: error: dags[0].tasks[1].name: task name `x/y` contains '/'
  hint: tables and traces refer to tasks as `dag/task`: use another character
mc.toml:21:8: error: dags[0].tasks[3].name: duplicate task name `a` in the DAG (also dags[0].tasks[2])
  hint: task names must be unique in the DAG: tables and traces refer to tasks as `dag/task`
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn wcet_lists() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "20ms"

[[dags.tasks]]
name = "empty"
wcet = []

[[dags.tasks]]
name = "long"
wcet = ["1ms", "2ms", "3ms"]

[[dags.tasks]]
name = "zero"
wcet = ["0ms", "1ms"]

[[dags.tasks]]
name = "down"
wcet = ["2ms", "1ms"]

[[dags.tasks]]
name = "text"
wcet = "2ms"

[[dags.tasks]]
name = "unit"
wcet = [2]
"#,
        r#"mc.toml:10:8: error: dags[0].tasks[0].wcet: the wcet list is empty
  hint: give one budget per level, from the lowest up to the task's own level
mc.toml:14:8: error: dags[0].tasks[1].wcet: 3 wcet values for 2 level(s)
  hint: one budget per level, lowest first (LO, HI), up to the task's own level
mc.toml:18:9: error: dags[0].tasks[2].wcet[0]: wcet at LO is zero
  hint: a task runs at every level up to its own: end the list at its own level (it is discarded above)
mc.toml:22:16: error: dags[0].tasks[3].wcet[1]: wcet at HI (1ms) is below wcet at LO (2ms)
  hint: a task's wcet must not decrease with the level
mc.toml:26:8: error: dags[0].tasks[4].wcet: expected an array of durations (one per level), found a string
  hint: one budget per level, from the lowest up to the task's own level: wcet = ["2ms"]
mc.toml:30:9: error: dags[0].tasks[5].wcet[0]: duration 2 has no unit
  hint: durations are strings with a unit: ns, us, ms or s (e.g. "2ms")
mc.toml: 6 error(s), 0 warning(s)
"#,
        2,
    );
}
