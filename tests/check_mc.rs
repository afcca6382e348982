//! Mixed-criticality systems end to end: `kairos check` on MC-DAG systems in TOML, JSON and the
//! MC-DAG framework's XML (the exact report and exit code for every rule), `kairos import
//! mcdag`, and the shipped examples. Expected outputs are inline on purpose: changing a message
//! must make a test fail, so that the change is deliberate.

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// Asserts the exact report and exit code of `kairos check name` on `contents`.
#[track_caller]
fn expect(name: &str, contents: &str, report: &str, code: i32) {
    let scratch = Scratch::new("check-mc-test");
    scratch.write(name, contents);
    let output = scratch.kairos(&["check", name]);
    assert_eq!(text(&output.stderr), "", "kairos check wrote to stderr");
    let out = text(&output.stdout);
    assert_eq!(out, report, "report of {name}:\n{contents}");
    assert_eq!(
        output.status.code(),
        Some(code),
        "exit code for {name}; report:\n{out}"
    );
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The reference MC-DAG framework files, vendored under `examples/mcdag/xml/`.
fn reference_xml(n: usize) -> PathBuf {
    repo(&format!("examples/mcdag/xml/test-6-{n}.xml"))
}

// ---- every rule, exactly ------------------------------------------------------------------

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
    expect(
        "mc.toml",
        r#"cores = 1
levels = ["LO", "HI", "LO", ""]

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml:2:23: error: levels[2]: duplicate level name `LO` (also levels[0])
  hint: level names must be unique
mc.toml:2:29: error: levels[3]: level name is empty
  hint: messages, tables and traces name levels: use e.g. "LO", "HI"
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
        r#"mc.toml:5:8: error: dags[0].name: DAG name is empty
  hint: tables and traces refer to tasks as `dag/task`: give it a name
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
        r#"mc.toml:9:8: error: dags[0].tasks[0].name: task name is empty
  hint: tables and traces refer to tasks as `dag/task`: give it a name
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

#[test]
fn periods_and_deadlines() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "zero"
period = "0ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "late"
period = "10ms"
deadline = "11ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "nodeadline"
period = "10ms"
deadline = "0ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml:6:10: error: dags[0].period: must be greater than zero
mc.toml:15:12: error: dags[1].deadline: deadline 11ms exceeds the period 10ms
  hint: MC-DAG deadlines are constrained: at most the period (the default)
mc.toml:24:12: error: dags[2].deadline: must be greater than zero
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn edges_to_unknown_tasks() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a", "bb"], ["zzz", "c"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]
"#,
        r#"mc.toml:7:16: error: dags[0].edges[0][1]: unknown task `bb`
  hint: did you mean `b`?
mc.toml:7:24: error: dags[0].edges[1][0]: unknown task `zzz`
  hint: the DAG's tasks: `a`, `b`, `c`
mc.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn self_loops_and_duplicate_edges() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a", "b"], ["b", "b"], ["a", "b"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]
"#,
        r#"mc.toml:7:22: error: dags[0].edges[1]: edge from `b` to itself
  hint: a task cannot precede itself: remove the edge
mc.toml:7:34: warning: dags[0].edges[2]: duplicate edge `a` -> `b` (also dags[0].edges[0])
  hint: remove the repeated edge
mc.toml: 1 error(s), 1 warning(s)
"#,
        2,
    );
}

#[test]
fn duplicate_edge_is_only_a_warning() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a", "b"], ["a", "b"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]
"#,
        r#"mc.toml:7:22: warning: dags[0].edges[1]: duplicate edge `a` -> `b` (also dags[0].edges[0])
  hint: remove the repeated edge
mc.toml: ok: 1 DAG(s), 3 task(s), 2 level(s) on 2 core(s), utilization LO 0.400, HI 0.500, hyper-period 10ms, 1 warning(s)
"#,
        0,
    );
}

#[test]
fn malformed_edges() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a"], "b", ["a", 1]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]
"#,
        r#"mc.toml:7:10: error: dags[0].edges[0]: an edge is a pair [from, to], found 1 element(s)
  hint: write each edge as ["from", "to"]
