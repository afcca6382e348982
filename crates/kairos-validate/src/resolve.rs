//! The file's shape and each interval on its own: tables matched to levels, intervals resolved
//! to (task, job) and kept only when they can take part in the timing checks.
//!
//! Shared table semantics (docs/validate-tables.md): one table per level, named and ordered as
//! the system's levels; hyper-period = lcm of the periods; every interval names a task running at
//! that level, a job in `0..H/T`, a core `< cores`, and a non-empty `[start, end)`.

use crate::report::{Violation, ViolationKind};
use crate::system::Flat;
use kairos_model::{Instant, LevelTable, TableSet};

/// An interval that passed the per-interval checks (its core may still be out of range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Span {
    pub task: usize,
    pub job: u64,
    pub start: u64,
    pub end: u64,
    pub core: usize,
}

/// The usable intervals of one level, sorted by (task, job, start).
pub(crate) struct Level {
    pub level: usize,
    pub spans: Vec<Span>,
}

/// Checks the header and matches tables to levels by name; returns each found table with its
/// level index, in level order.
pub(crate) fn match_tables<'t>(
    flat: &Flat,
    tables: &'t TableSet,
    hyperperiod: u64,
    out: &mut Vec<Violation>,
) -> Vec<(usize, &'t LevelTable)> {
    let system = flat.system;
    if tables.levels != system.levels {
        out.push(Violation::new(
            ViolationKind::Levels,
            format!(
                "the file's levels {:?} differ from the system's {:?}",
                tables.levels, system.levels
            ),
        ));
    }
    if tables.hyperperiod != hyperperiod {
        out.push(Violation::new(
            ViolationKind::Hyperperiod,
            format!(
                "the file's hyper-period {} is not the lcm of the periods, {}",
                Instant::from_nanos(tables.hyperperiod),
                Instant::from_nanos(hyperperiod)
            ),
        ));
    }
    if tables.cores != system.cores {
        out.push(Violation::new(
            ViolationKind::Cores,
            format!(
                "the file has {} core(s), the system {}",
                tables.cores, system.cores
            ),
        ));
    }
    let mut found: Vec<Option<&LevelTable>> = vec![None; system.levels.len()];
    for (position, table) in tables.tables.iter().enumerate() {
        match system.levels.iter().position(|l| *l == table.level) {
            None => out.push(Violation::new(
                ViolationKind::Levels,
                format!(
                    "table {position} is for level {:?}, which the system does not have",
                    table.level
                ),
            )),
            Some(level) if found[level].is_some() => out.push(
                Violation::new(ViolationKind::Levels, "a second table for this level")
                    .level(&table.level),
            ),
            Some(level) => {
                if level != position {
                    out.push(
                        Violation::new(
                            ViolationKind::Levels,
                            format!("table {position} should be table {level} (tables go lowest level first)"),
                        )
                        .level(&table.level),
                    );
                }
                found[level] = Some(table);
            }
        }
    }
    let mut matched = Vec::new();
    for (level, table) in found.into_iter().enumerate() {
        match table {
            Some(table) => matched.push((level, table)),
            None => out.push(
                Violation::new(ViolationKind::Levels, "no table for this level")
                    .level(flat.level_name(level)),
            ),
        }
    }
    matched
}

/// Resolves every interval of `table` (level `level`), reporting those that cannot be used.
pub(crate) fn resolve(
    flat: &Flat,
    level: usize,
    table: &LevelTable,
    out: &mut Vec<Violation>,
) -> Level {
    let name = flat.level_name(level);
    let mut spans = Vec::with_capacity(table.intervals.len());
    for interval in &table.intervals {
        let here = |kind, message: String| {
            Violation::new(kind, message)
                .level(name)
                .job(&interval.task, interval.job)
                .core(interval.core)
                .at(interval.start)
        };
        let Some(task) = flat.find(&interval.task) else {
            out.push(here(
                ViolationKind::UnknownTask,
                "no such task in the system".into(),
            ));
            continue;
        };
        let info = &flat.tasks[task];
        if !info.runs_at(level) {
            out.push(here(
                ViolationKind::TaskAbsent,
                format!(
                    "the task's criticality is {}, so it does not run at this level",
                    flat.level_name(info.wcet.len() - 1)
                ),
            ));
            continue;
        }
        if interval.job >= info.jobs {
            out.push(here(
                ViolationKind::JobOutOfRange,
                format!(
                    "the task has {} job(s) per hyper-period (0..{})",
                    info.jobs, info.jobs
                ),
            ));
            continue;
        }
        if interval.end <= interval.start {
            out.push(here(
                ViolationKind::EmptyInterval,
                format!(
                    "interval [{}, {}) is empty",
                    Instant::from_nanos(interval.start),
                    Instant::from_nanos(interval.end)
                ),
            ));
            continue;
        }
        if interval.core >= flat.system.cores {
            // Still counted for the job: the time was given, on a core that does not exist.
            out.push(here(
                ViolationKind::CoreOutOfRange,
                format!(
                    "core {} does not exist (the system has {})",
                    interval.core, flat.system.cores
                ),
            ));
        }
        spans.push(Span {
            task,
            job: interval.job,
            start: interval.start,
            end: interval.end,
            core: interval.core,
        });
    }
    spans.sort_unstable();
    Level { level, spans }
}
