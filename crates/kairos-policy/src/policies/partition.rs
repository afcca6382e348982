//! Binding tasks to cores for partitioned policies: the file's `core` fields first, then
//! first-fit decreasing by utilization (Dhall & Liu 1978; Lopez et al. 2004) with capacity 1 per
//! core. This is the simulator's default only; the analysis stage offers every heuristic with
//! exact admission tests.

use kairos_model::Workload;
use thiserror::Error;

/// Which core each task runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreAssignment {
    pub core_of_task: Vec<usize>,
    /// Tasks that fit on no core by utilization and were put on the least-loaded core.
    pub overflowed: Vec<usize>,
}

/// A task bound by its `core` field to a core the workload does not have. `kairos check`
/// refuses such a file; a workload built in code, or one whose core count was lowered after the
/// check, reaches here, and moving the task to another core would run a different system than
/// the one described.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error(
    "task `{task}` is bound to core {core}, but the workload has {cores} core(s), numbered from 0"
)]
pub struct BoundBeyond {
    pub task: String,
    pub core: usize,
    pub cores: usize,
}

/// Tolerance for float sums of utilizations (each exact to ~1e-16).
const CAPACITY_SLACK: f64 = 1e-9;

/// Binds every task to a core. A task that fits nowhere by utilization still gets one (see
/// [`CoreAssignment::overflowed`]); only a file binding to a missing core is refused.
pub fn assign_cores(workload: &Workload) -> Result<CoreAssignment, BoundBeyond> {
    let cores = workload.cores.max(1);
    let mut load = vec![0.0f64; cores];
    let mut core_of_task = vec![usize::MAX; workload.tasks.len()];
    for (i, task) in workload.tasks.iter().enumerate() {
        if let Some(core) = task.core {
            if core.0 >= cores {
                return Err(BoundBeyond {
                    task: task.name.clone(),
                    core: core.0,
                    cores: workload.cores,
                });
            }
            core_of_task[i] = core.0;
            load[core.0] += task.utilization();
        }
    }
    let mut unbound: Vec<usize> = (0..workload.tasks.len())
        .filter(|&i| core_of_task[i] == usize::MAX)
        .collect();
    // Decreasing utilization; equal utilizations keep file order.
    unbound.sort_by(|&a, &b| {
        workload.tasks[b]
            .utilization()
            .total_cmp(&workload.tasks[a].utilization())
            .then(a.cmp(&b))
    });
    let mut overflowed = Vec::new();
    for task in unbound {
        let u = workload.tasks[task].utilization();
        let core = match load.iter().position(|&l| l + u <= 1.0 + CAPACITY_SLACK) {
            Some(core) => core,
            None => {
                overflowed.push(task);
                least_loaded(&load)
            }
        };
        load[core] += u;
        core_of_task[task] = core;
    }
    Ok(CoreAssignment {
        core_of_task,
        overflowed,
    })
}

fn least_loaded(load: &[f64]) -> usize {
    (0..load.len())
        .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
        .unwrap_or(0)
}
