//! Every job of a simulated trace as a row: release, deadline, completion, response, missed.

use kairos_trace::{Trace, TraceEvent};
use serde::Serialize;

/// One job of a simulation, for per-job tables.
#[derive(Clone, Debug, Serialize)]
pub struct JobRow {
    pub task: String,
    pub job: u64,
    pub release_ns: u64,
    pub deadline_ns: u64,
    /// None: not completed within the simulated time.
    pub completion_ns: Option<u64>,
    pub response_ns: Option<u64>,
    pub missed: bool,
}

/// Every job a trace shows released: release, deadline, completion and response, missed.
pub fn job_rows(trace: &Trace) -> Vec<JobRow> {
    let mut rows: Vec<JobRow> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for event in &trace.events {
        match event {
            TraceEvent::Release {
                task,
                job,
                at,
                deadline,
            } => {
                index.insert((*task, *job), rows.len());
                rows.push(JobRow {
                    task: trace.task_names[*task].clone(),
                    job: *job,
                    release_ns: at.as_nanos(),
                    deadline_ns: deadline.as_nanos(),
                    completion_ns: None,
                    response_ns: None,
                    missed: false,
                });
            }
            TraceEvent::Completion { task, job, at } => {
                if let Some(row) = index.get(&(*task, *job)).map(|&i| &mut rows[i]) {
                    row.completion_ns = Some(at.as_nanos());
                    row.response_ns = Some(at.as_nanos() - row.release_ns);
                }
            }
            TraceEvent::DeadlineMiss { task, job, .. } => {
                if let Some(row) = index.get(&(*task, *job)).map(|&i| &mut rows[i]) {
                    row.missed = true;
                }
            }
            _ => {}
        }
    }
    rows
}
