//! The (task, core) worker threads of a table-driven run: job bodies as calibrated busy work
//! ([`crate::calibrate::spin`]) that checks its stop word and its interval's end between
//! sub-microsecond units, so an interval end takes effect within one unit (budget enforcement,
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6.1).
//!
//! **Why one thread per (task, core) pair**: moving one thread per task at every migration costs a `sched_setaffinity` to
//! the other CPU (6.9 us median on the idle machine) or a cross-core futex wake (2.5-3 us), both
//! on the critical path of every instantaneous migration. With a thread pre-pinned on every
//! core a task visits, a migration is the seed's section 5.3 hand-off alone: the new core's
//! worker takes the task's holder word (a cache line, about 0.1 us to cross cores) as soon as
//! the old core's worker has stopped and released it.
//!
//! **Who stops the old core's worker at the boundary.** The dispatcher publishes, with every
//! start, the interval's absolute end (`WorkerShared::stop_at`); the worker compares it with
//! the monotonic clock (vDSO, about 25 ns) between units (every unit near the end; far from
//! it every [`CLOCK_CHECK_UNITS`] units at most, never covering more than half the time left,
//! so the reads cost under 1 % of the work and a unit never starts after the end unless the
//! worker was preempted for longer than that half) and stops itself there: it claims
//! the end by replacing `stop_at` with `EXPIRED` (a compare-exchange), returns not completed
//! and releases the holder word exactly as after a dispatcher's stop. Nothing else is on the
//! old core's path: no timer, no context switch. (Before, the old core's dispatcher had to wake
//! from its timer at the boundary, ask, block, and only then could the preempted worker run,
//! see the stop and release: 26 us from the boundary to running on the new core on the idle
//! machine, 3.2x the best raw mechanism; now about 0.5 us.) On the new core, an idle core's
//! dispatcher asks its worker [`lead_ns`] before the interval and the worker spins until the
//! nominal start, then takes the task as soon as it is released. The dispatcher's pass for the
//! boundary still runs, and does everything it did (overrun check at the end of a job's last
//! interval, Algorithm 1, Algorithm 2, withdrawing requests, the next start); its stop of a
//! worker that already stopped itself just turns `go` from `RUNNING` into `PARK` (only a
//! worker ever releases a task, so there is no double release). Two details make it work:
//!
//! - a timer interrupt takes this VM's CPU for 13-17 us, so a dispatcher timer at the
//!   boundary itself would keep the worker from running across it; when the interval ending is
//!   not its job's last (no overrun can be seen there) and the job is unfinished, the
//!   dispatcher arms its timer [`ENFORCED_END_SLACK_NS`] after the boundary. A job's last
//!   interval keeps the timer at the boundary, so overruns are detected exactly as before;
//! - a mode change that moves the end of a running job's interval (same job in the new table)
//!   swaps the new end into `stop_at`; a swap that finds `EXPIRED` (the worker reached the old
//!   end first) asks the worker to run again, which is what the old code did by not stopping
//!   it.
//!
//! Safety is unchanged: a worker releases only after its last unit (so it never runs job work
//! after releasing), the new core's worker cannot start before the release (holder word), and
//! budgets end at interval ends (now at the nominal end itself instead of the dispatcher's
//! late handler, so a job gets exactly its interval). Measurements keep their names; when the
//! worker stopped itself, its clock check stands for the old core's handler and stop request,
//! so `migration.timer_to_handler` is the worker's lateness in seeing the boundary (within a
//! unit) and `migration.request_to_stop` the claim and the stamps (about 0.1 us).
//!
//! [`lead_ns`]: super::TableRunConfig::lead_ns
//! [`ENFORCED_END_SLACK_NS`]: super::dispatch::ENFORCED_END_SLACK_NS
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

use super::shared::{Shared, EXPIRED, PARK, RUN, RUNNING};
use crate::calibrate::spin;
use crate::handoff::Take;
use crate::measure::{names, Measurements, SegmentRecord};
use crate::parking::park;
use crate::platform::{clock, memory};
use std::sync::atomic::Ordering;

/// CPU work between two stop checks, ns.
pub const UNIT_NS: u64 = 500;

