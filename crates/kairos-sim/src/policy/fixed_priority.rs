//! Fixed-priority job order: every job of a task has the task's priority. Priorities come from
//! rate-monotonic order (Liu & Layland 1973: shorter period first), deadline-monotonic order
//! (Leung & Whitehead 1982: shorter relative deadline first) or the file's explicit
//! `priority` levels (1 is the most important). Ties: lower task index; among jobs of one task,
//! the earlier job.

use super::{JobOrder, OrderKey};
use crate::job::JobState;
use kairos_model::{Instant, Workload};

/// Where task priorities come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorityOrder {
    /// Explicit priorities if every task has one, rate-monotonic otherwise.
    Auto,
    RateMonotonic,
    DeadlineMonotonic,
    /// The file's `priority` fields (tasks without one rank below all that have one).
    Explicit,
}

impl PriorityOrder {
    /// The order actually used for `workload`.
    pub fn resolve(self, workload: &Workload) -> PriorityOrder {
        match self {
            PriorityOrder::Auto if workload.tasks.iter().all(|t| t.priority.is_some()) => {
                PriorityOrder::Explicit
            }
            PriorityOrder::Auto => PriorityOrder::RateMonotonic,
            other => other,
        }
    }

    /// Rank of each task: 0 is the most important; distinct for every task.
    pub fn ranks(self, workload: &Workload) -> Vec<u64> {
        let tasks = &workload.tasks;
        let mut by_importance: Vec<usize> = (0..tasks.len()).collect();
        match self.resolve(workload) {
            PriorityOrder::RateMonotonic | PriorityOrder::Auto => {
                by_importance.sort_by_key(|&i| (tasks[i].period, i))
            }
            PriorityOrder::DeadlineMonotonic => {
                by_importance.sort_by_key(|&i| (tasks[i].deadline, i))
            }
            PriorityOrder::Explicit => by_importance
                .sort_by_key(|&i| (tasks[i].priority.map_or(u32::MAX, |p| p.level()), i)),
        }
        let mut ranks = vec![0; tasks.len()];
        for (rank, &task) in by_importance.iter().enumerate() {
            ranks[task] = rank as u64;
        }
        ranks
    }
}

#[derive(Clone, Debug)]
pub struct FixedPriority {
    order: PriorityOrder,
    rank_of_task: Vec<u64>,
}

impl FixedPriority {
    pub fn new(order: PriorityOrder) -> Self {
        FixedPriority {
            order,
            rank_of_task: Vec::new(),
        }
    }
}

impl JobOrder for FixedPriority {
    fn name(&self) -> &'static str {
        "fp"
    }
    fn prepare(&mut self, workload: &Workload) {
        self.rank_of_task = self.order.ranks(workload);
    }
    fn key(&self, job: &JobState, _now: Instant) -> OrderKey {
        (self.rank_of_task[job.task], job.index, 0, 0)
    }
}
