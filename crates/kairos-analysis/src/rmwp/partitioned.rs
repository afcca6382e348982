//! P-RMWP on `m` cores: tasks bound to cores by a bin-packing heuristic (first, next or best
//! fit, `crate::partition::fit`) that admits a task on a core if exact rate-monotonic
//! response-time analysis with `C = m + w` accepts the core's tasks (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP, section 4: "P-RMWP
//! assigns tasks to processors by bin-packing heuristics ... using Response Time Analysis");
//! then the optional deadlines of each core's tasks by [`super::uniprocessor`].

use super::first_unconstrained;
use super::uniprocessor::optional_deadlines;
use crate::partition::{partition_with, Heuristic};
use crate::uniprocessor::fp_rta;
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;

/// The P-RMWP verdict, mapping and optional deadlines of `tasks` on `m` cores. When a task fits
/// nowhere, the verdict names it and carries no optional deadlines.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize, heuristic: Heuristic) -> Verdict {
    if let Some(k) = first_unconstrained(tasks) {
        return Verdict::no(Some(k));
    }
    let admits = |core: &[SporadicTask]| fp_rta::rate_monotonic(core).schedulable;
    let mut verdict = partition_with(tasks, m, heuristic, false, admits);
    let Some(mapping) = verdict.mapping.clone() else {
        return verdict;
    };
    let mut od = vec![Duration::ZERO; tasks.len()];
    let mut response = vec![Duration::ZERO; tasks.len()];
    for core in 0..m {
        let on_core: Vec<usize> = (0..tasks.len()).filter(|&i| mapping[i] == core).collect();
        let core_tasks: Vec<SporadicTask> = on_core.iter().map(|&i| tasks[i]).collect();
        let core_od = optional_deadlines(&core_tasks);
        let core_r = fp_rta::rate_monotonic(&core_tasks)
            .response_times
            .unwrap_or_default();
        for (k, &i) in on_core.iter().enumerate() {
            od[i] = core_od[k];
            response[i] = core_r.get(k).copied().unwrap_or_default();
        }
    }
    verdict.response_times = Some(response);
    verdict.optional_deadlines = Some(od);
    verdict
}
