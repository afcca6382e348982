//! The user-space dispatcher: runs any policy written against the execution contract
//! (`kairos-policy`) on real cores, the same policy objects the simulator hosts
//! (`docs/policy.md`, `docs/run.md` "User-space dispatch").
//!
//! Threads, all created with explicit SCHED_FIFO policy and a single CPU
//! ([`kairos_os::thread`]):
//! - one **dispatcher per core** at [`kairos_os::priority::DISPATCHER`]
//!   (`percore`): absolute futex timers for releases and policy timers, a doorbell for
//!   completions and other cores' decisions, one pass of the contract per wake-up under the
//!   scheduler's lock (`scheduler`);
//! - one **worker per (task, core)** at [`kairos_os::priority::WORKER_MAX`]
//!   (`worker`): suspended and resumed by futex, executing calibrated busy work of the job's
//!   WCET in 0.5 us units, handing a job from core to core through a holder word;
//! - one **stall watcher per core** at [`kairos_os::priority::STALL_WATCH`]
//!   ([`crate::stalls`]), above them, recording the time the core was taken from the run;
//! - the **watchdog** of every run ([`crate::watchdog`]), above them all.
//!
//! Jobs come from the simulator's job sources ([`kairos_policy::JobSource`]): released at
//! their nominal instants (sporadic inter-arrivals drawn from the seed as the simulator draws
//! them), each executing the work drawn for it. Policies may promise a later placement
//! ([`kairos_policy::Ahead`]); the dispatchers prepare it so it happens at its instant. The run records every job, every
//! execution segment (core index, not CPU number: `RunResult::cpus[k]` is core `k`'s CPU),
//! when asked ([`UserRunConfig::record_steps`]) every decision with the events and view that
//! led to it ([`Step`]), and the costs of the mechanism: the decision (callbacks, decide and
//! check, lock held), the lock wait, the timer's lateness and the request-to-start latency of
//! a worker (also for migrations alone). Nothing between a dispatcher's wake-up and its
//! worker's start allocates but the policy's own decision (the contract's `Policy::decide`
//! returns one) and, when asked for, the record of steps: what the run writes is reserved
//! before it starts, and each thread records its timings into its own histograms.

mod decide;
mod events;
mod floor;
pub mod late;
mod late_start;
mod metered;
mod parts;
mod percore;
mod promise;
mod record;
mod scheduler;
mod shared;
mod side;
#[cfg(test)]
mod tests;
mod threads;
#[doc(hidden)]
pub mod wakes;
mod worker;

pub use scheduler::TIMER_CORE;

pub use events::OVERLOADED;
pub use floor::same_core_floor;
pub use metered::{DECIDE, END_MANDATORY, END_OPTIONAL, JOB_COMPLETED, JOB_RELEASED, TIMER_FIRED};
pub use percore::TIMER_TO_HANDLER;
pub use percore::{
    DispatcherLog, CONFIRM_SLACK_NS, DOORBELL_TO_HANDLER, EVENT_TO_HANDLER, PART_POLICY,
};
pub use scheduler::{ModeChangeRecord, DECISION_COST, LOCK_WAIT};
pub use worker::{MIGRATION_REQUEST_TO_START, REQUEST_TO_START, UNIT_NS};

use crate::calibrate::{self, Calibration};
use crate::measure::{JobRecord, RunInputs, RunResult, ThreadLog};
use crate::periodic::RunError;
use crate::stalls::{CoreNumbers, StallWatch, StallWatchConfig};
use crate::watchdog::{RunControl, Watchdog, WatchdogConfig};
use kairos_model::{Duration, Workload};
use kairos_os::{clock, dma, futex, memory, privilege};
use kairos_policy::{JobSource, Policy, Step, WorkloadJobs};
use scheduler::Scheduler;
use shared::Shared;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use threads::{finish, guard_all, spawn_all};
use worker::WorkerLog;

/// The default [`UserRunConfig::lead_ns`]: above this VM's median timer lateness plus a
/// decision and a wake-up (about 22 + 3 + 12 us, `kairos bench dispatch`).
pub const DEFAULT_LEAD_NS: u64 = 50_000;

