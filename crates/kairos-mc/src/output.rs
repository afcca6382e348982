//! Tables in the kairos table file format ([`kairos_model::TableSet`], nanoseconds): the output
//! of GMH-MC-DAG synthesis (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2), one table per level.
//!
//! Names are formatted once per task ([`Labels`]) and the table order comes from the engine
//! ([`BuiltLevel::table`]); [`crate::quality`] reuses both instead of re-deriving them from the
//! strings of the finished tables.

use crate::gmh::{BuiltLevel, Context};
use kairos_model::{Interval, LevelTable, TableSet, TaskRef};
use std::sync::Arc;

/// Every task's `dag/task` name, flat: task `t` of DAG `g` is number `first[g] + t`.
pub(crate) struct Labels {
    pub names: Vec<Arc<str>>,
    /// The task of each flat number.
    pub tasks: Vec<TaskRef>,
    first: Vec<usize>,
}

impl Labels {
    pub fn new(ctx: &Context) -> Labels {
        let mut first = Vec::with_capacity(ctx.system.dags.len());
        let mut tasks = Vec::new();
        for (dag, d) in ctx.system.dags.iter().enumerate() {
            first.push(tasks.len());
            tasks.extend((0..d.tasks.len()).map(|task| TaskRef { dag, task }));
        }
        let names = tasks
            .iter()
            .map(|&t| Arc::from(ctx.system.qualified_name(t)))
            .collect();
        Labels {
            names,
            tasks,
            first,
        }
    }

    /// The flat number of `task`.
    pub fn flat(&self, task: TaskRef) -> usize {
        self.first[task.dag] + task.task
    }
}

/// Per job id of one level, its task's flat number and DAG job.
pub(crate) fn level_jobs(labels: &Labels, built: &BuiltLevel) -> Vec<(usize, u64)> {
    // Sized up front: a nested iterator gives no length, and growing by doubling would touch
    // (and, in a fresh process, fault in) about twice the memory.
    let mut jobs = Vec::with_capacity(built.jobs.count());
    jobs.extend((built.jobs.each()).map(|(task, k)| (labels.flat(task), k)));
    jobs
}

/// Converts the built levels (lowest first) to a table set in ns, intervals by start then core.
pub(crate) fn table_set(
    ctx: &Context,
    labels: &Labels,
    levels: &[BuiltLevel],
    level_jobs: &[Vec<(usize, u64)>],
) -> TableSet {
    let slot = ctx.grid.slot_ns;
    let tables = levels
        .iter()
        .zip(level_jobs)
        .enumerate()
        .map(|(level, (built, jobs))| {
            let intervals = (built.table.iter())
                .map(|&i| {
                    let piece = &built.pieces[i as usize];
                    let (task, job) = jobs[piece.job as usize];
                    Interval {
                        task: labels.names[task].clone(),
                        job,
                        core: piece.core as usize,
                        start: piece.start * slot,
                        end: piece.end * slot,
                    }
                })
                .collect();
            LevelTable {
                level: ctx.system.levels[level].clone(),
                intervals,
            }
        })
        .collect();
    TableSet {
        unit: "ns".into(),
        hyperperiod: ctx.grid.hyperperiod * slot,
        cores: ctx.cores,
        levels: ctx.system.levels.clone(),
        policy: Some(ctx.policy.name().into()),
        tables,
    }
}
