//! The (task, core) worker threads of a table-driven run: job bodies as calibrated busy work
//! ([`crate::calibrate::spin`]) that checks its stop word between sub-microsecond units, so a
//! stop requested at an interval end takes effect as soon as the worker gets the CPU back
//! (budget enforcement, seed `000_5feb7fca5a4f9943.txt` section 6.1).
//!
//! **Why one thread per (task, core) pair** (issue 5, item 4, "choose and justify the
//! mechanism"): moving one thread per task at every migration costs a `sched_setaffinity` to
//! the other CPU (about 23 us median here, `linux-platform.md`) or a cross-core futex wake
//! (26-30 us round trip), both on the critical path of every instantaneous migration. With a
//! thread pre-pinned on every core a task visits, a migration is the seed's section 5.3
//! hand-off alone: the new core's dispatcher wakes its *local* worker, which takes the task's
//! holder word (a cache line, about 0.1 us to cross cores) as soon as the old core's worker has
//! stopped and released it. `kairos bench migration` measures both raw mechanisms next to the
//! slot-boundary migration (median 11 us against 20.5 us for the best raw mechanism here).
//!
//! The hand-off rule of section 5.3 runs in the worker (`take`): all workers of a core share one FIFO
//! priority below the dispatcher, so a worker the dispatcher stopped (preempted, first in line)
//! runs and releases its task before a newly woken one of the same core runs; a worker that
//! still finds its core holding a task yields to it (gives up and retries), and busy-waits for
//! another core's release only when its own core holds nothing.
//!
//! Work is counted in calibrated iterations, not with the CPU clock: a unit of
//! [`UNIT_NS`] is small enough that a stop is seen within it, and counting iterations keeps a
//! preempted worker's waiting out of its progress, which is what a budget is about.

use super::shared::{Shared, EXIT, PARK, RUN, RUNNING};
use crate::calibrate::spin;
use crate::handoff::Take;
use crate::measure::{names, Measurements, SegmentRecord};
use crate::platform::{clock, futex, memory};
use std::sync::atomic::Ordering;

/// CPU work between two stop checks, ns.
pub const UNIT_NS: u64 = 500;

/// Longest park without looking at the run's stop flag.
const PARK_STEP_NS: u64 = 50_000_000;

/// Extra distributions the table runtime records, beside `measure::names`.
pub mod extra_names {
    /// First start of a job minus its first interval's start (release latency of tables).
    pub const START_LATENCY: &str = "table.start_latency";
    /// Old core's handler to running on the new core (figure 10, "ts + tw").
    pub const MIGRATION_HANDLER_TO_START: &str = "migration.handler_to_start";
    /// Nominal boundary to running on the new core.
    pub const MIGRATION_TOTAL: &str = "migration.total";
}

/// What one worker saw (times in ns since the origin).
#[derive(Debug, Default)]
pub struct WorkerLog {
    pub task: usize,
    pub core: usize,
    pub segments: Vec<SegmentRecord>,
    /// `(job, time)` of every job this worker completed.
    pub completions: Vec<(u64, u64)>,
    /// `(job, first start, intended start)` of every job that started here.
    pub first_starts: Vec<(u64, u64, u64)>,
    pub migrations: u64,
    /// Hand-offs given up (yielded) because this core still held a task.
    pub gave_up: u64,
    pub measurements: Measurements,
}

/// Runs the worker of `task` on `core` (the thread is pinned there) until told to exit.
pub fn run_worker(shared: &Shared, task: usize, core: usize, iterations_per_us: f64) -> WorkerLog {
    memory::prefault_stack();
    let mut log = WorkerLog {
        task,
        core,
        segments: Vec::with_capacity(256),
        completions: Vec::with_capacity(64),
        first_starts: Vec::with_capacity(64),
        ..WorkerLog::default()
    };
    let unit_iterations = ((UNIT_NS as f64 * iterations_per_us / 1000.0) as u64).max(1);
    while park(shared, task, core) {
        if take(shared, task, core, &mut log) {
            activation(shared, task, core, unit_iterations, &mut log);
        }
    }
    log
}

/// Waits until the dispatcher asks for a run (`go` = RUN); false on EXIT or a stop of the run.
fn park(shared: &Shared, task: usize, core: usize) -> bool {
    let worker = shared.worker(task, core);
    loop {
        match worker.go.load(Ordering::Acquire) {
            RUN => return true,
            EXIT => return false,
            state => {
                if shared.control.should_stop() {
                    return false;
                }
                futex::wait_until(&worker.go, state, clock::now_ns() + PARK_STEP_NS);
            }
        }
    }
}

/// The hand-off of section 5.3 from the side of the core that wants the task: take it from
/// its holder word; while another core holds it, give up (yield to this core's workers that
/// still hold a task, then retry) if this core holds one, else busy-wait. True once the task
/// is held and the run acknowledged (RUNNING); false if the dispatcher withdrew the request.
fn take(shared: &Shared, task: usize, core: usize, log: &mut WorkerLog) -> bool {
    let worker = shared.worker(task, core);
    let held = &shared.cores[core].held;
    // Asked ahead of the interval (an idle core's lead): start at the boundary, not before.
    let not_before = shared.origin.load(Ordering::Acquire) + worker.nominal.load(Ordering::Relaxed);
    while clock::now_ns() < not_before {
        if worker.go.load(Ordering::Acquire) != RUN {
            return false;
        }
        std::hint::spin_loop();
    }
    loop {
        if worker.go.load(Ordering::Acquire) != RUN || shared.control.should_stop() {
            return false;
        }
        let holds_other = held.load(Ordering::SeqCst) > 0;
        match shared.holders.take(task, core, holds_other) {
            Take::Acquired => break,
            Take::GiveUp { .. } => {
                log.gave_up += 1;
                std::thread::yield_now();
            }
            Take::Wait { .. } => std::hint::spin_loop(),
        }
        worker.heartbeat.beat();
    }
    held.fetch_add(1, Ordering::SeqCst);
    if worker
        .go
        .compare_exchange(RUN, RUNNING, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // Withdrawn while we were taking it: nothing ran.
        release(shared, task, core);
        return false;
    }
    true
}

