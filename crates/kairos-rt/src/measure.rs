//! Measurements of a real run, in the vocabulary of the G-RES/G-MCRES paper (Pautet, Robert,
//! Tardieu), section 7: release latency (actual start minus intended start, the quantity
//! cyclictest reports for its timer), response time, deadline misses (each attributed to the
//! host or the schedule by [`crate::attribution`], from the time [`crate::stalls`] saw each core
//! lose), the parts of a migration (figure 5: timer to handler, request to stop on the old core,
//! stop to start on the new core) and of a mode change (overrun detection, table switch done, all
//! cores rescheduled). Distributions are HDR histograms (nanoseconds, 3 significant digits)
//! summarised as min/p50/p99/p99.9/max; the trace uses the simulator's events
//! ([`kairos_trace::Trace`]) with times relative to the run's start, so a simulated and a
//! measured run can be drawn and compared side by side.

use crate::attribution::{self, MissCause, MissesByCause, RunView};
use crate::calibrate::Calibration;
use crate::stalls::{CoreLost, LostTime, Stall};
use kairos_policy::CoreOrder;
use kairos_trace::{OptionalMetrics, Trace, TraceEvent};
use serde::Serialize;
use std::collections::BTreeMap;

mod distribution;
mod trace;
mod worker_time;
pub use distribution::{Distribution, Measurements, Summary};
use trace::build_trace;
pub use worker_time::{counted_loss, execution_loss, WorkerTime};

/// Names of the distributions, stable in the JSON output.
pub mod names {
    pub const RELEASE_LATENCY: &str = "release_latency";
    pub const RESPONSE_TIME: &str = "response_time";
    /// Migration, part 1: programmed slot boundary to the dispatcher's handler running.
    pub const MIGRATION_TIMER_TO_HANDLER: &str = "migration.timer_to_handler";
    /// Migration, part 2: stop requested to the task stopped on the old core.
    pub const MIGRATION_REQUEST_TO_STOP: &str = "migration.request_to_stop";
    /// Migration, part 3: stopped on the old core to running on the new one (busy wait incl.).
    pub const MIGRATION_STOP_TO_START: &str = "migration.stop_to_start";
    /// Mode change: end of the overrunning interval to the overrun being detected.
    pub const MODE_CHANGE_DETECTION: &str = "mode_change.detection";
    /// Mode change: detection to the new table in force.
    pub const MODE_CHANGE_SWITCH_DONE: &str = "mode_change.table_switch_done";
    /// Mode change: detection to every core rescheduled under the new table.
    pub const MODE_CHANGE_ALL_RESCHEDULED: &str = "mode_change.all_cores_rescheduled";
}

/// One job as it happened. Times are nanoseconds since the run's start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobRecord {
    pub task: usize,
    /// Job index, from 0 per task.
    pub job: u64,
    /// Intended release.
    pub release: u64,
    /// Absolute deadline.
    pub deadline: u64,
    /// When the user-space dispatcher first let a worker run it: its request, or the start
    /// the request named when it was made ahead (none under kernel dispatch). From here to
    /// `start` the job waited on the operating system alone.
    pub requested: Option<u64>,
    /// When its first instruction ran.
    pub start: Option<u64>,
    pub completion: Option<u64>,
    /// When it was dropped unfinished (mixed-criticality discard), if it was.
    pub discarded: Option<u64>,
    /// CPU it started on.
    pub cpu: Option<usize>,
    /// The core whose dispatcher was to wake for its release: its task's home when a pass of
    /// the user-space dispatcher took the release in (none under kernel dispatch).
    pub release_core: Option<usize>,
}

impl JobRecord {
    pub fn release_latency(&self) -> Option<u64> {
        self.start.map(|s| s.saturating_sub(self.release))
    }
    pub fn response_time(&self) -> Option<u64> {
        self.completion.map(|c| c.saturating_sub(self.release))
    }
    /// Missed: completed after its deadline, or unfinished at a deadline inside the run.
    /// A discarded job is not a miss (the discard model drops it on purpose).
    pub fn missed(&self, run_end: u64) -> bool {
        if self.discarded.is_some() {
            return false;
        }
        match self.completion {
            Some(c) => c > self.deadline,
            None => self.deadline <= run_end,
        }
    }
}

