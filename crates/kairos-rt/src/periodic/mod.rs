//! Real execution of periodic and sporadic task sets: one thread
//! per task, released by `clock_nanosleep(TIMER_ABSTIME)` on CLOCK_MONOTONIC, whose jobs are
//! calibrated busy work of the task's WCET ([`crate::calibrate`]) or a user command. The
//! kernel schedules them:
//!
//! - `pfp`: partitioned fixed priority, SCHED_FIFO priorities (rate-monotonic, deadline-
//!   monotonic or the file's), each thread pinned to one CPU: the task's `core`, else first-fit
//!   decreasing ([`kairos_policy::policies::partition::assign_cores`], the simulator's own binding, so a
//!   simulated and a measured run place tasks alike);
//! - `gfp`: global fixed priority, the same priorities, every thread allowed on the run's CPUs;
//! - `edf`: SCHED_DEADLINE (global EDF with CBS budgets, runtime = WCET plus a margin,
//!   deadline D, period T) on every CPU of the root domain, since the kernel refuses a
//!   deadline thread a narrower affinity.
//!
//! Sporadic tasks are released at their minimum inter-arrival time (the densest pattern, the
//! one analysis assumes). Every job records its intended release, actual start, completion and
//! CPU; busy work also records where it ran, split where the CPU changed (a migration) or where
//! wall time ran ahead of CPU time (a preemption), to the resolution of one busy chunk.

use crate::calibrate::{run_command, BusyWork, Calibration, Chunk, JobBody};
use crate::measure::{JobRecord, RunInputs, RunResult, SegmentRecord, ThreadLog};
use crate::stalls::{CoreNumbers, StallWatch, StallWatchConfig};
use crate::watchdog::{Guarded, Heartbeat, RunControl, Watchdog, WatchdogConfig};
use kairos_model::Workload;
use kairos_os::sched::{DeadlineParams, Policy, MIN_DEADLINE_RUNTIME_NS};
use kairos_os::{clock, dma, memory, priority, sched, thread, PlatformError};
use kairos_policy::{ExecutionTimeModel, PriorityOrder};
use std::sync::atomic::AtomicI32;
use std::sync::{Arc, Condvar, Mutex};
use thiserror::Error;

mod plan;
#[cfg(test)]
mod plan_tests;
mod worker;

pub use plan::*;
use worker::*;

/// Released once: the run's origin on CLOCK_MONOTONIC, or `None` if the run was abandoned.
#[derive(Default)]
pub(super) struct StartGate {
    pub(super) state: Mutex<Option<Option<u64>>>,
    pub(super) opened: Condvar,
}

impl StartGate {
    pub(super) fn open(&self, origin: Option<u64>) {
        if let Ok(mut state) = self.state.lock() {
            *state = Some(origin);
        }
        self.opened.notify_all();
    }

    pub(super) fn wait(&self) -> Option<u64> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(origin) = *state {
                return origin;
            }
            state = self.opened.wait(state).ok()?;
        }
    }
}

/// What a worker thread needs.
pub(super) struct Worker {
    pub(super) task: usize,
    /// CPU work of each job in ns, drawn before the run ([`PeriodicConfig::execution_times`]).
    pub(super) demand_ns: Vec<u64>,
    pub(super) period_ns: u64,
    pub(super) deadline_ns: u64,
    pub(super) offset_ns: u64,
    pub(super) duration_ns: u64,
    pub(super) body: JobBody,
    pub(super) work: BusyWork,
    pub(super) gate: Arc<StartGate>,
    pub(super) control: Arc<RunControl>,
    pub(super) heartbeat: Arc<Heartbeat>,
    pub(super) child: Arc<AtomicI32>,
}

