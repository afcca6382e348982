//! Partitioned scheduling: each task is bound to one core (from the file, or by
//! [`super::partition::assign_cores`]) and each core runs its most important ready job by the
//! job order (P-EDF, P-FP). Jobs never migrate. A static order (EDF, FP) keeps one ready
//! queue per core as jobs come and go (`super::ready`).

use super::core_order::CoreOrder;
use super::order::{JobOrder, Precedence};
use super::partition::{assign_cores, CoreAssignment};
use super::ready::{Ready, QUEUED_FROM};
use super::ReorderTimer;
use crate::decision::{Decision, TimerId};
use crate::job::{JobId, JobView};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Instant, Workload};

pub struct Partitioned<O: JobOrder> {
    name: &'static str,
    order: O,
    assignment: CoreAssignment,
    /// Per core, its open jobs in order, for a static order (set up by `prepare`).
    ready: Option<Ready>,
    heads: Vec<usize>,
    ends: Vec<usize>,
    /// Per core, the best job of a pass over the view, reused between decisions.
    best: Vec<Option<(Precedence, usize)>>,
    /// The cores of the last decision, given back by the engine ([`Policy::recycle`]).
    placed: Vec<Option<JobId>>,
    reorder: ReorderTimer,
}

impl<O: JobOrder> Partitioned<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        Partitioned {
            name,
            order,
            assignment: CoreAssignment::default(),
            ready: None,
            heads: Vec::new(),
            ends: Vec::new(),
            best: Vec::new(),
            placed: Vec::new(),
            reorder: ReorderTimer::default(),
        }
    }

    fn queued(&mut self, job: &JobView, now: Instant, released: bool) {
        let (Some(ready), Some(&core)) = (
            self.ready.as_mut().filter(|ready| ready.follows()),
            self.assignment.core_of_task.get(job.id.task),
        ) else {
            return;
        };
        let precedence = self.order.precedence(job, now);
        match released {
            true => ready.insert(core, precedence, job.id),
            false => ready.remove(core, precedence),
        }
    }

    /// Per core, its most important job, from the ready queues, into `placed`; false when
    /// they cannot tell (the order is not static) or rest (few open jobs).
    fn best_from_queues(&mut self, view: &View<'_>, placed: &mut Vec<Option<JobId>>) -> bool {
        let Some(ready) = self.ready.as_mut() else {
            return false;
        };
        if view.jobs.len() < QUEUED_FROM {
            ready.rest();
            return false;
        }
        let core_of_task = &self.assignment.core_of_task;
        let lane_of = |job: &JobView| core_of_task.get(job.id.task).copied().unwrap_or(usize::MAX);
        let (heads, ends) = (&mut self.heads, &mut self.ends);
        if !ready.heads_of_lanes(view, &self.order, lane_of, 1, heads, ends)
            || ends.len() != view.cores
        {
            return false;
        }
        let mut start = 0;
        placed.clear();
        placed.extend(ends.iter().map(|&end| {
            let head = (end > start).then(|| view.jobs[heads[start]].id);
            start = end;
            head
        }));
        true
    }

    /// Per core, its most important job, from one pass over the view, into `placed`; the
    /// earliest instant the order may change with no job event.
    fn best_per_core(
        &mut self,
        view: &View<'_>,
        placed: &mut Vec<Option<JobId>>,
    ) -> Option<Instant> {
        let best = &mut self.best;
        best.clear();
        best.resize(view.cores, None);
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
        placed.clear();
        placed.extend(best.iter().map(|b| b.map(|(_, i)| view.jobs[i].id)));
        reorder
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
        self.assignment = assign_cores(workload).map_err(|e| Refusal(e.to_string()))?;
        self.ready = self.order.is_static().then(|| Ready::new(workload.cores));
        Ok(())
    }

    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, true);
    }

    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, false);
    }

    fn job_removed(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, false);
    }

    fn core_order(&self) -> Option<CoreOrder> {
        self.order.core_order()
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

    fn recycle(&mut self, decision: Decision) {
        self.placed = decision.cores;
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut cores = std::mem::take(&mut self.placed);
        let reorder = match self.best_from_queues(view, &mut cores) {
            true => None,
            false => self.best_per_core(view, &mut cores),
        };
        Decision {
            servers: Vec::new(),
            cores,
            actions: self.reorder.update(reorder),
            ahead: None,
        }
    }
}
