//! Tables in the kairos table file format ([`kairos_model::TableSet`], nanoseconds): the output
//! of GMH-MC-DAG synthesis (seed `000_5feb7fca5a4f9943.txt`, section 4.2), one table per level.

use crate::gmh::{BuiltLevel, Context};
use kairos_model::{Interval, LevelTable, TableSet, TaskRef};

/// Converts the built levels (lowest first) to a table set in ns, intervals by start then core.
pub(crate) fn table_set(ctx: &Context, levels: &[BuiltLevel]) -> TableSet {
    let slot = ctx.grid.slot_ns;
    let names: Vec<Vec<String>> = ctx
        .system
        .dags
        .iter()
        .enumerate()
        .map(|(dag, d)| {
            (0..d.tasks.len())
                .map(|task| ctx.system.qualified_name(TaskRef { dag, task }))
                .collect()
        })
        .collect();
    let tables = levels
        .iter()
        .enumerate()
        .map(|(level, built)| {
            let mut intervals: Vec<Interval> = built
                .pieces
                .iter()
                .map(|piece| {
                    let (task, job) = built.jobs.job(piece.job);
                    Interval {
                        task: names[task.dag][task.task].clone(),
                        job,
                        core: piece.core as usize,
                        start: piece.start * slot,
                        end: piece.end * slot,
                    }
                })
                .collect();
            // (start, core) is unique: a core runs one interval at a time.
            intervals.sort_unstable_by_key(|iv| (iv.start, iv.core));
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