/// One stretch of execution of a job on a CPU, nanoseconds since the run's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentRecord {
    pub cpu: usize,
    pub task: usize,
    pub job: u64,
    pub start: u64,
    pub end: u64,
    /// What its worker had of the core and did with it, when the runtime counts work in
    /// calibrated units (the user-space dispatcher's workers); `None` under kernel dispatch,
    /// whose bodies count CPU time, so a slow core only makes their jobs longer.
    pub worker_time: Option<WorkerTime>,
}

/// What one runtime thread observed; merged into a [`RunResult`].
#[derive(Clone, Debug, Default)]
pub struct ThreadLog {
    pub jobs: Vec<JobRecord>,
    pub segments: Vec<SegmentRecord>,
    /// Times a job resumed on another CPU than it last ran on.
    pub migrations: u64,
    pub measurements: Measurements,
}

impl ThreadLog {
    /// A log with room for `jobs` jobs, so recording allocates nothing during the run.
    pub fn with_capacity(jobs: usize) -> Self {
        ThreadLog {
            jobs: Vec::with_capacity(jobs),
            segments: Vec::with_capacity(jobs * 2),
            ..ThreadLog::default()
        }
    }
}

/// A histogram in the JSON output: its summary and its non-empty buckets.
#[derive(Clone, Debug, Serialize)]
pub struct HistogramJson {
    #[serde(flatten)]
    pub summary: Summary,
    /// `[value_ns, count]` pairs, ascending.
    pub buckets: Vec<(u64, u64)>,
}

/// Per-task figures.
#[derive(Clone, Debug, Serialize)]
pub struct TaskSummary {
    pub task: String,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    pub release_latency_ns: Summary,
    pub response_time_ns: Summary,
    /// For an imprecise task run by parts (the same fields as `kairos simulate --json`).
    #[serde(flatten)]
    pub optional: Option<OptionalMetrics>,
}

/// Everything a real run produced; its JSON is the `kairos run --json` output. The field
/// names `jobs_released`, `jobs_completed`, `deadline_misses`, `migrations`, `mode_changes`
/// and `release_latency_ns.{min,p50,p99,max}` are stable.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub policy: String,
    /// Planned run length (ns); the run may have ended earlier, see `stopped_by`.
    pub duration_ns: u64,
    /// Wall time actually run (ns since the start).
    pub ran_ns: u64,
    /// CLOCK_MONOTONIC time of the run's start (time 0 of its records), to place outside
    /// events on the run's time line.
    #[serde(skip)]
    pub origin_ns: u64,
    /// Why the run ended early ("SIGINT", "watchdog: ..."), if it did.
    pub stopped_by: Option<String>,
    pub cpus: Vec<usize>,
    /// Whether `/dev/cpu_dma_latency` was held at 0 during the run.
    pub dma_latency_held: bool,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    /// The misses by cause, host or schedule ([`crate::attribution`]): with the slack from
    /// the run until [`RunResult::attribute_misses`] is given the run's simulation.
    pub misses_by_cause: MissesByCause,
    pub jobs_discarded: u64,
    pub migrations: u64,
    pub mode_changes: u64,
    pub release_latency_ns: Summary,
    pub response_time_ns: Summary,
    /// Totals over the imprecise tasks, when the policy runs parts.
    #[serde(flatten)]
    pub optional: Option<OptionalMetrics>,
    /// Optional time executed / requested, when some was requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optional_qos: Option<f64>,
    pub calibration: Calibration,
    pub histograms: BTreeMap<String, HistogramJson>,
    pub tasks: Vec<TaskSummary>,
    /// Lost time per core, in the order of `cpus` ([`crate::stalls`]).
    pub stalls: Vec<CoreLost>,
    pub notes: Vec<String>,
    /// Every job, in release order (not in the JSON: use `--trace` for per-job data).
    #[serde(skip)]
    pub jobs: Vec<JobRecord>,
    #[serde(skip)]
    pub trace: Trace,
    /// Every stall kept, by core then start.
    #[serde(skip)]
    pub stall_intervals: Vec<Stall>,
    /// Every missed job with its cause, in release order.
    #[serde(skip)]
    pub miss_causes: Vec<MissCause>,
    /// Every segment as its worker recorded it (with its CPU time and work, when counted).
    #[serde(skip)]
    pub segments: Vec<SegmentRecord>,
    /// The core whose dispatcher handled the policy's timers, if one did.
    #[serde(skip)]
    pub timer_core: Option<usize>,
    /// The order each core ran its jobs in, under a partitioned policy with a static one.
    #[serde(skip)]
    pub core_order: Option<CoreOrder>,
}