/// How to run.
#[derive(Clone, Debug)]
pub struct UserRunConfig {
    pub duration_ns: u64,
    /// CPUs to run on (core `k` on `cpus[k]`); default: the first online ones.
    pub cpus: Option<Vec<usize>>,
    /// A calibration to reuse (default: calibrate the run's CPUs first).
    pub calibration: Option<Calibration>,
    pub control: Option<Arc<RunControl>>,
    /// Time between the threads being ready and time 0 (threads settle).
    pub start_delay_ns: u64,
    /// Time 0 as a CLOCK_MONOTONIC instant instead, to line the run up with something outside
    /// it (a test's thread that holds a core at chosen instants of the run).
    pub start_at_ns: Option<u64>,
    /// Time after the end before the watchdog's hard stop.
    pub grace_ns: u64,
    /// CPU time without progress after which the watchdog demotes everything.
    pub stall_ns: u64,
    /// How long before a known event (a release, a policy timer) the dispatcher of an idle
    /// core wakes to decide as of that instant; the chosen worker then starts at the instant
    /// itself instead of a timer interrupt and a wake-up later. 0: wake at the event.
    pub lead_ns: u64,
    /// Execution time of each job, drawn per (task, job) with `seed` exactly as the simulator
    /// draws it (the policy sees only the WCET budget).
    pub execution_times: kairos_policy::ExecutionTimeModel,
    pub seed: u64,
    /// Record every decision with what led to it ([`UserRun::steps`], for replay and the
    /// comparison of engines). Off by default: the record copies the view and the decision
    /// under the scheduler's lock, allocating on the decision path.
    pub record_steps: bool,
}

impl UserRunConfig {
    pub fn new(duration_ns: u64) -> Self {
        UserRunConfig {
            duration_ns,
            cpus: None,
            calibration: None,
            control: None,
            start_delay_ns: 20_000_000,
            start_at_ns: None,
            grace_ns: 1_000_000_000,
            stall_ns: 1_000_000_000,
            lead_ns: DEFAULT_LEAD_NS,
            execution_times: kairos_policy::ExecutionTimeModel::Wcet,
            seed: 0,
            record_steps: false,
        }
    }
}

/// A user-dispatched run: the common result plus every decision with what led to it, and
/// what only a run with criticality modes has.
#[derive(Debug)]
pub struct UserRun {
    pub result: RunResult,
    /// Every decision with what led to it, when [`UserRunConfig::record_steps`] (else none).
    pub steps: Vec<Step>,
    pub mode_changes: Vec<ModeChangeRecord>,
    /// `(core, mode epoch, time)`: when a core first ran what a changed mode wants.
    pub rescheduled: Vec<(usize, u64, u64)>,
    /// Jobs stopped for good by budget enforcement.
    pub stops: u64,
    /// Per server of a policy that schedules through servers (VCPUs), in nominal time.
    pub servers: Vec<kairos_trace::ServerMetrics>,
}

/// Where the jobs of a run come from besides the workload: the job source the simulator
/// uses too, and the fraction of each drawn work a job's body executes (1 but for a table
/// run's margin, see `TableRunConfig::work_fraction`).
pub struct RunSource {
    pub source: Box<dyn JobSource + Send>,
    pub work_scale: f64,
}

/// Runs `workload` for real under `policy` (see the module documentation), its jobs drawn
/// as the simulator draws them with `config.seed` and `config.execution_times`.
pub fn run_user(
    workload: &Workload,
    policy: Box<dyn Policy + Send>,
    config: &UserRunConfig,
) -> Result<UserRun, RunError> {
    let source = RunSource {
        source: Box::new(WorkloadJobs::new(config.seed, config.execution_times)),
        work_scale: 1.0,
    };
    run_user_from(workload, policy, source, config)
}