mc.toml:7:17: error: dags[0].edges[1]: expected a pair of task names [from, to], found a string
  hint: write each edge as ["from", "to"]
mc.toml:7:28: error: dags[0].edges[2][1]: expected a string, found an integer
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn cycles_are_named() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [["a", "b"], ["b", "c"], ["c", "a"], ["d", "e"], ["e", "d"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms"]

[[dags.tasks]]
name = "c"
wcet = ["2ms", "3ms"]

[[dags.tasks]]
name = "d"
wcet = ["1ms"]

[[dags.tasks]]
name = "e"
wcet = ["1ms"]
"#,
        r#"mc.toml:7:9: error: dags[0].edges: cycle a -> b -> c -> a
  hint: precedence edges must form a DAG: remove one edge of the cycle
mc.toml:7:9: error: dags[0].edges: cycle d -> e -> d
  hint: precedence edges must form a DAG: remove one edge of the cycle
mc.toml: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn critical_path_longer_than_the_deadline() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "5ms"
edges = [["a", "lo"], ["lo", "b"], ["a", "c"]]

[[dags.tasks]]
name = "a"
wcet = ["1ms", "3ms"]

[[dags.tasks]]
name = "lo"
wcet = ["3ms"]

[[dags.tasks]]
name = "b"
wcet = ["1ms", "3ms"]

[[dags.tasks]]
name = "c"
wcet = ["1ms", "1ms"]
"#,
        r#"mc.toml:4:1: error: dags[0]: critical path at HI is 6ms, longer than the deadline 5ms: a -> lo -> b
  hint: no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn critical_path_at_the_lowest_level() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "4ms"
edges = [["a", "b"]]

[[dags.tasks]]
name = "a"
wcet = ["2ms"]

[[dags.tasks]]
name = "b"
wcet = ["3ms"]
"#,
        r#"mc.toml:4:1: error: dags[0]: critical path at LO is 5ms, longer than the deadline 4ms: a -> b
  hint: no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn hyper_period_overflow() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "p"
period = "1000000007ns"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "q"
period = "1000000009ns"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]

[[dags]]
name = "r"
period = "999999937ns"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml:4:1: error: dags: the hyper-period (lcm of the DAG periods) exceeds the supported maximum of 2^60 ns (about 36.5 years)
  hint: tables cover one hyper-period: choose periods on a common grid (e.g. whole milliseconds from a small set)
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn utilization_above_the_cores_is_a_warning() {
    expect(
        "mc.toml",
        r#"cores = 1
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "4ms"

[[dags.tasks]]
name = "a"
wcet = ["2ms", "3ms"]

[[dags.tasks]]
name = "b"
wcet = ["2ms", "2ms"]

[[dags.tasks]]
name = "c"
wcet = ["1ms"]
"#,
        r#"mc.toml:4:1: warning: dags: utilization at LO is 1.250, above the 1 core(s)
  hint: deadlines will be missed at that level under any scheduler: add cores or lower the wcets
mc.toml:4:1: warning: dags: utilization at HI is 1.250, above the 1 core(s)
  hint: deadlines will be missed at that level under any scheduler: add cores or lower the wcets
mc.toml: ok: 1 DAG(s), 3 task(s), 2 level(s) on 1 core(s), utilization LO 1.250, HI 1.250, hyper-period 4ms, 2 warning(s)
"#,
        0,
    );
}

#[test]
fn tasks_and_dags_cannot_be_mixed() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]

[[tasks]]
name = "t"
wcet = "1ms"
period = "4ms"

[[dags]]
name = "g"
period = "10ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms", "2ms"]
"#,
        r#"mc.toml:4:3: error: tasks: `tasks` cannot be mixed with `dags`: a file with `dags` is a mixed-criticality system
  hint: put periodic tasks in a workload file of their own; the tasks of a DAG are [[dags.tasks]] tables
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn unknown_keys_get_the_closest_key() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]
level = 1

[[dags]]
name = "g"
period = "10ms"
deadlin = "5ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms"]
wcets = ["1ms"]
"#,
        r#"mc.toml:3:1: error: level: unknown key `level`
  hint: did you mean `levels`?
