//! The threads of a user-dispatched run: every worker and every dispatcher created with its
//! policy and its single CPU, each guarded by the watchdog, and the orderly end (dispatchers
//! first, then the workers they no longer need).

use super::percore::{run_dispatcher, DispatcherLog};
use super::shared::{self, Shared};
use super::worker::{run_worker, WorkerLog};
use crate::calibrate::Calibration;
use crate::parking::EXIT;
use crate::watchdog::{Guarded, Watchdog};
use kairos_os::{futex, priority, thread};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

pub type Threads<T> = Vec<thread::RtThread<T>>;

pub type SpawnError = (
    kairos_os::PlatformError,
    Threads<WorkerLog>,
    Threads<DispatcherLog>,
);

/// Every worker, then every dispatcher, each born with its policy and its single CPU.
pub fn spawn_all(
    shared: &Arc<Shared>,
    cpus: &[usize],
    calibration: &Calibration,
) -> Result<(Threads<WorkerLog>, Threads<DispatcherLog>), SpawnError> {
    let tasks = shared.slots.len() / shared::SLOTS_PER_TASK;
    let jobs: Vec<usize> = {
        let scheduler = shared.scheduler.lock().unwrap_or_else(|p| p.into_inner());
        (0..tasks).map(|t| scheduler.expected_jobs(t)).collect()
    };
    let mut workers = Vec::new();
    for (task, &jobs) in jobs.iter().enumerate() {
        for (core, &cpu) in cpus.iter().enumerate() {
            let rate = calibration.iterations_per_us(cpu);
            let spec = thread::ThreadSpec::fifo(
                format!("kuw{task}c{core}"),
                priority::WORKER_MAX,
                vec![cpu],
            );
            let s = Arc::clone(shared);
            match thread::spawn(spec, move || run_worker(&s, (task, core), jobs, rate)) {
                Ok(t) => workers.push(t),
                Err(e) => return Err((e, workers, Vec::new())),
            }
        }
    }
    let mut dispatchers = Vec::new();
    for (core, &cpu) in cpus.iter().enumerate() {
        let spec = thread::ThreadSpec::fifo(
            format!("kairos-udisp{core}"),
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

pub fn guard_all(
    watchdog: &Watchdog,
    shared: &Shared,
    workers: &Threads<WorkerLog>,
    dispatchers: &Threads<DispatcherLog>,
) {
    let heartbeats = (shared.workers.iter().map(|w| &w.heartbeat))
        .chain(shared.cores.iter().map(|c| &c.heartbeat));
    let threads = (workers.iter().map(|t| (t.name(), t.tid())))
        .chain(dispatchers.iter().map(|t| (t.name(), t.tid())));
    for ((name, tid), heartbeat) in threads.zip(heartbeats) {
        watchdog.guard(Guarded {
            name: name.to_string(),
            tid,
            heartbeat: Arc::clone(heartbeat),
            child: Arc::new(AtomicI32::new(0)),
        });
    }
}

/// Waits for the dispatchers, then tells every worker to exit and waits for them.
pub fn finish(
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
    for w in &shared.workers {
        w.go.store(EXIT, Ordering::Release);
        futex::wake(&w.go);
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
