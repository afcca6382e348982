//! Per-job summaries of one level's table: which spans a job owns, when it first starts, when
//! its last interval ends (`f_l(j)` in docs/validate-tables.md) and how much it receives.

use crate::resolve::{Level, Span};
use std::collections::HashMap;

/// One job's intervals at one level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRun {
    pub task: usize,
    pub job: u64,
    /// Its spans are `level.spans[first..end_index]`, sorted by start.
    pub first: usize,
    pub end_index: usize,
    pub start: u64,
    /// End of its last interval.
    pub finish: u64,
    pub received: u64,
}

/// All jobs present in one level's table, in (task, job) order, with a lookup.
pub(crate) struct Jobs {
    pub runs: Vec<JobRun>,
    index: HashMap<(usize, u64), usize>,
}

impl Jobs {
    /// Groups the sorted spans of `level` by job.
    pub fn new(level: &Level) -> Self {
        let mut runs: Vec<JobRun> = Vec::new();
        for (i, span) in level.spans.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.task == span.task && run.job == span.job => {
                    run.end_index = i + 1;
                    run.finish = run.finish.max(span.end);
                    run.received += span.end - span.start;
                }
                _ => runs.push(JobRun {
                    task: span.task,
                    job: span.job,
                    first: i,
                    end_index: i + 1,
                    start: span.start,
                    finish: span.end,
                    received: span.end - span.start,
                }),
            }
        }
        let index = runs
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.task, r.job), i))
            .collect();
        Jobs { runs, index }
    }

    pub fn get(&self, task: usize, job: u64) -> Option<&JobRun> {
        self.index.get(&(task, job)).map(|&i| &self.runs[i])
    }

    /// The spans of one job.
    pub fn spans<'l>(&self, level: &'l Level, run: &JobRun) -> &'l [Span] {
        &level.spans[run.first..run.end_index]
    }
}
