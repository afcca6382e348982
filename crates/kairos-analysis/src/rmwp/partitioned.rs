//! P-RMWP on `m` cores: tasks bound to cores by a bin-packing heuristic (first, next or best
//! fit, `crate::partition::fit`) that admits a task on a core if exact rate-monotonic
//! response-time analysis with `C = m + w` accepts the core's tasks (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP, section 4: "P-RMWP
//! assigns tasks to processors by bin-packing heuristics ... using Response Time Analysis");
//! then the verdict and optional deadlines of each core's tasks by [`super::uniprocessor`]: a
//! given optional deadline is checked against the bound on its task's core.

use super::first_unconstrained;
use super::uniprocessor;
use crate::partition::{partition_with, Heuristic};
use crate::uniprocessor::fp_rta;
use crate::{SporadicTask, UnsafeOptionalDeadline, Verdict};
use kairos_model::Duration;

/// The P-RMWP verdict, mapping and optional deadlines of `tasks` on `m` cores. When a task fits
/// nowhere, the verdict names it and carries no optional deadlines.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize, heuristic: Heuristic) -> Verdict {
    if let Some(k) = first_unconstrained(tasks) {
        return Verdict::no(Some(k));
    }
    let admits = |core: &[SporadicTask]| fp_rta::rate_monotonic(core).schedulable;
    let verdict = partition_with(tasks, m, heuristic, false, admits);
    match verdict.mapping {
        Some(mapping) => on_cores(tasks, mapping, m),
        None => verdict,
    }
}

/// Uniprocessor RMWP on each core of `mapping` (task to core): negative if some core's is,
/// naming that core's failing task (the first such core's); response times, optional deadlines
/// and unsafe given ones of every task.
pub fn on_cores(tasks: &[SporadicTask], mapping: Vec<usize>, cores: usize) -> Verdict {
    let mut verdict = Verdict::yes();
    let mut od = vec![Duration::ZERO; tasks.len()];
    let mut response = vec![Duration::ZERO; tasks.len()];
    for core in 0..cores {
        let on_core: Vec<usize> = (0..tasks.len()).filter(|&i| mapping[i] == core).collect();
        let core_tasks: Vec<SporadicTask> = on_core.iter().map(|&i| tasks[i]).collect();
        let core_verdict = uniprocessor::is_schedulable(&core_tasks);
        if !core_verdict.schedulable && verdict.schedulable {
            verdict.schedulable = false;
            verdict.failing_task = core_verdict.failing_task.map(|k| on_core[k]);
        }
        for (k, &i) in on_core.iter().enumerate() {
            let at = |list: &Option<Vec<Duration>>| list.as_ref().map_or(Duration::ZERO, |l| l[k]);
            od[i] = at(&core_verdict.optional_deadlines);
            response[i] = at(&core_verdict.response_times);
        }
        let unsafe_on_core = core_verdict.unsafe_optional_deadlines.into_iter();
        (verdict.unsafe_optional_deadlines).extend(unsafe_on_core.map(|u| {
            UnsafeOptionalDeadline {
                task: on_core[u.task],
                ..u
            }
        }));
    }
    verdict.unsafe_optional_deadlines.sort_by_key(|u| u.task);
    verdict.mapping = Some(mapping);
    verdict.response_times = Some(response);
    verdict.optional_deadlines = Some(od);
    verdict
}