/// Runs `workload` for real under `config` (see the module documentation). The caller
/// calibrates (on [`plan`](fn@plan)'s CPUs) and may hold a
/// [`kairos_os::signals::StopSignals`] guard, which the watchdog turns into a clean stop.
pub fn run_periodic(
    workload: &Workload,
    config: &PeriodicConfig,
    calibration: &Calibration,
    control: Arc<RunControl>,
) -> Result<RunResult, RunError> {
    let machine = (config.cpus.clone()).unwrap_or_else(kairos_os::online_cpus);
    let plan = plan(workload, config, &machine)?;
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let gate = Arc::new(StartGate::default());
    let total_bandwidth: f64 = plan
        .threads
        .iter()
        .filter_map(|t| match t.policy {
            Policy::Deadline(p) => Some(p.bandwidth()),
            _ => None,
        })
        .sum();
    let mut handles = Vec::with_capacity(plan.threads.len());
    for t in &plan.threads {
        let worker = make_worker(workload, config, calibration, t, &gate, &control);
        let guarded = Guarded {
            name: String::new(),
            tid: 0,
            heartbeat: Arc::clone(&worker.heartbeat),
            child: Arc::clone(&worker.child),
        };
        let spec = thread::ThreadSpec {
            name: format!("kairos-{}", workload.tasks[t.task].name),
            policy: t.policy,
            cpus: t.cpus.clone(),
        };
        match thread::spawn_with_total(spec, Some(total_bandwidth), move || run_worker(worker)) {
            Ok(h) => handles.push((h, guarded)),
            Err(e) => {
                abandon(&gate, handles);
                return Err(e.into());
            }
        }
    }
    let origin = clock::now_ns() + config.start_delay_ns;
    let end = origin + config.duration_ns;
    let mut wd_config = WatchdogConfig::for_run(end, config.grace_ns);
    wd_config.stall_ns = config.stall_ns;
    let watchdog = match Watchdog::start(Arc::clone(&control), wd_config) {
        Ok(w) => w,
        Err(e) => {
            abandon(&gate, handles);
            return Err(e.into());
        }
    };
    for (h, guarded) in &handles {
        watchdog.guard(Guarded {
            name: h.name().to_string(),
            tid: h.tid(),
            ..guarded.clone()
        });
    }
    let stall_watch = match watch_stalls(&plan.cpus, config.policy, (origin, end), &control) {
        Ok(w) => w,
        Err(e) => {
            abandon(&gate, handles);
            return Err(e.into());
        }
    };
    stall_watch
        .guarded()
        .into_iter()
        .for_each(|g| watchdog.guard(g));
    gate.open(Some(origin));
    let mut logs = Vec::with_capacity(handles.len());
    let mut failures = Vec::new();
    for (h, _) in handles {
        match h.join() {
            Ok(log) => logs.push(log),
            Err(e) => failures.push(e.to_string()),
        }
    }
    // A stopped run ends at the stop request: jobs cut short by it are not misses.
    let ended = control.stopped_at_ns().unwrap_or_else(clock::now_ns);
    let ran_ns = ended.saturating_sub(origin).min(config.duration_ns);
    let lost = stall_watch.stop();
    let intervention = watchdog.stop();
    let mut notes = plan.notes;
    dma_note(&dma, &mut notes);
    notes.extend(
        failures
            .into_iter()
            .map(|f| format!("a worker failed: {f}")),
    );
    notes.extend(leftover_rt_threads());
    let stopped_by = intervention.or_else(|| control.reason());
    Ok(RunResult::build(RunInputs {
        policy: config.policy.cli_name().into(),
        task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
        cpus: plan.cpus,
        duration_ns: config.duration_ns,
        ran_ns,
        origin_ns: origin,
        stopped_by,
        dma_latency_held: dma.held(),
        calibration: calibration.clone(),
        logs,
        extra_events: Vec::new(),
        levels: Vec::new(),
        notes,
        // Kernel-scheduled runs run no parts.
        optional: Vec::new(),
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
        lost,
        timer_core: None,
        core_order: None,
    }))
}

/// The stall watchers of a run's CPUs ([`crate::stalls`]), which number cores by CPU as this
/// runtime's records do. Under SCHED_DEADLINE the run's threads rank above any watcher: only
/// the steal time is read.
fn watch_stalls(
    cpus: &[usize],
    policy: PeriodicPolicy,
    span: (u64, u64),
    control: &Arc<RunControl>,
) -> Result<StallWatch, PlatformError> {
    let watch = (policy != PeriodicPolicy::Edf).then(StallWatchConfig::default);
    StallWatch::start(cpus, CoreNumbers::Cpu, span, watch, control)
}

fn dma_note(dma: &dma::DmaLatencyGuard, notes: &mut Vec<String>) {
    if let Some(note) = dma.note() {
        notes.push(note.to_string());
    }
}

/// Real-time threads still alive after a run (there should be none): demoted and reported.
fn leftover_rt_threads() -> Vec<String> {
    sched::rt_threads_of_self()
        .into_iter()
        .map(|(tid, policy)| {
            let _ = sched::set_other(tid);
            format!("thread {tid} was still real-time (policy {policy}) after the run: demoted")
        })
        .collect()
}

/// Releases already created workers without running anything and waits for them.
fn abandon(gate: &StartGate, handles: Vec<(thread::RtThread<ThreadLog>, Guarded)>) {
    gate.open(None);
    for (h, _) in handles {
        let _ = h.join();
    }
}
