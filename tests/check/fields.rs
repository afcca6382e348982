//! Missing fields and wrong types.

use super::*;

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