/// What [`RunResult::build`] needs; the table dispatcher fills the optional parts.
pub struct RunInputs {
    pub policy: String,
    pub task_names: Vec<String>,
    pub cpus: Vec<usize>,
    pub duration_ns: u64,
    pub ran_ns: u64,
    /// CLOCK_MONOTONIC time of time 0.
    pub origin_ns: u64,
    pub stopped_by: Option<String>,
    pub dma_latency_held: bool,
    pub calibration: Calibration,
    pub logs: Vec<ThreadLog>,
    /// Mode changes and other events only the dispatcher knows (ModeChange, Discard).
    pub extra_events: Vec<TraceEvent>,
    /// Criticality level names (empty for non-MC runs).
    pub levels: Vec<String>,
    pub notes: Vec<String>,
    /// Optional-part figures per task (`None` for a task not run by parts; empty: none is).
    pub optional: Vec<Option<OptionalMetrics>>,
    /// Optional deadlines per task, for the trace (`kairos_trace::optional_deadlines_of`).
    pub optional_deadlines: Vec<Option<kairos_model::Duration>>,
    /// Names of the servers (VCPUs) of a run through servers; empty otherwise.
    pub server_names: Vec<String>,
    /// Time taken from the run's cores.
    pub lost: LostTime,
    /// The core whose dispatcher handles the policy's timers, under the user-space dispatcher
    /// ([`crate::attribution`] weighs its stalls for optional deadlines).
    pub timer_core: Option<usize>,
    /// The order each core ran its jobs in, under a partitioned policy with a static one
    /// ([`kairos_policy::Policy::core_order`]; [`crate::attribution`] weighs the work ahead of
    /// a missed job with it).
    pub core_order: Option<CoreOrder>,
}

