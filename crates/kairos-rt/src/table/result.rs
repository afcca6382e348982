//! From the threads' logs to the run result, in the simulator's vocabulary
//! (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 7.1 "Decomposition of a criticality mode change"):
//! one job record per released job, mode changes up and the return to level 0 at every
//! hyper-period boundary (section 6.3), discards of the jobs of tasks below the new mode, and
//! the parts of each mode change: overrun detection (end of the last interval to the handler),
//! table switch done and all cores rescheduled (both from the detection), plus each core's
//! rescheduling delay (the doorbell rung to its pass done, section 7.2).

use super::dispatch::{DispatcherLog, ModeChangeRecord};
use super::shared::Shared;
use super::worker::{extra_names, WorkerLog};
use crate::calibrate::Calibration;
use crate::measure::{
    names, Distribution, HistogramJson, JobRecord, Measurements, RunInputs, RunResult, ThreadLog,
};
use crate::mode::ModeWord;
use kairos_model::Instant;
use kairos_trace::TraceEvent;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Detection to every core's pass under the new mode, and the mode change end to end.
pub const MODE_CHANGE_TOTAL: &str = "mode_change.total";

/// The rescheduling delay of one core: `mode_change.reschedule_delay.cpu<k>`.
pub fn reschedule_delay_name(core: usize) -> String {
    format!("mode_change.reschedule_delay.core{core}")
}

/// A table-driven run: the common result plus what only this runtime knows.
#[derive(Debug)]
pub struct TableRun {
    pub result: RunResult,
    pub mode_changes: Vec<ModeChangeRecord>,
    /// Deadline misses per criticality level (of the missing job's task), in level order.
    pub misses_per_level: Vec<u64>,
    /// Times a task was found executing on two cores (must be 0).
    pub overlaps: u64,
    /// Scheduling decisions made from a mixed state (must be 0).
    pub inconsistent_decisions: u64,
    /// Overruns whose Algorithm 1 changed nothing (simultaneous, or seen with a stale lcm).
    pub overruns_absorbed: u64,
    /// Jobs stopped for good by budget enforcement.
    pub jobs_killed: u64,
    /// `(time, core, lcm)` of every pass that changed a core's local mode word.
    pub passes: Vec<(u64, usize, ModeWord)>,
}

/// What the run knows besides the logs.
pub struct Context {
    pub cpus: Vec<usize>,
    pub ran_ns: u64,
    pub stopped_by: Option<String>,
    pub dma_latency_held: bool,
    pub calibration: Calibration,
    pub notes: Vec<String>,
}

