//! # kairos-trace
//!
//! One trace format for the simulator and (later) the Linux runtime, so a simulated schedule and
//! a measured one can be compared job by job; and its exports: a Gantt chart as SVG
//! ([`gantt`]) and the Chrome trace-event JSON that Perfetto opens ([`chrome`]).
#![forbid(unsafe_code)]

pub mod chrome;
pub mod gantt;

use kairos_model::Instant;
use serde::Serialize;

/// Something that happened to a job at a point or over an interval of time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceEvent {
    /// Job `job` (counted from 0 per task) of task `task` became ready.
    Release {
        task: usize,
        job: u64,
        at: Instant,
        deadline: Instant,
    },
    /// The job ran on `core` over `[start, end)`.
    Segment {
        core: usize,
        task: usize,
        job: u64,
        start: Instant,
        end: Instant,
    },
    /// The job finished its work.
    Completion { task: usize, job: u64, at: Instant },
    /// The job was not finished at its deadline `at` (it may still complete later).
    DeadlineMiss { task: usize, job: u64, at: Instant },
    /// The job was removed unfinished at its deadline (`--abort-on-miss`).
    Abort { task: usize, job: u64, at: Instant },
}

/// A whole recorded schedule.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Trace {
    /// Task names, indexed by the `task` field of events.
    pub task_names: Vec<String>,
    pub cores: usize,
    /// The end of the observed window (the schedule starts at 0).
    pub end: Instant,
    /// Events in the order they happened; segments are emitted when they close.
    pub events: Vec<TraceEvent>,
}

impl Trace {
    /// Execution segments only, as `(core, task, job, start, end)`.
    pub fn segments(&self) -> impl Iterator<Item = (usize, usize, u64, Instant, Instant)> + '_ {
        self.events.iter().filter_map(|e| match *e {
            TraceEvent::Segment {
                core,
                task,
                job,
                start,
                end,
            } => Some((core, task, job, start, end)),
            _ => None,
        })
    }
}