mc.toml:8:1: error: dags[0].deadlin: unknown key `deadlin`
  hint: did you mean `deadline`?
mc.toml:13:1: error: dags[0].tasks[0].wcets: unknown key `wcets`
  hint: did you mean `wcet`?
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn json_has_paths_without_positions() {
    expect(
        "mc.json",
        r#"{"cores": 2, "levels": ["LO", "HI"], "dags": [{"name": "g", "period": "10ms", "edges": [["a", "x"]], "tasks": [{"name": "a", "wcet": ["2ms", "1ms"]}]}]}
"#,
        r#"mc.json: error: dags[0].tasks[0].wcet[1]: wcet at HI (1ms) is below wcet at LO (2ms)
  hint: a task's wcet must not decrease with the level
mc.json: error: dags[0].edges[0][1]: unknown task `x`
  hint: the DAG's tasks: `a`
mc.json: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn valid_json() {
    expect(
        "mc.json",
        r#"{"name": "j", "cores": 2, "levels": ["LO", "HI"], "dags": [{"name": "g", "period": "10ms", "edges": [["a", "b"]], "tasks": [{"name": "a", "wcet": ["2ms", "3ms"]}, {"name": "b", "wcet": ["1ms"]}]}]}
"#,
        r#"mc.json: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.300, HI 0.300, hyper-period 10ms, 0 warning(s)
"#,
        0,
    );
}

#[test]
fn toml_syntax_errors_come_alone() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]
[[dags]]
name = "g"
period = 10ms
"#,
        r#"mc.toml:5:10: error: TOML syntax: string values must be quoted, expected literal string
  hint: see https://toml.io for the syntax; durations are strings: wcet = "2ms"
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn xml_is_checked_directly() {
    expect(
        "mc.xml",
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<mcsystem>
    <mcdag deadline="10" name="g">
        <actor name="a">
            <wcet number="0">2</wcet>
            <wcet number="1">4</wcet>
            <rank>1</rank>
            <fprob>0.0</fprob>
        </actor>
        <actor name="b">
            <wcet number="0">3</wcet>
            <wcet number="1">0</wcet>
        </actor>
        <ports>
            <port dstActor="b" name="p0" srcActor="a"/>
        </ports>
    </mcdag>
    <cores number="2"/>
    <levels number="2"/>
</mcsystem>
"#,
        r#"mc.xml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.500, HI 0.400, hyper-period 10ms, 0 warning(s)
"#,
        0,
    );
}

#[test]
fn xml_errors_have_lines_and_columns() {
    expect(
        "bad.xml",
        r#"<mcsystem>
    <mcdag deadline="4" name="g">
        <actor name="a"><wcet number="0">0</wcet><wcet number="1">2</wcet></actor>
        <actor name="b"><wcet number="0">3</wcet><wcet number="2">1</wcet></actor>
        <actor name="c"><wcet number="0">x</wcet></actor>
        <actor name="d"><wcet number="0">5</wcet><colour/></actor>
        <ports><port name="p" srcActor="a" dstActor="bb"/></ports>
    </mcdag>
    <cores number="2"/>
    <levels number="2"/>
</mcsystem>
"#,
        r#"bad.xml:3:25: error: mcdag[0].actor[0].wcet[0]: wcet at LO is 0 but the task runs at HI (wcet 2)
  hint: a task runs at every level up to its own: a 0 can only be followed by 0 (discard model)
bad.xml:4:64: error: mcdag[0].actor[1].wcet[1].number: level 2 does not exist: the system has 2 level(s), numbered from 0
  hint: see <levels number="N"/>
bad.xml:5:25: error: mcdag[0].actor[2].wcet[0]: a wcet must be a whole number, found "x"
  hint: the file's times are whole numbers of slots (--slot sets a slot's length)
bad.xml:6:50: warning: mcdag[0].actor[3]: unknown element <colour> (ignored)
  hint: known here: <wcet>, <rank>, <fprob>
bad.xml:7:54: error: mcdag[0].port[0].dstActor: unknown task `bb`
  hint: did you mean `b`?
bad.xml: 4 error(s), 1 warning(s)
"#,
        2,
    );
}