fn release(shared: &Shared, task: usize, core: usize) {
    shared.holders.release(task, core);
    shared.cores[core].held.fetch_sub(1, Ordering::SeqCst);
}

/// One stretch of execution: from taking the task to a stop, the job's completion, or the end.
fn activation(shared: &Shared, task: usize, core: usize, unit: u64, log: &mut WorkerLog) {
    let origin = shared.origin.load(Ordering::Acquire);
    let start = clock::now_ns().saturating_sub(origin);
    let worker = shared.worker(task, core);
    let state = &shared.tasks[task];
    if state.running_on.swap(core + 1, Ordering::SeqCst) != 0 {
        state.overlaps.fetch_add(1, Ordering::SeqCst);
    }
    let job = worker.job.load(Ordering::Relaxed);
    let completed = if state.finished.load(Ordering::SeqCst) > job {
        // Closed (stopped by its budget) since the request: nothing left to run.
        false
    } else {
        load_job(shared, task, core, job, start, log);
        execute(shared, task, core, unit)
    };
    let end = clock::now_ns().saturating_sub(origin);
    if completed {
        state.finished.fetch_max(job + 1, Ordering::SeqCst);
        log.completions.push((job, end));
        let _ = worker
            .go
            .compare_exchange(RUNNING, PARK, Ordering::AcqRel, Ordering::Relaxed);
    }
    log.segments.push(SegmentRecord {
        cpu: core,
        task,
        job,
        start,
        end,
    });
    // Stamps for the next holder (figure 5), then the release.
    state.stop_core.store(core, Ordering::Relaxed);
    state.stop_job.store(job, Ordering::Relaxed);
    let stamp = |from: &std::sync::atomic::AtomicU64, to: &std::sync::atomic::AtomicU64| {
        to.store(from.load(Ordering::Relaxed), Ordering::Relaxed)
    };
    stamp(&worker.stop_nominal, &state.stop_nominal);
    stamp(&worker.stop_handler_at, &state.stop_handler_at);
    stamp(&worker.stop_requested_at, &state.stop_requested_at);
    state.released_at.store(end, Ordering::Relaxed);
    state.running_on.store(0, Ordering::SeqCst);
    release(shared, task, core);
}

/// Loads job `job`'s work if it is new to the task, and records its first start or, when it
/// resumes here after running on another core, the parts of the migration.
fn load_job(shared: &Shared, task: usize, core: usize, job: u64, start: u64, log: &mut WorkerLog) {
    let worker = shared.worker(task, core);
    let state = &shared.tasks[task];
    let nominal = worker.nominal.load(Ordering::Relaxed);
    if state.loaded.load(Ordering::Relaxed) != job + 1 {
        state.loaded.store(job + 1, Ordering::Relaxed);
        let demand = shared.plan.demand[task].get(job as usize).copied();
        state
            .remaining
            .store(demand.unwrap_or(0), Ordering::Relaxed);
        log.first_starts.push((job, start, nominal));
        log.measurements
            .record(extra_names::START_LATENCY, start.saturating_sub(nominal));
        return;
    }
    let migrated = state.stop_job.load(Ordering::Relaxed) == job
        && state.stop_core.load(Ordering::Relaxed) != core;
    if !migrated {
        return;
    }
    log.migrations += 1;
    if state.stop_nominal.load(Ordering::Relaxed) != nominal {
        // Not instantaneous: the task had a gap between the two intervals.
        return;
    }
    let handler = state.stop_handler_at.load(Ordering::Relaxed);
    let requested = state.stop_requested_at.load(Ordering::Relaxed);
    let released = state.released_at.load(Ordering::Relaxed);
    let m = &mut log.measurements;
    m.record(
        names::MIGRATION_TIMER_TO_HANDLER,
        handler.saturating_sub(nominal),
    );
    m.record(
        names::MIGRATION_REQUEST_TO_STOP,
        released.saturating_sub(requested),
    );
    m.record(
        names::MIGRATION_STOP_TO_START,
        start.saturating_sub(released),
    );
    m.record(
        extra_names::MIGRATION_HANDLER_TO_START,
        start.saturating_sub(handler),
    );
    m.record(extra_names::MIGRATION_TOTAL, start.saturating_sub(nominal));
}

/// Busy work until stopped or done; true if the job's work is done.
fn execute(shared: &Shared, task: usize, core: usize, unit: u64) -> bool {
    let worker = shared.worker(task, core);
    let state = &shared.tasks[task];
    let mut units = 0u32;
    loop {
        if worker.go.load(Ordering::Acquire) != RUNNING {
            return false;
        }
        let remaining = state.remaining.load(Ordering::Relaxed);
        if remaining == 0 {
            return true;
        }
        let step = remaining.min(UNIT_NS);
        std::hint::black_box(spin(unit * step / UNIT_NS));
        // Only the holder writes the progress, so a plain store is enough.
        state.remaining.store(remaining - step, Ordering::Relaxed);
        units = units.wrapping_add(1);
        if units.is_multiple_of(256) {
            worker.heartbeat.beat();
        }
    }
}
