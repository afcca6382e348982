//! What a run under G-RMWP or P-RMWP (or their baselines G-RM and P-RM) needs from the analysis:
//! every imprecise task's optional deadline and, partitioned, every task's core, written into
//! a copy of the workload (`optional_deadline` and `core`, as a user could have written them).

use super::{global, partitioned, uniprocessor};
use crate::partition::Heuristic;
use crate::{tasks_of, SporadicTask, Verdict};
use kairos_model::{CoreId, Duration, Workload};

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
    /// gives one) and, partitioned, every task's `core`.
    pub workload: Workload,
    pub verdict: Verdict,
    /// What a user should know (a negative verdict).
    pub notices: Vec<String>,
}

/// Analyses `workload` for `placement`. Partitioned: the file's `core` fields if every task has
/// one, else the heuristic's mapping; an error if the heuristic fits some task nowhere.
pub fn plan(workload: &Workload, placement: Placement) -> Result<Plan, String> {
    let tasks = tasks_of(workload);
    let verdict = match placement {
        Placement::Global => global::is_schedulable(&tasks, workload.cores),
        Placement::Partitioned(h) => match file_mapping(workload) {
            Some(mapping) => per_core(&tasks, &mapping, workload.cores),
            None => partitioned::is_schedulable(&tasks, workload.cores, h),
        },
    };
    if let Placement::Partitioned(h) = placement {
        if verdict.mapping.is_none() {
            let task = verdict
                .failing_task
                .map_or("a task", |t| &workload.tasks[t].name);
            return Err(format!(
                "P-RMWP needs a partition: {} fits on no core by {h:?} with rate-monotonic \
                 response-time analysis (C = m + w); give every task a `core`",
                task
            ));
        }
    }
    let mut notices = Vec::new();
    if !verdict.schedulable {
        let task = (verdict.failing_task).map_or(String::new(), |t| {
            format!(" (task `{}`)", workload.tasks[t].name)
        });
        notices.push(format!(
            "the analysis does not show the set schedulable{task}; optional deadlines it could \
             not bound are 0 (optional parts skipped)"
        ));
    }
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

/// Uniprocessor RMWP on each core of a given mapping.
fn per_core(tasks: &[SporadicTask], mapping: &[usize], cores: usize) -> Verdict {
    let mut verdict = Verdict::yes();
    let mut od = vec![Duration::ZERO; tasks.len()];
    for core in 0..cores {
        let on_core: Vec<usize> = (0..tasks.len()).filter(|&i| mapping[i] == core).collect();
        let core_tasks: Vec<SporadicTask> = on_core.iter().map(|&i| tasks[i]).collect();
        let core_verdict = uniprocessor::is_schedulable(&core_tasks);
        if !core_verdict.schedulable && verdict.schedulable {
            verdict = Verdict::no(core_verdict.failing_task.map(|k| on_core[k]));
        }
        for (k, &i) in on_core.iter().enumerate() {
            od[i] = core_verdict
                .optional_deadlines
                .as_ref()
                .map_or(Duration::ZERO, |o| o[k]);
        }
    }
    verdict.mapping = Some(mapping.to_vec());
    verdict.optional_deadlines = Some(od);
    verdict
}

fn resolved(workload: &Workload, verdict: &Verdict) -> Workload {
    let mut out = workload.clone();
    for (i, task) in out.tasks.iter_mut().enumerate() {
        if let (Some(parts), Some(od)) = (&mut task.imprecise, &verdict.optional_deadlines) {
            parts.optional_deadline = parts.optional_deadline.or(Some(od[i]));
        }
        if let Some(mapping) = &verdict.mapping {
            task.core = Some(CoreId(mapping[i]));
        }
    }
    out
}