/// An actor without a name does not hide an edge to a task that does not exist; a missing
/// `<cores>` is explained without pointing `check` users at an option it does not take.
#[test]
fn xml_unnamed_actor_does_not_hide_an_unknown_edge_end() {
    expect(
        "bad.xml",
        r#"<mcsystem>
  <mcdag name="g" deadline="10">
    <actor><wcet number="0">1</wcet></actor>
    <actor name="b"><wcet number="0">1</wcet></actor>
    <ports><port name="p" srcActor="b" dstActor="zz"/></ports>
  </mcdag>
  <levels number="2"/>
</mcsystem>
"#,
        r#"bad.xml:1:1: error: mcsystem: missing <cores number="M"/> in <mcsystem>
  hint: say how many identical cores: <cores number="4"/> in <mcsystem> (import, synth, simulate, validate-tables and run also take --cores)
bad.xml:3:5: error: mcdag[0].actor[0]: missing attribute `name` on <actor>
  hint: write <actor name="...">
bad.xml:5:50: error: mcdag[0].port[0].dstActor: unknown task `zz`
  hint: the DAG's tasks: `b` (a task without a readable name, reported above, may be the one meant)
bad.xml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn xml_syntax_error() {
    expect(
        "bad.xml",
        r#"<mcsystem>
  <mcdag name="g" deadline="4">
  </mcdg>
</mcsystem>
"#,
        r#"bad.xml:3:3: error: XML syntax: expected 'mcdag' tag, not 'mcdg'
  hint: the MC-DAG framework writes <mcsystem> with <mcdag>, <cores> and <levels> elements
bad.xml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

// ---- examples -------------------------------------------------------------------------------

#[test]
fn every_mc_example_checks_without_warnings() {
    let mut seen = 0;
    for entry in std::fs::read_dir(repo("examples/mcdag")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        seen += 1;
        let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        let out = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{}: {out}", path.display());
        assert!(out.ends_with(", 0 warning(s)\n"), "{out}");
    }
    assert!(seen >= 6, "examples/mcdag/ holds the documented files");
}

#[test]
fn three_level_example_synthesizes_on_two_to_four_cores() {
    let source = std::fs::read_to_string(repo("examples/mcdag/three-levels.toml")).unwrap();
    let checked = kairos_model::mc_load::check_mc_source(&source, kairos_model::Format::Toml);
    let system = checked.system.expect("valid");
    assert_eq!(system.levels, ["LO", "MID", "HI"]);
    for cores in 2..=4 {
        let options = kairos_mc::SynthOptions {
            cores: Some(cores),
            ..Default::default()
        };
        assert!(
            kairos_mc::synthesize(&system, &options).is_ok(),
            "{cores} cores"
        );
    }
}

#[test]
fn imported_reference_examples_match_the_xml() {
    for n in [0, 2, 5, 8] {
        let xml = std::fs::read_to_string(reference_xml(n)).unwrap();
        let from_xml =
            kairos_model::mcdag_xml::import(&xml, kairos_model::Duration::from_millis(1))
                .system
                .expect("the XML is valid");
        let toml =
            std::fs::read_to_string(repo(&format!("examples/mcdag/test-6-{n}.toml"))).unwrap();
        let from_toml =
            kairos_model::mc_load::check_mc_source(&toml, kairos_model::Format::Toml).system;
        assert_eq!(from_toml.as_ref(), Some(&from_xml), "test-6-{n}");
        assert_eq!(from_xml.cores, 6);
    }
}

// ---- kairos import mcdag --------------------------------------------------------------------

const SMALL_XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<mcsystem>
    <mcdag deadline="10" name="g">
        <actor name="a">
            <wcet number="0">2</wcet>
            <wcet number="1">4</wcet>
        </actor>
        <actor name="b">
            <wcet number="0">3</wcet>
            <wcet number="1">0</wcet>
        </actor>
        <ports>
            <port dstActor="b" name="p0" srcActor="a"/>
        </ports>
    </mcdag>
    <cores number="2"/>
    <levels number="2"/>
</mcsystem>
"#;

#[test]
fn import_writes_kairos_toml_to_standard_output() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stderr), "");
    assert_eq!(
        text(&output.stdout),
        r#"# Imported by `kairos import mcdag` from small.xml (MC-DAG framework XML), one slot = 1ms.
cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [
    ["a", "b"],
]

[[dags.tasks]]
name = "a"
wcet = ["2ms", "4ms"]

[[dags.tasks]]
name = "b"
wcet = ["3ms"]
"#
    );
}

#[test]
fn import_slot_cores_and_out_file_then_check() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&[
        "import",
        "mcdag",
        "small.xml",
        "--slot",
        "250us",
        "--cores",
        "3",
        "--out",
        "sys/small.toml",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "wrote sys/small.toml: 1 DAG(s), 2 task(s), 2 level(s) on 3 core(s)\n"
    );
    let written = scratch.read("sys/small.toml");
    assert!(written.contains("cores = 3\n"), "{written}");
    assert!(written.contains("period = \"2.5ms\"\n"), "{written}");
    assert!(
        written.contains("wcet = [\"500us\", \"1ms\"]\n"),
        "{written}"
    );
    let check = scratch.kairos(&["check", "sys/small.toml"]);
    assert_eq!(
        text(&check.stdout),
        "sys/small.toml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 3 core(s), utilization LO 0.500, HI 0.400, hyper-period 2.5ms, 0 warning(s)\n"
    );
    // The XML checked directly with the same slot says the same, bar the cores.
    let direct = scratch.kairos(&["check", "small.xml", "--slot", "250us"]);
    assert_eq!(
        text(&direct.stdout),
        "small.xml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.500, HI 0.400, hyper-period 2.5ms, 0 warning(s)\n"
    );
}

