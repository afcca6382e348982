//! Writing a workload back as kairos TOML (what `kairos experiment` keeps of a set it ran);
//! reading the output gives the same workload. Its tasks' writer serves the VM systems too.

use crate::mc_load::toml_string;
use crate::workload::{Arrival, Task, Workload};
use std::fmt::Write;

/// The workload as TOML that `check_source` reads back to the same workload (its tasks; a
/// workload's `[overheads]` are not written: a profile is a file of its own).
pub fn to_toml(workload: &Workload) -> String {
    let mut out = String::new();
    if let Some(name) = &workload.name {
        line(&mut out, format_args!("name = {}", toml_string(name)));
    }
    line(&mut out, format_args!("cores = {}", workload.cores));
    for task in &workload.tasks {
        write_task(&mut out, "tasks", task);
    }
    out
}

pub(crate) fn line(out: &mut String, args: std::fmt::Arguments) {
    out.write_fmt(args).expect("writing to a String");
    out.push('\n');
}

/// `task` as an entry of the array of tables `array` (`tasks`, `domains.tasks`).
pub(crate) fn write_task(out: &mut String, array: &str, task: &Task) {
    out.push_str(&format!("\n[[{array}]]\n"));
    line(out, format_args!("name = {}", toml_string(&task.name)));
    match &task.imprecise {
        Some(parts) => {
            line(out, format_args!("mandatory = \"{}\"", parts.mandatory));
            line(out, format_args!("optional = \"{}\"", parts.optional));
            line(out, format_args!("windup = \"{}\"", parts.windup));
            if let Some(od) = parts.optional_deadline {
                line(out, format_args!("optional_deadline = \"{od}\""));
            }
        }
        None => {
            line(out, format_args!("wcet = \"{}\"", task.wcet));
            if task.bcet != task.wcet {
                line(out, format_args!("bcet = \"{}\"", task.bcet));
            }
        }
    }
    line(out, format_args!("period = \"{}\"", task.period));
    if task.deadline != task.period {
        line(out, format_args!("deadline = \"{}\"", task.deadline));
    }
    if !task.offset.is_zero() {
        line(out, format_args!("offset = \"{}\"", task.offset));
    }
    if let Arrival::Sporadic { max_interarrival } = task.arrival {
        line(out, format_args!("kind = \"sporadic\""));
        line(
            out,
            format_args!("max_interarrival = \"{max_interarrival}\""),
        );
    }
    if let Some(p) = task.priority {
        line(out, format_args!("priority = {}", p.level()));
    }
    if let Some(core) = task.core {
        line(out, format_args!("core = {}", core.0));
    }
}

#[cfg(test)]
mod tests {
    use crate::{check_source, Format};

    #[test]
    fn a_workload_reads_back_the_same() {
        let source = r#"
name = "mixed \"set\""
cores = 2
[[tasks]]
name = "a"
wcet = "1ms"
bcet = "500us"
period = "4ms"
deadline = "3ms"
offset = "1ms"
priority = 3
core = 1
[[tasks]]
name = "b"
period = "9ms"
mandatory = "1ms"
optional = "5ms"
windup = "1ms"
optional_deadline = "7ms"
core = 0
[[tasks]]
name = "c"
wcet = "2ms"
period = "20ms"
kind = "sporadic"
max_interarrival = "25ms"
"#;
        let workload = check_source(source, Format::Toml).workload.expect("valid");
        let written = super::to_toml(&workload);
        let checked = check_source(&written, Format::Toml);
        assert_eq!(checked.workload.as_ref(), Some(&workload), "{written}");
    }
}