/// Runs `workload` for real under `policy` with the jobs of `source`.
pub fn run_user_from(
    workload: &Workload,
    mut policy: Box<dyn Policy + Send>,
    source: RunSource,
    config: &UserRunConfig,
) -> Result<UserRun, RunError> {
    policy
        .prepare(workload)
        .map_err(|refusal| RunError::Invalid(format!("{}: {}", policy.name(), refusal.0)))?;
    let cpus = choose_cpus(workload, config)?;
    if workload.tasks.len() >= 0xffff {
        return Err(RunError::Invalid(format!(
            "{} tasks: the user-space dispatcher runs at most 65534",
            workload.tasks.len()
        )));
    }
    privilege::require_rt()?;
    let calibration = match &config.calibration {
        Some(c) => c.clone(),
        None => calibrate::calibrate(&cpus)?,
    };
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let control = config.control.clone().unwrap_or_default();
    let mut notes = policy.notices(workload);
    let name = policy.name();
    let core_order = policy.core_order();
    let levels = source.source.levels();
    let scheduler = Scheduler::new(
        workload,
        policy,
        config.duration_ns,
        source.source,
        source.work_scale,
        config.record_steps,
    );
    let shared = Arc::new(Shared::new(
        scheduler,
        Arc::clone(&control),
        config.duration_ns,
        config.lead_ns,
    ));
    let (workers, dispatchers) = match spawn_all(&shared, &cpus, &calibration) {
        Ok(threads) => threads,
        Err((e, workers, dispatchers)) => {
            control.request_stop("a runtime thread could not be created");
            finish(&shared, workers, dispatchers);
            return Err(e.into());
        }
    };
    let origin = (config.start_at_ns).unwrap_or_else(|| clock::now_ns() + config.start_delay_ns);
    let mut wd_config = WatchdogConfig::for_run(origin + config.duration_ns, config.grace_ns);
    wd_config.stall_ns = config.stall_ns;
    let watchdog = match Watchdog::start(Arc::clone(&control), wd_config) {
        Ok(w) => w,
        Err(e) => {
            control.request_stop("the watchdog could not start");
            finish(&shared, workers, dispatchers);
            return Err(e.into());
        }
    };
    guard_all(&watchdog, &shared, &workers, &dispatchers);
    let span = (origin, origin + config.duration_ns);
    let watch = Some(StallWatchConfig::default());
    let stall_watch = match StallWatch::start(&cpus, CoreNumbers::Index, span, watch, &control) {
        Ok(w) => w,
        Err(e) => {
            control.request_stop("a stall watcher could not start");
            finish(&shared, workers, dispatchers);
            return Err(e.into());
        }
    };
    stall_watch
        .guarded()
        .into_iter()
        .for_each(|g| watchdog.guard(g));
    let ready = clock::now_ns();
    if ready > origin {
        // The threads' set-up outlasted the delay set aside for it: the first passes catch up.
        notes.push(format!(
            "the run's threads were ready {} after its start: its first releases were late",
            Duration::from_nanos(ready - origin)
        ));
    }
    shared.origin.store(origin, Ordering::Release);
    shared.gate.store(1, Ordering::Release);
    futex::wake(&shared.gate);
    let (worker_logs, dispatcher_logs, failures) = finish(&shared, workers, dispatchers);
    let stopped = control.stopped_at_ns().unwrap_or_else(clock::now_ns);
    let ran_ns = stopped.saturating_sub(origin).min(config.duration_ns);
    let mut lost = stall_watch.stop();
    let intervention = watchdog.stop();
    notes.extend(failures);
    late_start::add_late_ones(&mut lost, &dispatcher_logs, &worker_logs, &mut notes);
    if let Some(note) = dma.note() {
        notes.push(note.to_string());
    }
    let shared = Arc::try_unwrap(shared)
        .map_err(|_| RunError::Invalid("a runtime thread outlived the run".into()))?;
    let scheduler = shared
        .scheduler
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    let rescheduled = (dispatcher_logs.iter())
        .flat_map(|d| d.rescheduled.iter().map(|&(e, at)| (d.core, e, at)))
        .collect();
    let mut finished = scheduler.finish();
    notes.append(&mut finished.notes);
    let logs = logs_of(finished.records, worker_logs, dispatcher_logs);
    let result = RunResult::build(RunInputs {
        policy: name.to_string(),
        task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
        cpus,
        duration_ns: config.duration_ns,
        ran_ns,
        origin_ns: origin,
        stopped_by: intervention.or_else(|| control.reason()),
        dma_latency_held: dma.held(),
        calibration,
        logs,
        extra_events: finished.events,
        levels,
        notes,
        optional: finished.optional,
        optional_deadlines: kairos_trace::optional_deadlines_of(workload),
        server_names: finished.server_names,
        lost,
        timer_core: Some(TIMER_CORE),
        core_order,
    });
    Ok(UserRun {
        result,
        steps: finished.steps,
        mode_changes: finished.mode_changes,
        rescheduled,
        stops: finished.stops,
        servers: finished.servers,
    })
}