/// Most units between two reads of the clock for the interval's end (see `execute`).
pub const CLOCK_CHECK_UNITS: u64 = 8;

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
    while park(&shared.worker(task, core).go, &shared.control) {
        if take(shared, task, core, &mut log) {
            activation(shared, task, core, unit_iterations, &mut log);
        }
    }
    log
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
    let outcome = if state.finished.load(Ordering::SeqCst) > job {
        // Closed (stopped by its budget) since the request: nothing left to run.
        Outcome::Stopped
    } else {
        load_job(shared, task, core, job, start, log);
        execute(shared, task, core, unit)
    };
    let end = clock::now_ns().saturating_sub(origin);
    if outcome == Outcome::Completed {
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
    if let Outcome::Expired { boundary, seen_at } = outcome {
        // This worker enforced the boundary itself: its clock check stands for the old core's
        // handler and its stop request (the dispatcher's timer fires only later).
        state
            .stop_nominal
            .store(boundary.saturating_sub(origin), Ordering::Relaxed);
        let seen_at = seen_at.saturating_sub(origin);
        state.stop_handler_at.store(seen_at, Ordering::Relaxed);
        state.stop_requested_at.store(seen_at, Ordering::Relaxed);
    } else {
        let stamp = |from: &std::sync::atomic::AtomicU64, to: &std::sync::atomic::AtomicU64| {
            to.store(from.load(Ordering::Relaxed), Ordering::Relaxed)
        };
        stamp(&worker.stop_nominal, &state.stop_nominal);
        stamp(&worker.stop_handler_at, &state.stop_handler_at);
        stamp(&worker.stop_requested_at, &state.stop_requested_at);
    }
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

/// How an activation's busy work ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// The job's work is done.
    Completed,
    /// The dispatcher asked it to stop (or nothing was left to run).
    Stopped,
    /// The worker reached its interval's end `boundary` itself and saw it at `seen_at`
    /// (both absolute CLOCK_MONOTONIC).
    Expired { boundary: u64, seen_at: u64 },
}

/// Busy work until stopped, the interval's end ([`WorkerShared::stop_at`]) or done.
///
/// [`WorkerShared::stop_at`]: super::shared::WorkerShared::stop_at
fn execute(shared: &Shared, task: usize, core: usize, unit: u64) -> Outcome {
    let worker = shared.worker(task, core);
    let state = &shared.tasks[task];
    let mut units = 0u32;
    // Units that may still run before the next look at the clock.
    let mut unchecked = 0u64;
    loop {
        if worker.go.load(Ordering::Acquire) != RUNNING {
            return Outcome::Stopped;
        }
        let remaining = state.remaining.load(Ordering::Relaxed);
        if remaining == 0 {
            return Outcome::Completed;
        }
        if unchecked > 0 {
            unchecked -= 1;
            work_unit(state, remaining, unit, &mut units, worker);
            continue;
        }
        // The interval's end (a vDSO clock read, ~25 ns): no unit starts at or after it, so
        // the task is released within one unit of the boundary. Far from it, the clock is
        // read every few units only (at most [`CLOCK_CHECK_UNITS`], and covering at most half
        // the time left), which keeps the reads under 1 % of the work.
        let stop_at = worker.stop_at.load(Ordering::Acquire);
        let now = clock::now_ns();
        if now < stop_at {
            unchecked = ((stop_at - now) / (2 * UNIT_NS)).min(CLOCK_CHECK_UNITS - 1);
        } else {
            // Claim the stop; a failed claim means the dispatcher moved the end (a mode
            // change) or asked for the next activation: look again.
            if worker
                .stop_at
                .compare_exchange(stop_at, EXPIRED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Outcome::Expired {
                    boundary: stop_at,
                    seen_at: now,
                };
            }
            continue;
        }
        work_unit(state, remaining, unit, &mut units, worker);
    }
}

/// One unit of busy work (less if less remains).
fn work_unit(
    state: &super::shared::TaskShared,
    remaining: u64,
    unit: u64,
    units: &mut u32,
    worker: &super::shared::WorkerShared,
) {
    let step = remaining.min(UNIT_NS);
    std::hint::black_box(spin(unit * step / UNIT_NS));
    // Only the holder writes the progress, so a plain store is enough.
    state.remaining.store(remaining - step, Ordering::Relaxed);
    *units = units.wrapping_add(1);
    if units.is_multiple_of(256) {
        worker.heartbeat.beat();
    }
}