impl RunResult {
    /// Merges the threads' logs into counts, distributions and a trace.
    pub fn build(mut inputs: RunInputs) -> RunResult {
        let end = inputs.ran_ns.min(inputs.duration_ns);
        let mut jobs: Vec<JobRecord> = Vec::new();
        let mut segments: Vec<SegmentRecord> = Vec::new();
        let mut measurements = Measurements::default();
        let mut migrations = 0;
        for log in std::mem::take(&mut inputs.logs) {
            jobs.extend(log.jobs);
            segments.extend(log.segments);
            migrations += log.migrations;
            measurements.merge(&log.measurements);
        }
        jobs.sort_by_key(|j| (j.release, j.task, j.job));
        for job in &jobs {
            if let Some(l) = job.release_latency() {
                measurements.record(names::RELEASE_LATENCY, l);
            }
            if let Some(r) = job.response_time() {
                measurements.record(names::RESPONSE_TIME, r);
            }
        }
        let mode_changes = inputs
            .extra_events
            .iter()
            .filter(|e| matches!(e, TraceEvent::ModeChange { from, to, .. } if to > from))
            .count() as u64;
        let mut tasks = task_summaries(&inputs.task_names, &jobs, end);
        for (task, figures) in tasks.iter_mut().zip(&inputs.optional) {
            task.optional = *figures;
        }
        let optional = optional_total(&inputs.optional);
        let trace = build_trace(&inputs, &jobs, &segments, end);
        let mut lost = std::mem::take(&mut inputs.lost);
        let slowness = attribution::Slowness::of(&segments);
        for core in &mut lost.cores {
            core.slowed = slowness.on_core(&segments, core.core);
        }
        let mut result = RunResult {
            policy: inputs.policy,
            duration_ns: inputs.duration_ns,
            ran_ns: inputs.ran_ns,
            origin_ns: inputs.origin_ns,
            stopped_by: inputs.stopped_by,
            cpus: inputs.cpus,
            dma_latency_held: inputs.dma_latency_held,
            jobs_released: jobs.len() as u64,
            jobs_completed: jobs.iter().filter(|j| j.completion.is_some()).count() as u64,
            deadline_misses: jobs.iter().filter(|j| j.missed(end)).count() as u64,
            misses_by_cause: MissesByCause::default(),
            jobs_discarded: jobs.iter().filter(|j| j.discarded.is_some()).count() as u64,
            migrations,
            mode_changes,
            release_latency_ns: measurements.summary(names::RELEASE_LATENCY),
            response_time_ns: measurements.summary(names::RESPONSE_TIME),
            optional,
            optional_qos: optional.and_then(|o| o.qos()),
            calibration: inputs.calibration,
            histograms: measurements
                .distributions
                .iter()
                .map(|(name, d)| {
                    let json = HistogramJson {
                        summary: d.summary(),
                        buckets: d.buckets(),
                    };
                    (name.clone(), json)
                })
                .collect(),
            tasks,
            stalls: lost.cores,
            notes: inputs.notes,
            jobs,
            trace,
            stall_intervals: lost.stalls,
            miss_causes: Vec::new(),
            segments,
            timer_core: inputs.timer_core,
            core_order: inputs.core_order,
        };
        result.attribute_misses(None);
        result
    }

    /// Attributes every miss ([`crate::attribution`]), the slack from `twin`, the
    /// simulation of this very run (same jobs, same draws), when given.
    pub fn attribute_misses(&mut self, twin: Option<attribution::Twin>) {
        let cores: Vec<usize> = self.stalls.iter().map(|c| c.core).collect();
        let run = RunView {
            measured: &self.trace,
            stalls: &self.stall_intervals,
            cores: &cores,
            worker_segments: &self.segments,
            timer_core: self.timer_core,
            core_order: self.core_order.as_ref(),
            end: self.ran_ns.min(self.duration_ns),
        };
        (self.misses_by_cause, self.miss_causes) = attribution::attribute(&self.jobs, &run, twin);
    }
}

/// The sum of the tasks' optional figures, if any task ran by parts.
fn optional_total(tasks: &[Option<OptionalMetrics>]) -> Option<OptionalMetrics> {
    let mut run = tasks.iter().flatten().peekable();
    run.peek()?;
    let mut total = OptionalMetrics::default();
    run.for_each(|t| total.merge(t));
    Some(total)
}

fn task_summaries(names: &[String], jobs: &[JobRecord], end: u64) -> Vec<TaskSummary> {
    names
        .iter()
        .enumerate()
        .map(|(task, name)| {
            let mine = jobs.iter().filter(|j| j.task == task);
            let mut latency = Distribution::new();
            let mut response = Distribution::new();
            let (mut released, mut completed, mut misses) = (0, 0, 0);
            for job in mine {
                released += 1;
                completed += u64::from(job.completion.is_some());
                misses += u64::from(job.missed(end));
                job.release_latency()
                    .into_iter()
                    .for_each(|l| latency.record(l));
                job.response_time()
                    .into_iter()
                    .for_each(|r| response.record(r));
            }
            TaskSummary {
                task: name.clone(),
                jobs_released: released,
                jobs_completed: completed,
                deadline_misses: misses,
                release_latency_ns: latency.summary(),
                response_time_ns: response.summary(),
                optional: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
