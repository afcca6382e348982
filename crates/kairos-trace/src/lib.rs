//! # kairos-trace
//!
//! One trace format for the simulator and (later) the Linux runtime, so a simulated schedule and
//! a measured one can be compared job by job; and its exports: a Gantt chart as SVG
//! ([`gantt`]) and the Chrome trace-event JSON that Perfetto opens ([`chrome`]).
#![forbid(unsafe_code)]

pub mod chrome;
pub mod gantt;
mod optional;
mod servers;

pub use optional::OptionalMetrics;
pub use servers::ServerMetrics;

use kairos_model::{Duration, Instant, Part, Workload};
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
    /// The job was dropped unfinished because the system entered a criticality level above the
    /// task's own (mixed-criticality discard model).
    Discard { task: usize, job: u64, at: Instant },
    /// Part `part` of an imprecise job ended (`outcome`); the job's next part follows at once
    /// (the extended imprecise computation model of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP). Segments of a job run by parts
    /// are split at part ends, so each segment belongs to one part: the part after the job's
    /// last `PartEnd` before it, or the mandatory part.
    PartEnd {
        task: usize,
        job: u64,
        at: Instant,
        part: Part,
        outcome: PartOutcome,
        /// The part the job runs next.
        next: Part,
    },
    /// The system's criticality mode changed from level `from` to level `to` (indices into the
    /// system's level names; a return to the lowest level at a hyper-period is one too).
    ModeChange { at: Instant, from: usize, to: usize },
    /// Server `server` (an index into [`Trace::server_names`]) was placed on `core` over
    /// `[start, end)`: the core's time went to it (the jobs it ran have their own segments).
    ServerSegment {
        core: usize,
        server: usize,
        start: Instant,
        end: Instant,
    },
    /// Server `server`'s period began: its budget is full again.
    Replenish { server: usize, at: Instant },
    /// Server `server` used the last of its budget on a core before its period ended.
    ServerExhausted { server: usize, at: Instant },
}

impl TraceEvent {
    /// Whether a Gantt chart of the window `[from, to]` needs this event: what it draws there
    /// (a segment or a job's release-to-deadline span that overlaps the window, an instant
    /// inside it) and what decides how it draws it (a job's earlier part ends, which say the
    /// part of its later segments; every mode change, few and read from the run's start). A
    /// recorder keeping only these draws the same window as one keeping everything.
    pub fn drawn_in(&self, from: Instant, to: Instant) -> bool {
        let overlaps = |start: Instant, end: Instant| start <= to && end >= from;
        match *self {
            TraceEvent::Segment { start, end, .. }
            | TraceEvent::ServerSegment { start, end, .. } => overlaps(start, end),
            TraceEvent::Release { at, deadline, .. } => overlaps(at, deadline),
            TraceEvent::PartEnd { at, .. } => at <= to,
            TraceEvent::ModeChange { .. } => true,
            TraceEvent::Completion { at, .. }
            | TraceEvent::DeadlineMiss { at, .. }
            | TraceEvent::Abort { at, .. }
            | TraceEvent::Discard { at, .. }
            | TraceEvent::Replenish { at, .. }
            | TraceEvent::ServerExhausted { at, .. } => overlaps(at, at),
        }
    }
}

/// How a part ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartOutcome {
    /// It executed all its work.
    Completed,
    /// The policy cut it unfinished (an optional part at its optional deadline).
    Cut,
    /// The policy cut it at the instant it began, before it executed anything (an optional
    /// part whose mandatory part ended at or after the optional deadline).
    Skipped,
}

/// A whole recorded schedule.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Trace {
    /// Task names, indexed by the `task` field of events.
    pub task_names: Vec<String>,
    /// Criticality level names for mixed-criticality runs, indexed by `ModeChange` events;
    /// empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<String>,
    pub cores: usize,
    /// The end of the observed window (the schedule starts at 0).
    pub end: Instant,
    /// Optional deadlines of imprecise tasks relative to their jobs' releases, indexed like
    /// `task_names` (`None`: the task has none); empty when no task has one. The Gantt marks
    /// each job's optional deadline from them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub optional_deadlines: Vec<Option<Duration>>,
    /// Names of the servers (VCPUs) of a run through servers, indexed by the `server` field of
    /// events; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_names: Vec<String>,
    /// Events in the order they happened; segments are emitted when they close.
    pub events: Vec<TraceEvent>,
}

/// The optional deadline of each task of `workload` (as [`Trace::optional_deadlines`] keeps
/// them): empty when no task has one.
pub fn optional_deadlines_of(workload: &Workload) -> Vec<Option<Duration>> {
    let deadlines: Vec<Option<Duration>> = (workload.tasks.iter())
        .map(|t| t.imprecise.as_ref().and_then(|p| p.optional_deadline))
        .collect();
    match deadlines.iter().any(Option::is_some) {
        true => deadlines,
        false => Vec::new(),
    }
}

impl Trace {
    /// The name of level `level`, or its index when the trace has no level names.
    pub fn level_name(&self, level: usize) -> String {
        self.levels
            .get(level)
            .cloned()
            .unwrap_or_else(|| level.to_string())
    }

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
