//! Each job's window and budget at one level: every job `k` in `0..H/T` of every task running at
//! level `l` receives exactly `C(l)` inside `[kT, kT + D]` (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2: "each task ... must be capable of executing within their C(l) without missing
//! its deadlines").

use crate::jobs::Jobs;
use crate::report::{Violation, ViolationKind};
use crate::resolve::Level;
use crate::system::Flat;
use kairos_model::{Duration, Instant};

/// Reports every span that leaves its job's window.
pub(crate) fn check_windows(flat: &Flat, level: &Level, out: &mut Vec<Violation>) {
    let name = flat.level_name(level.level);
    for span in &level.spans {
        let task = &flat.tasks[span.task];
        let (release, due) = (task.release(span.job), task.due(span.job));
        if span.start < release || span.end > due {
            let at = if span.start < release {
                span.start
            } else {
                due.max(span.start)
            };
            out.push(
                Violation::new(
                    ViolationKind::OutsideWindow,
                    format!(
                        "runs over [{}, {}), outside its window [{}, {}]",
                        Instant::from_nanos(span.start),
                        Instant::from_nanos(span.end),
                        Instant::from_nanos(release),
                        Instant::from_nanos(due)
                    ),
                )
                .level(name)
                .job(&task.name, span.job)
                .core(span.core)
                .at(at),
            );
        }
    }
}

/// Reports every job whose total differs from its WCET, including jobs with no interval at all
/// (a run of such jobs is one violation, so a near-empty table gives a short report).
/// Returns the number of jobs expected at this level.
pub(crate) fn check_budgets(
    flat: &Flat,
    level: &Level,
    jobs: &Jobs,
    out: &mut Vec<Violation>,
) -> u64 {
    let name = flat.level_name(level.level);
    let mut expected = 0;
    let mut runs = jobs.runs.iter().peekable();
    for (index, task) in flat.tasks.iter().enumerate() {
        if !task.runs_at(level.level) {
            continue;
        }
        let wcet = task.wcet[level.level];
        expected += task.jobs;
        let mut next_job = 0;
        while let Some(run) = runs.next_if(|r| r.task == index) {
            report_missing(flat, level.level, index, next_job, run.job, out);
            if run.received != wcet {
                out.push(
                    Violation::new(
                        ViolationKind::Budget,
                        format!(
                            "receives {} but its WCET at this level is {}",
                            Duration::from_nanos(run.received),
                            Duration::from_nanos(wcet)
                        ),
                    )
                    .level(name)
                    .job(&task.name, run.job)
                    .at(task.release(run.job)),
                );
            }
            next_job = run.job + 1;
        }
        report_missing(flat, level.level, index, next_job, task.jobs, out);
    }
    expected
}

/// Reports jobs `from..to` of `task`, which have no interval.
fn report_missing(
    flat: &Flat,
    level: usize,
    task: usize,
    from: u64,
    to: u64,
    out: &mut Vec<Violation>,
) {
    if from >= to {
        return;
    }
    let info = &flat.tasks[task];
    let wcet = Duration::from_nanos(info.wcet[level]);
    let message = if to - from == 1 {
        format!("has no interval; its WCET at this level is {wcet}")
    } else {
        format!(
            "jobs {from} to {} have no interval; each needs {wcet}",
            to - 1
        )
    };
    out.push(
        Violation::new(ViolationKind::Budget, message)
            .level(flat.level_name(level))
            .job(&info.name, from)
            .at(info.release(from)),
    );
}