/// Merges the logs (see the module documentation).
pub fn build(
    shared: &Shared,
    workers: Vec<WorkerLog>,
    dispatchers: Vec<DispatcherLog>,
    context: Context,
) -> TableRun {
    let plan = &shared.plan;
    let end = context.ran_ns.min(plan.duration);
    let mut measurements = Measurements::default();
    let mut mode_changes: Vec<ModeChangeRecord> = Vec::new();
    let mut passes = Vec::new();
    let (mut kills, mut absorbed, mut restarts, mut gave_up) = (Vec::new(), 0, 0, 0);
    for d in &dispatchers {
        measurements.merge(&d.measurements);
        mode_changes.extend(d.mode_changes.iter().copied());
        passes.extend(d.passes.iter().map(|&(t, w)| (t, d.core, w)));
        kills.extend(d.kills.iter().copied());
        absorbed += d.overruns_absorbed;
        restarts += d.restarts;
    }
    mode_changes.sort_by_key(|m| m.detected_at);
    passes.sort_by_key(|p| p.0);
    record_mode_changes(&mode_changes, &passes, plan.table.cores, &mut measurements);
    let mut log = ThreadLog::default();
    let (mut completions, mut first) = (HashMap::new(), HashMap::new());
    for w in workers {
        for &(job, at) in &w.completions {
            completions.insert((w.task, job), at);
        }
        for &(job, at, intended) in &w.first_starts {
            first.entry((w.task, job)).or_insert((at, w.core, intended));
        }
        log.segments.extend(w.segments);
        log.migrations += w.migrations;
        gave_up += w.gave_up;
        measurements.merge(&w.measurements);
    }
    log.jobs = job_records(shared, &completions, &first, &mode_changes, end);
    let events = mode_events(shared, &mode_changes, &log.jobs, end);
    let misses_per_level = misses_per_level(shared, &log.jobs, end);
    let overlaps: u64 = shared
        .tasks
        .iter()
        .map(|t| t.overlaps.load(Ordering::SeqCst))
        .sum();
    let inconsistent = shared.inconsistent.load(Ordering::SeqCst);
    let start_latency = measurements
        .distributions
        .get(extra_names::START_LATENCY)
        .cloned()
        .unwrap_or_default();
    log.measurements = measurements;
    let mut notes = context.notes;
    notes.push(format!(
        "deadline misses per level: {}",
        plan.table
            .levels
            .iter()
            .zip(&misses_per_level)
            .map(|(l, m)| format!("{l} {m}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    notes.push(format!(
        "hand-offs given up and retried: {gave_up}; Algorithm 2 restarts: {restarts}; \
         overruns absorbed by Algorithm 1: {absorbed}; jobs stopped by budget: {}",
        kills.len()
    ));
    if overlaps > 0 || inconsistent > 0 {
        notes.push(format!(
            "PROTOCOL VIOLATION: {overlaps} double execution(s), {inconsistent} decision(s) \
             from a mixed state"
        ));
    }
    let mut result = RunResult::build(RunInputs {
        policy: "table".into(),
        task_names: plan.table.tasks.iter().map(|t| t.name.clone()).collect(),
        cpus: context.cpus,
        duration_ns: plan.duration,
        ran_ns: context.ran_ns,
        stopped_by: context.stopped_by,
        dma_latency_held: context.dma_latency_held,
        calibration: context.calibration,
        logs: vec![log],
        extra_events: events,
        levels: plan.table.levels.clone(),
        notes,
    });
    use_table_start_latency(&mut result, &start_latency, &first);
    TableRun {
        result,
        mode_changes,
        misses_per_level,
        overlaps,
        inconsistent_decisions: inconsistent,
        overruns_absorbed: absorbed,
        jobs_killed: kills.len() as u64,
        passes,
    }
}

/// Detection, switch, all-cores and per-core rescheduling figures of every mode change.
fn record_mode_changes(
    changes: &[ModeChangeRecord],
    passes: &[(u64, usize, ModeWord)],
    cores: usize,
    m: &mut Measurements,
) {
    for change in changes {
        m.record(
            names::MODE_CHANGE_DETECTION,
            change.detected_at.saturating_sub(change.nominal),
        );
        m.record(
            names::MODE_CHANGE_SWITCH_DONE,
            change.switch_done_at.saturating_sub(change.detected_at),
        );
        // A core has rescheduled under the new mode at its first pass with lcm >= `to` in
        // the same hyper-period.
        let mut all = Some(change.detected_at);
        for core in 0..cores {
            let done = passes.iter().find(|&&(t, c, w)| {
                c == core
                    && t >= change.detected_at
                    && w >= change.to
                    && w.generation() == change.to.generation()
            });
            match done {
                Some(&(t, _, _)) => {
                    m.record(
                        &reschedule_delay_name(core),
                        t.saturating_sub(change.requested_at),
                    );
                    all = all.map(|a| a.max(t));
                }
                None => all = None,
            }
        }
        if let Some(all) = all {
            m.record(names::MODE_CHANGE_ALL_RESCHEDULED, all - change.detected_at);
            m.record(MODE_CHANGE_TOTAL, all.saturating_sub(change.nominal));
        }
    }
}

/// One record per job released before `end`, with its start, completion and discard.
fn job_records(
    shared: &Shared,
    completions: &HashMap<(usize, u64), u64>,
    first: &HashMap<(usize, u64), (u64, usize, u64)>,
    changes: &[ModeChangeRecord],
    end: u64,
) -> Vec<JobRecord> {
    let plan = &shared.plan;
    let mut jobs = Vec::new();
    for (task, t) in plan.table.tasks.iter().enumerate() {
        let dag = &plan.table.dags[t.dag];
        for job in 0..end.div_ceil(dag.period) {
            let release = job * dag.period;
            let deadline = release + dag.deadline;
            let completion = completions.get(&(task, job)).copied();
            let discarded = discard_time(
                t.criticality(),
                release,
                deadline,
                completion,
                changes,
                plan.table.hyperperiod,
            );
            let started = first.get(&(task, job));
            jobs.push(JobRecord {
                task,
                job,
                release,
                deadline,
                start: started.map(|s| s.0),
                completion,
                discarded,
                cpu: started.map(|s| s.1),
            });
        }
    }
    jobs
}

/// When a job was dropped: the first raise of its hyper-period above its task's criticality
/// while it was released and unfinished (at its release if the raise came first).
fn discard_time(
    criticality: usize,
    release: u64,
    deadline: u64,
    completion: Option<u64>,
    changes: &[ModeChangeRecord],
    hyperperiod: u64,
) -> Option<u64> {
    let generation = release / hyperperiod;
    changes
        .iter()
        .filter(|c| c.to.generation() == generation && c.to.raw_mode() > criticality)
        .map(|c| c.detected_at.max(release))
        .find(|&at| at <= deadline && completion.is_none_or(|done| done > at))
}

/// ModeChange events (raises, and the return to level 0 at the next hyper-period boundary
/// inside the run) and a Discard event per discarded job.
fn mode_events(
    shared: &Shared,
    changes: &[ModeChangeRecord],
    jobs: &[JobRecord],
    end: u64,
) -> Vec<TraceEvent> {
    let h = shared.plan.table.hyperperiod;
    let mut events = Vec::new();
    let mut top: HashMap<u64, usize> = HashMap::new();
    for c in changes {
        events.push(TraceEvent::ModeChange {
            at: Instant::from_nanos(c.detected_at),
            from: c.from.raw_mode(),
            to: c.to.raw_mode(),
        });
        let generation = c.to.generation();
        let mode = top.entry(generation).or_default();
        *mode = (*mode).max(c.to.raw_mode());
    }
    let mut resets: Vec<(u64, usize)> = top.into_iter().collect();
    resets.sort_unstable();
    for (generation, mode) in resets {
        let at = (generation + 1) * h;
        if at < end {
            events.push(TraceEvent::ModeChange {
                at: Instant::from_nanos(at),
                from: mode,
                to: 0,
            });
        }
    }
    events.extend(jobs.iter().filter_map(|j| {
        j.discarded.map(|at| TraceEvent::Discard {
            task: j.task,
            job: j.job,
            at: Instant::from_nanos(at),
        })
    }));
    events
}

fn misses_per_level(shared: &Shared, jobs: &[JobRecord], end: u64) -> Vec<u64> {
    let mut misses = vec![0; shared.plan.table.levels.len()];
    for j in jobs.iter().filter(|j| j.missed(end)) {
        misses[shared.plan.table.tasks[j.task].criticality()] += 1;
    }
    misses
}

/// The release latency of a table-driven job is its first start minus its first interval's
/// start (the table delays jobs on purpose), so the common fields take that distribution.
fn use_table_start_latency(
    result: &mut RunResult,
    all: &Distribution,
    first: &HashMap<(usize, u64), (u64, usize, u64)>,
) {
    result.release_latency_ns = all.summary();
    result.histograms.insert(
        names::RELEASE_LATENCY.to_string(),
        HistogramJson {
            summary: all.summary(),
            buckets: all.buckets(),
        },
    );
    result.histograms.remove(extra_names::START_LATENCY);
    let mut per_task = vec![Distribution::new(); result.tasks.len()];
    for (&(task, _), &(start, _, intended)) in first {
        per_task[task].record(start.saturating_sub(intended));
    }
    for (summary, d) in result.tasks.iter_mut().zip(&per_task) {
        summary.release_latency_ns = d.summary();
    }
}
