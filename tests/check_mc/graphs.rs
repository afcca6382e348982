//! Periods, edges, cycles, critical paths, the hyper-period and utilization.

use super::*;

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
        r#"mc.toml:4:3: error: tasks: `levels` makes this file a mixed-criticality DAG system, but `tasks` makes it a periodic workload
  hint: a file holds one kind of input: split it, or remove the keys of the other kind
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}
