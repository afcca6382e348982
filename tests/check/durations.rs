//! Durations: units, signs, precision and range.

use super::*;

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
