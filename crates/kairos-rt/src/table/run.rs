//! A whole table-driven run: checks, calibration, memory locking and the
//! `/dev/cpu_dma_latency` guard, one worker per (task, core) pair and one dispatcher per core
//! created with explicit SCHED_FIFO policy and affinity ([`crate::platform::thread`]), the
//! watchdog, a common origin, and the collection of every thread's log into a
//! [`crate::measure::RunResult`] ([`super::result`]).

use super::dispatch::{run_dispatcher, DispatcherLog};
use super::plan::{OverrunRequest, Plan};
use super::result::{build, TableRun};
use super::shared::{Shared, EXIT};
use super::worker::{run_worker, WorkerLog};
use super::TableRunConfig;
use crate::calibrate::{self, Calibration};
use crate::periodic::RunError;
use crate::platform::{self, clock, dma, futex, memory, priority, privilege, thread};
use crate::watchdog::{Guarded, Watchdog, WatchdogConfig};
use kairos_model::{McSystem, TableSet};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

type Threads<T> = Vec<thread::RtThread<T>>;

/// Runs `tables` of `system` for real (see [`super::run_tables`]) and returns the result with
/// the details tests and benchmarks look at.
pub fn run_tables_detailed(
    system: &McSystem,
    tables: &TableSet,
    config: &TableRunConfig,
) -> Result<TableRun, RunError> {
    let request = OverrunRequest {
        jobs: config.overruns.clone(),
        probability: config.overrun_probability,
        seed: config.seed,
        work_fraction: config.work_fraction,
        execution_times: config.execution_times,
    };
    let plan = Plan::build(system, tables, config.duration_ns, &request)?;
    let cpus = choose_cpus(&plan, config)?;
    privilege::require_rt()?;
    let calibration = match &config.calibration {
        Some(c) => c.clone(),
        None => calibrate::calibrate(&cpus)?,
    };
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let control = config.control.clone().unwrap_or_default();
    let shared = Arc::new(Shared::new(plan, Arc::clone(&control), config.lead_ns));
    let (workers, dispatchers) = match spawn_all(&shared, &cpus, &calibration) {
        Ok(threads) => threads,
        Err((e, workers, dispatchers)) => {
            control.request_stop("a runtime thread could not be created");
            finish(&shared, workers, dispatchers);
            return Err(e.into());
        }
    };
    let origin = clock::now_ns() + config.start_delay_ns;
    let end = origin + shared.plan.duration;
    let mut wd_config = WatchdogConfig::for_run(end, config.grace_ns);
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
    shared.origin.store(origin, Ordering::Release);
    shared.gate.store(1, Ordering::Release);
    futex::wake(&shared.gate);
    let (worker_logs, dispatcher_logs, failures) = finish(&shared, workers, dispatchers);
    let ran_ns = clock::now_ns()
        .saturating_sub(origin)
        .min(shared.plan.duration);
    let intervention = watchdog.stop();
    let mut notes = failures;
    if let Some(note) = dma.note() {
        notes.push(note.to_string());
    }
    Ok(build(
        &shared,
        worker_logs,
        dispatcher_logs,
        super::result::Context {
            cpus,
            ran_ns,
            stopped_by: intervention.or_else(|| control.reason()),
            dma_latency_held: dma.held(),
            calibration,
            notes,
        },
    ))
}

/// Table core `k` runs on `cpus[k]`: the configured CPUs, else the first online ones.
fn choose_cpus(plan: &Plan, config: &TableRunConfig) -> Result<Vec<usize>, RunError> {
    let available = config.cpus.clone().unwrap_or_else(platform::online_cpus);
    if available.len() < plan.table.cores {
        return Err(RunError::Invalid(format!(
            "the tables use {} cores but only {} CPU(s) are available here ({:?}); synthesize \
             for at most {} cores or run on a bigger machine",
            plan.table.cores,
            available.len(),
            available,
            available.len()
        )));
    }
    Ok(available[..plan.table.cores].to_vec())
}

type SpawnError = (
    crate::platform::PlatformError,
    Threads<WorkerLog>,
    Threads<DispatcherLog>,
);

/// Every worker, then every dispatcher, each born with its policy and its single CPU.
fn spawn_all(
    shared: &Arc<Shared>,
    cpus: &[usize],
    calibration: &Calibration,
) -> Result<(Threads<WorkerLog>, Threads<DispatcherLog>), SpawnError> {
    let mut workers = Vec::new();
    for (task, core) in shared.plan.worker_pairs() {
        let cpu = cpus[core];
        let rate = calibration.iterations_per_us(cpu);
        let spec =
            thread::ThreadSpec::fifo(format!("kw{task}c{core}"), priority::WORKER_MAX, vec![cpu]);
        let s = Arc::clone(shared);
        match thread::spawn(spec, move || run_worker(&s, task, core, rate)) {
            Ok(t) => workers.push(t),
            Err(e) => return Err((e, workers, Vec::new())),
        }
    }
    let mut dispatchers = Vec::new();
    for (core, &cpu) in cpus.iter().enumerate() {
        let spec = thread::ThreadSpec::fifo(
            format!("kairos-disp{core}"),
            priority::DISPATCHER,
            vec![cpu],
        );
        let s = Arc::clone(shared);
        match thread::spawn(spec, move || run_dispatcher(&s, core)) {
            Ok(t) => dispatchers.push(t),
            Err(e) => return Err((e, workers, dispatchers)),
        }
    }
    Ok((workers, dispatchers))
}

fn guard_all(
    watchdog: &Watchdog,
    shared: &Shared,
    workers: &Threads<WorkerLog>,
    dispatchers: &Threads<DispatcherLog>,
) {
    let pairs = shared.plan.worker_pairs();
    for (t, (task, core)) in workers.iter().zip(pairs) {
        watchdog.guard(Guarded {
            name: t.name().to_string(),
            tid: t.tid(),
            heartbeat: Arc::clone(&shared.worker(task, core).heartbeat),
            child: Arc::new(AtomicI32::new(0)),
        });
    }
    for (core, t) in dispatchers.iter().enumerate() {
        watchdog.guard(Guarded {
            name: t.name().to_string(),
            tid: t.tid(),
            heartbeat: Arc::clone(&shared.cores[core].heartbeat),
            child: Arc::new(AtomicI32::new(0)),
        });
    }
}

/// Waits for the dispatchers, then tells every worker to exit and waits for them.
fn finish(
    shared: &Shared,
    workers: Threads<WorkerLog>,
    dispatchers: Threads<DispatcherLog>,
) -> (Vec<WorkerLog>, Vec<DispatcherLog>, Vec<String>) {
    // An abandoned start: dispatchers wait for the gate, which a stop request also ends.
    shared.gate.store(1, Ordering::Release);
    futex::wake(&shared.gate);
    let mut failures = Vec::new();
    let mut dispatcher_logs = Vec::new();
    for d in dispatchers {
        match d.join() {
            Ok(log) => dispatcher_logs.push(log),
            Err(e) => failures.push(format!("a dispatcher failed: {e}")),
        }
    }
    for (task, core) in shared.plan.worker_pairs() {
        let worker = shared.worker(task, core);
        worker.go.store(EXIT, Ordering::Release);
        futex::wake(&worker.go);
    }
    let mut worker_logs = Vec::new();
    for w in workers {
        match w.join() {
            Ok(log) => worker_logs.push(log),
            Err(e) => failures.push(format!("a worker failed: {e}")),
        }
    }
    (worker_logs, dispatcher_logs, failures)
}
