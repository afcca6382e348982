//! Partitioned scheduling: each task is bound to one core (from the file, or by
//! [`crate::partition::assign_cores`]) and each core runs its most important ready job by the
//! job order (P-EDF, P-FP). Jobs never migrate.

use super::{Dispatch, JobOrder, OrderKey, Policy, View};
use crate::partition::{assign_cores, CoreAssignment};
use crate::SimError;
use kairos_model::Workload;

pub struct Partitioned<O: JobOrder> {
    name: &'static str,
    order: O,
    assignment: CoreAssignment,
}

impl<O: JobOrder> Partitioned<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        Partitioned {
            name,
            order,
            assignment: CoreAssignment::default(),
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

    fn prepare(&mut self, workload: &Workload) -> Result<(), SimError> {
        self.order.prepare(workload);
        self.assignment = assign_cores(workload);
        Ok(())
    }

    fn notices(&self, workload: &Workload) -> Vec<String> {
        self.assignment
            .overflowed
            .iter()
            .map(|&t| {
                format!(
                    "task `{}` fits on no core by utilization (first-fit decreasing); placed on the least-loaded core {}",
                    workload.tasks[t].name, self.assignment.core_of_task[t]
                )
            })
            .collect()
    }

    fn schedule(&mut self, view: &View<'_>) -> Dispatch {
        let mut best: Vec<Option<(OrderKey, usize)>> = vec![None; view.cores];
        for (i, job) in view.jobs.iter().enumerate() {
            let core = self.assignment.core_of_task[job.task];
            let key = self.order.key(job, view.now);
            if best[core].is_none_or(|(best_key, _)| key < best_key) {
                best[core] = Some((key, i));
            }
        }
        let chosen: Vec<usize> = best.iter().flatten().map(|&(_, i)| i).collect();
        let wake_at = self.order.wake_at(
            view,
            &mut view
                .jobs
                .iter()
                .enumerate()
                .filter(|(i, _)| !chosen.contains(i))
                .map(|(_, j)| j),
        );
        Dispatch {
            cores: best.into_iter().map(|b| b.map(|(_, i)| i)).collect(),
            wake_at,
        }
    }
}
