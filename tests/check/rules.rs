//! Rules between fields, and the warnings that keep exit 0.

use super::*;

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
