//! Exclusivity at one level: a task never runs twice at the same time (on two cores, or two of
//! its jobs at once), and a core runs at most one interval at a time (the slot-table rules of
//! notes/mixed-criticality.md "What an independent table validator checks", on continuous time).
//!
//! Both are one sweep over intervals sorted by start: an interval overlaps an earlier one exactly
//! when it starts before the largest end seen so far. O(n log n).

use crate::report::{Violation, ViolationKind};
use crate::resolve::{Level, Span};
use crate::system::Flat;
use kairos_model::Instant;

/// Reports every interval that overlaps an earlier interval of the same task.
pub(crate) fn check_tasks(flat: &Flat, level: &Level, out: &mut Vec<Violation>) {
    let mut by_task: Vec<&Span> = level.spans.iter().collect();
    by_task.sort_unstable_by_key(|s| (s.task, s.start, s.end));
    for group in by_task.chunk_by(|a, b| a.task == b.task) {
        for (holder, span) in overlaps(group) {
            let task = &flat.tasks[span.task].name;
            out.push(
                Violation::new(
                    ViolationKind::TaskOverlap,
                    format!(
                        "runs on core {} over {} while job {} of the same task runs on core {} over {}",
                        span.core,
                        show(span),
                        holder.job,
                        holder.core,
                        show(holder)
                    ),
                )
                .level(flat.level_name(level.level))
                .job(task, span.job)
                .core(span.core)
                .at(span.start),
            );
        }
    }
}

/// Reports every interval that overlaps an earlier interval on the same (existing) core.
pub(crate) fn check_cores(flat: &Flat, level: &Level, out: &mut Vec<Violation>) {
    let mut by_core: Vec<&Span> = level
        .spans
        .iter()
        .filter(|s| s.core < flat.system.cores)
        .collect();
    by_core.sort_unstable_by_key(|s| (s.core, s.start, s.end));
    for group in by_core.chunk_by(|a, b| a.core == b.core) {
        for (holder, span) in overlaps(group) {
            out.push(
                Violation::new(
                    ViolationKind::CoreOverlap,
                    format!(
                        "core {} runs it over {} while it runs {} job {} over {}",
                        span.core,
                        show(span),
                        flat.tasks[holder.task].name,
                        holder.job,
                        show(holder)
                    ),
                )
                .level(flat.level_name(level.level))
                .job(&flat.tasks[span.task].name, span.job)
                .core(span.core)
                .at(span.start),
            );
        }
    }
}

/// `(earlier, later)` for each span of `sorted` (by start) that starts before an earlier one
/// ends; `earlier` is the one reaching furthest.
fn overlaps<'s>(sorted: &[&'s Span]) -> Vec<(&'s Span, &'s Span)> {
    let mut found = Vec::new();
    let mut holder: Option<&Span> = None;
    for &span in sorted {
        match holder {
            Some(h) if span.start < h.end => {
                found.push((h, span));
                if span.end > h.end {
                    holder = Some(span);
                }
            }
            _ => holder = Some(span),
        }
    }
    found
}

fn show(span: &Span) -> String {
    format!(
        "[{}, {})",
        Instant::from_nanos(span.start),
        Instant::from_nanos(span.end)
    )
}
