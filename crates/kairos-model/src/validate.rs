//! Rules that relate decoded fields to each other (the second half of `kairos check`).

use crate::decode::{join, SourceMap};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::load::DecodedParts;
use crate::workload::{Arrival, ImpreciseParts, Task, Workload};
use std::collections::HashMap;

/// Adds a diagnostic for every broken rule; see `docs/check.md` for the list. Rules run on every
/// part that decoded; rules about the whole set (utilization, hyper-period) only when all did.
pub fn apply_rules(parts: &DecodedParts, map: &SourceMap, out: &mut Diagnostics) {
    if parts.cores == Some(0) {
        core_count_zero(map, out);
    }
    if parts.all_tasks_decoded && parts.tasks.is_empty() {
        out.push(
            Diagnostic::error("the workload has no tasks")
                .at_path("tasks")
                .at_position(map.get("tasks"))
                .with_hint("add at least one [[tasks]] table with name, wcet and period"),
        );
    }
    for (index, task) in &parts.tasks {
        task_rules(parts.cores, task, &format!("tasks[{index}]"), map, out);
    }
    duplicate_names(&parts.tasks, map, out);
    if let (true, Some(cores)) = (parts.all_tasks_decoded, parts.cores) {
        let whole = Workload {
            name: None,
            cores,
            tasks: parts.tasks.iter().map(|(_, t)| t.clone()).collect(),
            overheads: Default::default(),
        };
        utilization(&whole, map, out);
        hyperperiod(&whole, out);
    }
}

fn core_count_zero(map: &SourceMap, out: &mut Diagnostics) {
    out.push(
        Diagnostic::error("a workload needs at least one core")
            .at_path("cores")
            .at_position(map.get("cores"))
            .with_hint("set cores = 1 or more"),
    );
}

pub(crate) fn task_rules(
    cores: Option<usize>,
    task: &Task,
    path: &str,
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let at = |key: &str| {
        let p = join(path, key);
        let position = map.get(&p);
        move |d: Diagnostic| d.at_path(p).at_position(position)
    };
    if let Some(parts) = &task.imprecise {
        imprecise_rules(task, parts, path, map, out);
    } else if task.wcet > task.deadline {
        out.push(at("wcet")(
            Diagnostic::error(format!(
                "wcet {} exceeds the deadline {}: no job can ever meet it",
                task.wcet, task.deadline
            ))
            .with_hint(
                "lower the wcet or raise the deadline (the deadline defaults to the period)",
            ),
        ));
    } else if task.wcet > task.period {
        out.push(at("wcet")(
            Diagnostic::warning(format!(
                "wcet {} exceeds the period {}: the task alone needs more than one core",
                task.wcet, task.period
            ))
            .with_hint("its jobs will queue up without bound"),
        ));
    }
    if task.bcet > task.wcet {
        out.push(at("bcet")(
            Diagnostic::error(format!("bcet {} exceeds the wcet {}", task.bcet, task.wcet))
                .with_hint("the best case must not be longer than the worst case"),
        ));
    }
    match task.arrival {
        Arrival::Sporadic { max_interarrival } if max_interarrival < task.period => {
            out.push(at("max_interarrival")(
                Diagnostic::error(format!(
                    "max_interarrival {max_interarrival} is shorter than the minimum inter-arrival time (period) {}",
                    task.period
                ))
                .with_hint("for a sporadic task, period is the minimum gap between releases"),
            ))
        }
        Arrival::Periodic if map.contains(&join(path, "max_interarrival")) => {
            out.push(at("max_interarrival")(
                Diagnostic::error("max_interarrival is only meaningful for sporadic tasks")
                    .with_hint("add kind = \"sporadic\" or remove max_interarrival"),
            ))
        }
        _ => {}
    }
    if task.priority.is_some_and(|p| p.level() == 0) {
        out.push(at("priority")(
            Diagnostic::error("priority levels start at 1 (the most important)")
                .with_hint("use 1 for the highest priority, larger numbers for lower ones"),
        ));
    }
    if let (Some(core), Some(cores)) = (task.core, cores) {
        if core.0 >= cores && cores > 0 {
            out.push(at("core")(
                Diagnostic::error(format!(
                    "core {} does not exist: the workload has {cores} core(s), numbered from 0",
                    core.0
                ))
                .with_hint(format!("use a core between 0 and {}", cores - 1)),
            ));
        }
    }
}