#[test]
fn import_to_json() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml", "-o", "small.json"]);
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&scratch.read("small.json")).unwrap();
    assert_eq!(
        json["dags"][0]["tasks"][1]["wcet"],
        serde_json::json!(["3ms"])
    );
    let check = scratch.kairos(&["check", "small.json"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

#[test]
fn import_refuses_a_file_with_errors_and_writes_nothing() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write(
        "bad.xml",
        SMALL_XML.replace("deadline=\"10\"", "deadline=\"4\""),
    );
    let output = scratch.kairos(&["import", "mcdag", "bad.xml", "--out", "bad.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "bad.xml:3:5: error: mcdag[0]: critical path at LO is 5ms, longer than the deadline 4ms: a -> b\n  hint: no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline\nerror: bad.xml has errors: nothing written\n"
    );
    assert!(!scratch.0.join("bad.toml").exists());
}

#[test]
fn import_refuses_a_zero_slot() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml", "--slot", "0ms"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("a slot must last more than zero"));
}

#[test]
fn reference_files_that_miss_their_deadline_at_lo_are_refused() {
    // The reference tool's generator sets each deadline to the DAG's critical path at HI; in
    // six of the ten files the LO-only tasks make the LO critical path longer than that.
    for (n, dag, length, deadline) in [
        (1, 0, 15, 14),
        (3, 0, 61, 54),
        (4, 1, 29, 26),
        (6, 1, 80, 78),
        (7, 0, 108, 67),
        (9, 1, 75, 51),
    ] {
        let path = reference_xml(n);
        let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        let out = text(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{out}");
        assert!(
            out.contains(&format!(
                ": error: mcdag[{dag}]: critical path at LO is {length}ms, longer than the deadline {deadline}ms: "
            )),
            "test-6-{n}: {out}"
        );
        assert!(out.ends_with(": 1 error(s), 0 warning(s)\n"), "{out}");
    }
}

#[test]
fn periodic_commands_refuse_an_mc_system_with_a_hint() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("mc.toml", "cores = 2\nlevels = [\"LO\"]\n[[dags]]\nname = \"g\"\nperiod = \"4ms\"\n[[dags.tasks]]\nname = \"a\"\nwcet = [\"1ms\"]\n");
    let output = scratch.kairos(&["analyze", "mc.toml"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("mc.toml:2:1: error: levels: unknown key `levels`\n  hint: `levels` and `dags` make a mixed-criticality system (docs/model.md), which this command does not take: it needs periodic `tasks`\n"),
        "{stderr}"
    );
}
