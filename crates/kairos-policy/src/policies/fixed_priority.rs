//! Fixed-priority job order: every job of a task has the task's priority. Priorities come from
//! rate-monotonic order (Liu & Layland 1973: shorter period first), deadline-monotonic order
//! (Leung & Whitehead, "On the complexity of fixed-priority scheduling of periodic, real-time
//! tasks", 1982: shorter relative deadline first) or the file's explicit `priority` levels (1 is
//! the most important). Ties: lower task index; among jobs of one task, the earlier job.

use super::core_order::CoreOrder;
use super::order::{JobOrder, Precedence};
use crate::job::JobView;
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

/// A task's place in a total fixed-priority order, distinct for every task. There is no `Ord`:
/// ask [`Rank::is_more_important_than`], so the direction cannot be confused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rank(u32);

impl Rank {
    pub fn is_more_important_than(self, other: Rank) -> bool {
        self.0 < other.0
    }

    /// How many tasks are more important (0 for the most important).
    pub fn tasks_above(self) -> usize {
        self.0 as usize
    }
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

    /// The rank of each task, indexed like the workload's tasks.
    pub fn ranks(self, workload: &Workload) -> Vec<Rank> {
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
        let mut ranks = vec![Rank(0); tasks.len()];
        for (position, &task) in by_importance.iter().enumerate() {
            ranks[task] = Rank(position as u32);
        }
        ranks
    }
}

#[derive(Clone, Debug)]
pub struct FixedPriority {
    order: PriorityOrder,
    rank_of_task: Vec<Rank>,
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

    fn is_static(&self) -> bool {
        true
    }

    fn core_order(&self) -> Option<CoreOrder> {
        Some(CoreOrder::Ranks(self.rank_of_task.clone()))
    }

    fn precedence(&self, job: &JobView, _now: Instant) -> Precedence {
        let rank = self.rank_of_task[job.id.task];
        Precedence::new([rank.tasks_above() as u64, job.id.number, 0, 0])
    }
}