/// An imprecise task's real-time demand `m + w` must fit its deadline, and a fixed optional
/// deadline must leave the wind-up room before the deadline.
fn imprecise_rules(
    task: &Task,
    parts: &ImpreciseParts,
    path: &str,
    map: &SourceMap,
    out: &mut Diagnostics,
) {
    let located = |key: &str, d: Diagnostic| {
        let p = join(path, key);
        d.at_position(map.get(&p)).at_path(p)
    };
    if parts.demand() > task.deadline {
        out.push(located(
            "mandatory",
            Diagnostic::error(format!(
                "mandatory {} + windup {} exceeds the deadline {}: no job can ever meet it",
                parts.mandatory, parts.windup, task.deadline
            ))
            .with_hint("shorten the mandatory or wind-up part, or raise the deadline"),
        ));
        return;
    }
    if let Some(od) = parts.optional_deadline {
        if od + parts.windup > task.deadline {
            out.push(located(
                "optional_deadline",
                Diagnostic::error(format!(
                    "optional_deadline {od} leaves less than the windup {} before the deadline {}",
                    parts.windup, task.deadline
                ))
                .with_hint(format!(
                    "use at most {} (deadline - windup), or leave it out to have it computed",
                    task.deadline - parts.windup
                )),
            ));
        }
    }
}

fn duplicate_names(tasks: &[(usize, Task)], map: &SourceMap, out: &mut Diagnostics) {
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (index, task) in tasks {
        if let Some(first) = first_seen.get(task.name.as_str()) {
            let path = format!("tasks[{index}].name");
            out.push(
                Diagnostic::error(format!(
                    "duplicate task name `{}` (also tasks[{first}])",
                    task.name
                ))
                .at_position(map.get(&path))
                .at_path(path)
                .with_hint("task names must be unique: traces and metrics refer to tasks by name"),
            );
        } else {
            first_seen.insert(&task.name, *index);
        }
    }
}

fn utilization(workload: &Workload, map: &SourceMap, out: &mut Diagnostics) {
    let total = workload.total_utilization();
    if let Some(warning) = overload("total", total, workload.cores) {
        out.push(warning.at_path("tasks").at_position(map.get("tasks")));
    }
}

/// The warning for tasks asking more than `cores` can give (`whose` utilization `total`), for
/// the caller to locate: a periodic workload's, a VM system's, one VM domain's.
pub(crate) fn overload(whose: &str, total: f64, cores: usize) -> Option<Diagnostic> {
    (cores > 0 && total > cores as f64).then(|| {
        Diagnostic::warning(format!(
            "{whose} utilization {total:.3} exceeds the {cores} core(s): deadlines will be missed under any policy"
        ))
        .with_hint("add cores or lower wcets")
    })
}

/// The warning for a hyper-period beyond 64-bit nanoseconds. It matters only to a simulation
/// without an explicit length, which says so itself; commands other than `check` leave it out.
pub const HYPERPERIOD_OVERFLOW: &str =
    "the hyper-period (lcm of the periods) overflows 64-bit nanoseconds";

fn hyperperiod(workload: &Workload, out: &mut Diagnostics) {
    if !workload.tasks.is_empty() && workload.hyperperiod().is_none() {
        out.push(
            Diagnostic::warning(HYPERPERIOD_OVERFLOW)
                .at_path("tasks")
                .with_hint("simulations then need an explicit --duration; periods on a common grid (e.g. whole milliseconds from a small set) keep it short"),
        );
    }
}