/// Core `k` runs on `cpus[k]`: the configured CPUs, else the first online ones.
fn choose_cpus(workload: &Workload, config: &UserRunConfig) -> Result<Vec<usize>, RunError> {
    let available = config.cpus.clone().unwrap_or_else(kairos_os::online_cpus);
    if available.len() < workload.cores {
        return Err(RunError::Invalid(format!(
            "the workload has {} cores but only {} CPU(s) are available here ({available:?}); \
             use --cores {} or a bigger machine",
            workload.cores,
            available.len(),
            available.len()
        )));
    }
    Ok(available[..workload.cores].to_vec())
}

/// The scheduler's job records, completed with each job's first start from the workers,
/// and every thread's segments and measurements (each dispatcher's and worker's own, merged
/// here), as [`RunResult::build`] takes them.
fn logs_of(
    mut records: Vec<JobRecord>,
    workers: Vec<WorkerLog>,
    dispatchers: Vec<DispatcherLog>,
) -> Vec<ThreadLog> {
    let mut first: HashMap<(usize, u64), (u64, u64, usize)> = HashMap::new();
    for w in &workers {
        for &(job, requested, at) in &w.first_starts {
            first.insert((w.task, job), (requested, at, w.core));
        }
    }
    for r in &mut records {
        if let Some(&(requested, at, core)) = first.get(&(r.task, r.job)) {
            r.requested = Some(requested);
            r.start = Some(at);
            r.cpu = Some(core);
        }
    }
    let mut logs = vec![ThreadLog {
        jobs: records,
        ..ThreadLog::default()
    }];
    logs.extend(workers.into_iter().map(|w| ThreadLog {
        segments: w.segments,
        migrations: w.migrations,
        measurements: w.measurements,
        ..ThreadLog::default()
    }));
    logs.extend(dispatchers.into_iter().map(|d| ThreadLog {
        measurements: d.measurements,
        ..ThreadLog::default()
    }));
    logs
}

/// The overheads this run measured, in the simulator's model, which charges them per switch-in:
/// as `scheduling`, everything the dispatchers' passes cost (each event's wait for its pass,
/// [`EVENT_TO_HANDLER`] and [`DOORBELL_TO_HANDLER`], the pass itself, [`DECISION_COST`], and the optional parts' policy
/// changes, [`PART_POLICY`]) divided by the switch-ins, so the simulation loses as much time
/// as the run did, passes that switched nothing included; as `context_switch` the mean request
/// to the worker's first instruction; as `migration` what a migration adds to it on average.
/// Means, not medians: these distributions have long tails, and a median left the simulation
/// ahead of the run. A simulation with them follows the run closely (`kairos run --compare`).
pub fn measured_overheads(result: &RunResult) -> kairos_model::Overheads {
    let summary = |name: &str| result.histograms.get(name).map(|h| &h.summary);
    let mean = |name: &str| summary(name).map_or(0, |s| s.mean);
    let total = |name: &str| summary(name).map_or(0, |s| s.mean * s.count);
    let ns = Duration::from_nanos;
    let start = mean(REQUEST_TO_START);
    let switches = summary(REQUEST_TO_START).map_or(0, |s| s.count).max(1);
    let passes = total(DECISION_COST)
        + total(EVENT_TO_HANDLER)
        + total(DOORBELL_TO_HANDLER)
        + total(PART_POLICY);
    kairos_model::Overheads::fixed(
        ns(passes / switches),
        ns(start),
        ns(mean(MIGRATION_REQUEST_TO_START).saturating_sub(start)),
    )
}
