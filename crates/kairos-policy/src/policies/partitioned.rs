//! Partitioned scheduling: each task is bound to one core (from the file, or by
//! [`super::partition::assign_cores`]) and each core runs its most important ready job by the
//! job order (P-EDF, P-FP). Jobs never migrate.

use super::order::{JobOrder, Precedence};
use super::partition::{assign_cores, CoreAssignment};
use super::ReorderTimer;
use crate::decision::{Decision, TimerId};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Instant, Workload};

pub struct Partitioned<O: JobOrder> {
    name: &'static str,
    order: O,
    assignment: CoreAssignment,
    reorder: ReorderTimer,
}

impl<O: JobOrder> Partitioned<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        Partitioned {
            name,
            order,
            assignment: CoreAssignment::default(),
            reorder: ReorderTimer::default(),
        }
    }

    /// The binding of tasks to cores used for the run.
    pub fn assignment(&self) -> &CoreAssignment {
        &self.assignment
    }
}

impl<O: JobOrder> Policy for Partitioned<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.order.prepare(workload);
        self.assignment = assign_cores(workload);
        Ok(())
    }

    fn notices(&self, workload: &Workload) -> Vec<String> {
        (self.assignment.overflowed.iter())
            .map(|&t| {
                format!(
                    "task `{}` fits on no core by utilization (first-fit decreasing); placed on the least-loaded core {}",
                    workload.tasks[t].name, self.assignment.core_of_task[t]
                )
            })
            .collect()
    }

    fn timer_fired(&mut self, _now: Instant, timer: TimerId) {
        self.reorder.fired(timer);
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut best: Vec<Option<(Precedence, usize)>> = vec![None; view.cores];
        for (i, job) in view.jobs.iter().enumerate() {
            let core = self.assignment.core_of_task[job.id.task];
            let key = self.order.precedence(job, view.now);
            if best[core].is_none_or(|(best_key, _)| key.runs_before(best_key)) {
                best[core] = Some((key, i));
            }
        }
        let chosen = |i: usize| best.iter().flatten().any(|&(_, c)| c == i);
        let mut waiting = (view.jobs.iter().enumerate())
            .filter(|&(i, _)| !chosen(i))
            .map(|(_, j)| j);
        let reorder = self.order.reorder_at(view.now, &mut waiting);
        Decision {
            servers: Vec::new(),
            cores: (best.iter())
                .map(|b| b.map(|(_, i)| view.jobs[i].id))
                .collect(),
            actions: self.reorder.update(reorder),
            ahead: None,
        }
    }
}
