//! The safe-transition property between levels `l` and `l + 1` (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2, first constraint and figures 1-2): for every job `j` of a task running at `l + 1`,
//! `A_l(j, t) >= A_{l+1}(j, t)` for every `t <= f_l(j)`, where `A_x(j, t)` is the execution `j`
//! receives in table `x` over `[0, t)` and `f_l(j)` is the end of its last interval in table `l`.
//! A mode change at any instant then still leaves `j` at least `C_{l+1}`.
//!
//! `A_l - A_{l+1}` is continuous and piecewise linear with breakpoints at interval ends of both
//! tables, so its minimum over `[0, f_l]` is at a breakpoint: one sweep over the job's sorted
//! breakpoints, O(k log k) for k intervals.

use crate::jobs::{JobRun, Jobs};
use crate::report::{Violation, ViolationKind};
use crate::resolve::{Level, Span};
use crate::system::Flat;
use kairos_model::{Duration, Instant};

/// Both levels of one transition with their job summaries.
pub(crate) struct Pair<'a> {
    pub low: &'a Level,
    pub low_jobs: &'a Jobs,
    pub high: &'a Level,
    pub high_jobs: &'a Jobs,
}

/// Reports, for each job of table `high`, the first breakpoint where it is ahead in `high`.
pub(crate) fn check(flat: &Flat, pair: &Pair, out: &mut Vec<Violation>) {
    for high_run in &pair.high_jobs.runs {
        let Some(low_run) = pair.low_jobs.get(high_run.task, high_run.job) else {
            continue; // a job missing from table l is a budget violation there
        };
        let low = pair.low_jobs.spans(pair.low, low_run);
        let high = pair.high_jobs.spans(pair.high, high_run);
        if let Some(deficit) = first_deficit(low, high, low_run.finish) {
            out.push(violation(flat, pair, high_run, low_run, deficit));
        }
    }
}

/// Where table `l` is behind table `l + 1`: the instant and both amounts received by then.
#[derive(Debug, PartialEq, Eq)]
struct Deficit {
    at: u64,
    low: u64,
    high: u64,
}

/// The first breakpoint `t <= finish` with `A_low(t) < A_high(t)`.
fn first_deficit(low: &[Span], high: &[Span], finish: u64) -> Option<Deficit> {
    // (time, slope change of A_low, slope change of A_high)
    let mut events: Vec<(u64, i64, i64)> = Vec::with_capacity(2 * (low.len() + high.len()));
    for s in low {
        events.extend([(s.start, 1, 0), (s.end, -1, 0)]);
    }
    for s in high {
        events.extend([(s.start, 0, 1), (s.end, 0, -1)]);
    }
    events.sort_unstable();
    let (mut now, mut a_low, mut a_high) = (0u64, 0u64, 0u64);
    let (mut slope_low, mut slope_high) = (0i64, 0i64);
    for (time, d_low, d_high) in events {
        if time > finish {
            break;
        }
        // Slopes are counts of active intervals, never negative while advancing.
        a_low += slope_low.unsigned_abs() * (time - now);
        a_high += slope_high.unsigned_abs() * (time - now);
        now = time;
        if a_low < a_high {
            return Some(Deficit {
                at: time,
                low: a_low,
                high: a_high,
            });
        }
        slope_low += d_low;
        slope_high += d_high;
    }
    None
}

fn violation(
    flat: &Flat,
    pair: &Pair,
    high_run: &JobRun,
    low_run: &JobRun,
    d: Deficit,
) -> Violation {
    let (from, to) = (
        flat.level_name(pair.low.level),
        flat.level_name(pair.high.level),
    );
    Violation::new(
        ViolationKind::UnsafeTransition,
        format!(
            "unsafe transition {from} -> {to} (table {from} ends it at {}): a mode change would \
             leave it less than its {to} WCET, as it has received {} in table {to} but only {} in \
             table {from}",
            Instant::from_nanos(low_run.finish),
            Duration::from_nanos(d.high),
            Duration::from_nanos(d.low)
        ),
    )
    .level(from)
    .job(&flat.tasks[high_run.task].name, high_run.job)
    .at(d.at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u64, end: u64) -> Span {
        Span {
            task: 0,
            job: 0,
            start,
            end,
            core: 0,
        }
    }

    #[test]
    fn ahead_in_low_is_safe_behind_is_not() {
        // C(l) = 4, C(l+1) = 6 over a window of 8 (units of 10 ms, as the paper's figures).
        let low = [span(0, 2), span(3, 5)];
        let high = [span(0, 2), span(3, 5), span(6, 8)];
        assert_eq!(first_deficit(&low, &high, 5), None);
        let high = [span(0, 1), span(2, 4), span(5, 8)];
        let low = [span(1, 3), span(4, 6)];
        // By t = 1, table l+1 gave 1 and table l nothing.
        assert_eq!(
            first_deficit(&low, &high, 6),
            Some(Deficit {
                at: 1,
                low: 0,
                high: 1
            })
        );
    }

    #[test]
    fn nothing_after_the_low_finish_counts() {
        let low = [span(0, 2)];
        let high = [span(2, 10)];
        assert_eq!(first_deficit(&low, &high, 2), None);
        // A high interval that starts before the low one is a deficit at the low start.
        assert_eq!(
            first_deficit(&[span(5, 7)], &[span(4, 9)], 7),
            Some(Deficit {
                at: 5,
                low: 0,
                high: 1
            })
        );
    }
}
