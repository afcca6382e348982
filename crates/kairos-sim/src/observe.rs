//! Watching a run as it happens: every event of the trace format, plus what only the engine
//! knows at the moment it happens (a job's drawn work, a segment's start, a budget stop, the
//! jobs that triggered a mode change).
//!
//! The engine's own [`crate::Metrics`] and the optional recorded [`kairos_trace::Trace`] are
//! kept by the engine; an observer computes what a family of policies measures besides them
//! (the mixed-criticality figures of a table run, `crate::table`) without storing the trace, so
//! memory stays flat in the simulated duration.

use kairos_model::{Duration, Instant};
use kairos_policy::JobId;
use kairos_trace::TraceEvent;

/// Receives a run's events in the order they happen.
pub trait Observer {
    /// One event of the trace format, when it happens (a segment when it closes).
    fn event(&mut self, event: &TraceEvent);

    /// `job` was just released with `work` to execute (right after its release event).
    fn released(&mut self, _job: JobId, _work: Duration) {}

    /// `job` starts a segment on `core` at `at` (its segment event comes when it closes).
    fn started(&mut self, _at: Instant, _core: usize, _job: JobId) {}

    /// The policy stopped `job` at `at` (budget enforcement): it runs no more.
    fn stopped(&mut self, _at: Instant, _job: JobId) {}

    /// The mode changed at `at` (right after its `ModeChange` event); `triggers` are the jobs
    /// whose overrun caused it.
    fn mode_changed(&mut self, _at: Instant, _triggers: &[JobId]) {}
}
