//! What a run under G-RMWP or P-RMWP (or their baselines G-RM and P-RM) needs from the analysis:
//! every imprecise task's optional deadline and, partitioned, every task's core, written into
//! a copy of the workload (`optional_deadline` and `core`, as a user could have written them).
//!
//! A workload's own optional deadline is kept as it is: when it is safe it is the one the
//! analysis used; when it is later than the analysis's safe bound the plan does not put the
//! bound in its place (the run would then not be the one the file describes) but says so in its
//! notices, task by task, beside the negative verdict, as for any set the analysis does not
//! show schedulable.

use super::{global, partitioned};
use crate::partition::Heuristic;
use crate::{tasks_of, UnsafeOptionalDeadline, Verdict};
use kairos_model::{CoreId, Workload};

/// Global, or partitioned with a bin-packing heuristic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Global,
    Partitioned(Heuristic),
}

/// The analysed workload, ready to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The workload with every imprecise task's `optional_deadline` set (the file's own where it
    /// gives one, safe or not) and, partitioned, every task's `core`.
    pub workload: Workload,
    pub verdict: Verdict,
    /// What a user should know: a negative verdict, and each given optional deadline later
    /// than its safe bound (`verdict.unsafe_optional_deadlines`).
    pub notices: Vec<String>,
}

/// Analyses `workload` for `placement`. Partitioned: the file's `core` fields if every task has
/// one, else the heuristic's mapping around the tasks the file binds; an error if the heuristic
/// fits some task nowhere, or a bound task's core does not admit it.
pub fn plan(workload: &Workload, placement: Placement) -> Result<Plan, String> {
    let tasks = tasks_of(workload);
    let verdict = match placement {
        Placement::Global => global::is_schedulable(&tasks, workload.cores),
        Placement::Partitioned(h) => match file_mapping(workload) {
            Some(mapping) => partitioned::on_cores(&tasks, mapping, workload.cores),
            None => partitioned::is_schedulable(&tasks, workload.cores, h),
        },
    };
    if let Placement::Partitioned(h) = placement {
        if verdict.mapping.is_none() {
            let failing = verdict.failing_task.map(|t| &workload.tasks[t]);
            let task = failing.map_or("a task", |t| &t.name);
            return Err(match failing.and_then(|t| t.core) {
                Some(core) => format!(
                    "P-RMWP needs a partition: {task} is bound to core {}, which does not admit \
                     it beside the tasks placed there, with rate-monotonic response-time \
                     analysis (C = m + w); bind it to another core, or every task",
                    core.0
                ),
                None => format!(
                    "P-RMWP needs a partition: {task} fits on no core by {h:?} with \
                     rate-monotonic response-time analysis (C = m + w); give every task a `core`"
                ),
            });
        }
    }
    let mut notices = Vec::new();
    if !verdict.schedulable {
        notices.push(negative_notice(workload, &verdict));
    }
    notices.extend((verdict.unsafe_optional_deadlines.iter()).map(|u| unsafe_notice(workload, u)));
    Ok(Plan {
        workload: resolved(workload, &verdict),
        verdict,
        notices,
    })
}

/// The file's core of every task, if every task has one.
fn file_mapping(workload: &Workload) -> Option<Vec<usize>> {
    let cores: Option<Vec<usize>> = workload.tasks.iter().map(|t| t.core.map(|c| c.0)).collect();
    cores.filter(|c| c.iter().all(|&core| core < workload.cores))
}

/// The negative verdict, and what it means for the optional deadlines the plan computed
/// itself: 0 where the analysis could not bound the wind-up.
fn negative_notice(workload: &Workload, verdict: &Verdict) -> String {
    let task = (verdict.failing_task).map_or(String::new(), |t| {
        format!(" (task `{}`)", workload.tasks[t].name)
    });
    let od = verdict.optional_deadlines.as_deref().unwrap_or_default();
    let computed_zero = (workload.tasks.iter().zip(od)).any(|(t, od)| {
        t.imprecise
            .is_some_and(|p| p.optional_deadline.is_none() && od.is_zero())
    });
    let zero = match computed_zero {
        true => "; optional deadlines it could not bound are 0 (optional parts skipped)",
        false => "",
    };
    format!("the analysis does not show the set schedulable{task}{zero}")
}

/// A given optional deadline kept although later than its safe bound.
fn unsafe_notice(workload: &Workload, u: &UnsafeOptionalDeadline) -> String {
    format!(
        "task `{}`: optional_deadline {} is later than its safe bound {}; kept as the file \
         gives it, so its wind-up may miss its deadline",
        workload.tasks[u.task].name, u.given, u.safe_bound
    )
}

fn resolved(workload: &Workload, verdict: &Verdict) -> Workload {
    let mut out = workload.clone();
    for (i, task) in out.tasks.iter_mut().enumerate() {
        if let (Some(parts), Some(od)) = (&mut task.imprecise, &verdict.optional_deadlines) {
            // The analysis's optional deadlines are the given ones where given.
            parts.optional_deadline = Some(od[i]);
        }
        if let Some(mapping) = &verdict.mapping {
            task.core = Some(CoreId(mapping[i]));
        }
    }
    out
}
