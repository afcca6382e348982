//! The (task, core) worker threads of a user-dispatched run: a job's body is calibrated busy
//! work in sub-microsecond units ([`crate::calibrate::spin`]) that looks at its parking word
//! between units, so a stop or a new request takes effect within one unit.
//!
//! Why one thread per (task, core) pair, as in the table runtime ([`crate::table`]): a
//! migration is then a hand-off between two threads already pinned where they run (the
//! holder word of [`crate::handoff`], about 0.1 us to cross cores), not a
//! `sched_setaffinity` (about 7 us on the idle machine) on the critical path. All workers of a
//! core share one SCHED_FIFO priority below the dispatcher: a worker the dispatcher stopped
//! was preempted, so it is first in line and releases its job before a newly woken worker of
//! the same core runs; a worker that finds its core still holding a job yields to it, and
//! busy-waits for another core's release only when its own core holds nothing (the rule that
//! makes cyclic hand-offs deadlock-free, model checked in `tests/loom_handoff.rs`).
//!
//! Work is counted in calibrated iterations, not with the CPU clock: counting keeps a
//! preempted worker's waiting out of its progress, which is what a budget is about.

use super::late_start::{start_delay, LateStarts};
use super::shared::{decode, is_last_part, is_optional_part, part_word, slot_index, Shared};
use crate::calibrate::spin;
use crate::handoff::Take;
use crate::measure::{Measurements, SegmentRecord, WorkerTime};
use crate::parking::{park, PARK, RUN, RUNNING};
use crate::stalls::Stall;
use kairos_model::Duration;
use kairos_os::{clock, memory};
use kairos_policy::JobId;
use std::sync::atomic::Ordering;

pub use crate::calibrate::UNIT_NS;

/// Dispatcher's request (or the decision's instant, if later) to the job's first instruction
/// on this core, ns.
pub const REQUEST_TO_START: &str = "dispatch.request_to_start";
/// The same for activations that resume a job on another core than it last ran on: a
/// migration end to end (for a promised switch, prepared ahead, from the boundary itself).
pub const MIGRATION_REQUEST_TO_START: &str = "dispatch.migration_request_to_start";

/// What one worker saw (times in ns since the origin).
#[derive(Debug, Default)]
pub struct WorkerLog {
    pub task: usize,
    pub core: usize,
    pub segments: Vec<SegmentRecord>,
    /// `(job, request, first start)` of every job that first ran here.
    pub first_starts: Vec<(u64, u64, u64)>,
    pub migrations: u64,
    pub measurements: Measurements,
    pub late_starts: LateStarts,
}

impl WorkerLog {
    /// Its late starts as stalls, each less its usual start (its median request to start).
    pub fn late_start_stalls(&self) -> Vec<Stall> {
        let usual = self.measurements.summary(REQUEST_TO_START).p50;
        self.late_starts.stalls(self.core, usual)
    }
}

/// Most jobs a worker's log has room for before the run: a 1 ms task's minute (4.2 MB of
/// segments); a longer log grows as it fills.
const LOG_RESERVED: usize = 1 << 16;

/// Runs the worker of `task` on `core` (the thread is pinned there) until told to exit; its
/// log has room for the `jobs` the task is expected to release, up to [`LOG_RESERVED`].
pub fn run_worker(
    shared: &Shared,
    (task, core): (usize, usize),
    jobs: usize,
    iterations_per_us: f64,
) -> WorkerLog {
    memory::prefault_stack();
    (shared.worker(task, core).tid).store(clock::gettid(), Ordering::Release);
    let mut log = WorkerLog {
        task,
        core,
        segments: Vec::with_capacity((jobs + 64).min(LOG_RESERVED)),
        first_starts: Vec::with_capacity(jobs.min(LOG_RESERVED)),
        ..WorkerLog::default()
    };
    (log.measurements).reserve(REQUEST_TO_START, super::metered::RESERVED_RANGE_NS);
    let unit = ((UNIT_NS as f64 * iterations_per_us / 1000.0) as u64).max(1);
    while park(&shared.worker(task, core).go, &shared.control) {
        let w = shared.worker(task, core);
        if (w.go)
            .compare_exchange(RUN, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            continue;
        }
        let id = JobId {
            task,
            number: w.job.load(Ordering::Acquire),
        };
        // Read with the request it belongs to: a later request would change them while this
        // one waits for its start or its slot.
        let requested =
            (w.requested_at.load(Ordering::Relaxed)).max(w.not_before.load(Ordering::Relaxed));
        let dispatched = w.dispatched_at_request.load(Ordering::Relaxed);
        if !wait_for_start(shared, id, core) {
            continue;
        }
        let taking = clock::now_ns();
        if take(shared, id, core) {
            let handoff = clock::now_ns() - taking;
            let taken = Taken {
                id,
                requested,
                dispatched,
                handoff,
            };
            activation(shared, taken, core, unit, &mut log);
        }
    }
    log
}

/// Spins until the request's start time (a decision made ahead of its instant); false if the
/// request was withdrawn meanwhile.
fn wait_for_start(shared: &Shared, id: JobId, core: usize) -> bool {
    let w = shared.worker(id.task, core);
    let at = shared.origin.load(Ordering::Acquire) + w.not_before.load(Ordering::Relaxed);
    while clock::now_ns() < at {
        if w.go.load(Ordering::Acquire) != RUNNING {
            return false;
        }
        std::hint::spin_loop();
    }
    true
}

/// Takes the job's slot from its holder word (the hand-off rule of the module documentation);
/// false if the request was withdrawn meanwhile.
fn take(shared: &Shared, id: JobId, core: usize) -> bool {
    let w = shared.worker(id.task, core);
    let held = &shared.cores[core].held;
    loop {
        if w.go.load(Ordering::Acquire) != RUNNING || shared.control.should_stop() {
            return false;
        }
        let holds_other = held.load(Ordering::SeqCst) > 0;
        match shared.holders.take(slot_index(id), core, holds_other) {
            Take::Acquired => break,
            Take::GiveUp { .. } => std::thread::yield_now(),
            Take::Wait { .. } => std::hint::spin_loop(),
        }
        w.heartbeat.beat();
    }
    held.fetch_add(1, Ordering::SeqCst);
    true
}

/// A request as its worker took it up: the job, when it was asked for (or its start time, if
/// later), what its core's dispatcher had taken then, and the wait for its hand-off (ns).
struct Taken {
    id: JobId,
    requested: u64,
    dispatched: u64,
    handoff: u64,
}

/// From taking the slot to a stop, the end of a part, or the job's completion.
fn activation(shared: &Shared, taken: Taken, core: usize, unit: u64, log: &mut WorkerLog) {
    let (id, requested) = (taken.id, taken.requested);
    let origin = shared.origin.load(Ordering::Acquire);
    let slot = shared.slot(id);
    let w = shared.worker(id.task, core);
    let loaded = slot.job.load(Ordering::Acquire) == id.number + 1;
    let closed = slot.completed_at.load(Ordering::Acquire) != 0;
    // A part end the scheduler has not taken in yet (the next part is not loaded), or has
    // taken in with a decision that no longer wants the job here: a request made while the
    // job was between parts must not run its next part (the scheduler publishes the decision
    // before it clears the part end, see `Scheduler::release_part_ends`).
    let between_parts = slot.part_end_at.load(Ordering::Acquire) != 0
        || (slot.part.load(Ordering::Acquire) != part_word(0, true, false)
            && decode(shared.effective(core, clock::now_ns().saturating_sub(origin))) != Some(id));
    if !loaded || closed || between_parts {
        release(shared, id, core);
        if between_parts {
            let _ = (w.go).compare_exchange(RUNNING, PARK, Ordering::AcqRel, Ordering::Relaxed);
        }
        return;
    }
    // Read before the start is stamped: the system call (about a microsecond here) is then
    // part of the dispatch the profile measures, not of the job's time.
    let mut cpu_from = clock::thread_cpu_ns();
    // The dispatcher's time is read before each stamp: a stretch of it between the two counts
    // in the later segment, which errs towards the schedule (`crate::attribution`).
    let here = &shared.cores[core];
    let mut dispatched = here.dispatched_by();
    let mut start = clock::now_ns().saturating_sub(origin);
    let last = slot.last_core.swap(core + 1, Ordering::Relaxed);
    // An optional part starts as a best-effort thread, behind any other of the machine's.
    if !is_optional_part(slot.part.load(Ordering::Acquire)) {
        let on_the_way = dispatched.saturating_sub(taken.dispatched);
        let from = requested.max(w.realtime_since.load(Ordering::Acquire));
        let delay = start_delay(from, start, on_the_way, taken.handoff);
        log.late_starts.note(start, delay);
    }
    let m = &mut log.measurements;
    m.record(REQUEST_TO_START, start.saturating_sub(requested));
    if last == 0 {
        log.first_starts.push((id.number, requested, start));
    } else if last != core + 1 {
        log.migrations += 1;
        m.record(MIGRATION_REQUEST_TO_START, start.saturating_sub(requested));
    }
    let (ended, work, optional) = execute(shared, id, core, unit, |work| {
        // A cut moved the job from an optional part to its next part while it ran here: one
        // segment per part, each with its own CPU time (a system call at the cut, under a
        // microsecond, so that a best-effort part's share of its CPU is not lent to the next).
        let now_dispatched = here.dispatched_by();
        let at = clock::now_ns().saturating_sub(origin);
        let cpu_now = clock::thread_cpu_ns();
        let time = WorkerTime {
            on_cpu: Duration::from_nanos(cpu_now.saturating_sub(cpu_from)),
            work: Duration::from_nanos(work),
            dispatching: Duration::from_nanos(now_dispatched.saturating_sub(dispatched)),
            optional: true,
        };
        log.segments.push(segment(id, core, (start, at), time));
        (start, dispatched, cpu_from) = (at, now_dispatched, cpu_now);
    });
    let dispatched = here.dispatched_by().saturating_sub(dispatched);
    let end = clock::now_ns().saturating_sub(origin);
    let time = WorkerTime {
        on_cpu: Duration::ZERO,
        work: Duration::from_nanos(work),
        dispatching: Duration::from_nanos(dispatched),
        optional,
    };
    log.segments.push(segment(id, core, (start, end), time));
    release(shared, id, core);
    match ended {
        Ended::Completed => {
            // After the release: a slot marked completed is free for the task's next jobs.
            slot.completed_at.store(end + 1, Ordering::Release);
        }
        Ended::PartDone(word) => {
            slot.part_end_word.store(word, Ordering::Relaxed);
            slot.part_end_at.store(end + 1, Ordering::Release);
        }
        Ended::Told | Ended::Switched => {}
    }
    if ended != Ended::Told {
        // Unless a new request came meanwhile, which the next loop takes.
        let _ = (w.go).compare_exchange(RUNNING, PARK, Ordering::AcqRel, Ordering::Relaxed);
    }
    if matches!(ended, Ended::Completed | Ended::PartDone(_)) {
        shared.cores[core].ring();
    }
    // Read once the dispatcher knows: the system call is off its path. The release's CPU time
    // (and the doorbell's, when it rang) counts in the last segment: a few microseconds, which
    // the allowance of `crate::attribution::Slowness` covers.
    let on_cpu = clock::thread_cpu_ns().saturating_sub(cpu_from);
    if let Some(time) = log.segments.last_mut().and_then(|s| s.worker_time.as_mut()) {
        time.on_cpu = Duration::from_nanos(on_cpu);
    }
}

/// A segment `(start, end)` of `id` on `core` and what its worker had of the core and did.
fn segment(id: JobId, core: usize, (start, end): (u64, u64), time: WorkerTime) -> SegmentRecord {
    SegmentRecord {
        cpu: core,
        task: id.task,
        job: id.number,
        start,
        end,
        worker_time: Some(time),
    }
}

fn release(shared: &Shared, id: JobId, core: usize) {
    shared.holders.release(slot_index(id), core);
    shared.cores[core].held.fetch_sub(1, Ordering::SeqCst);
}

/// Why an activation ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ended {
    Completed,
    /// A part that is not the job's last has no work left (its part word).
    PartDone(u64),
    /// The dispatcher's next store (a stop, or another request).
    Told,
    /// The promised switch's instant ([`WorkerShared::stop_at`](super::shared::WorkerShared)).
    Switched,
}

/// Busy work until the part's work is done, the dispatcher's next store, or the stop instant
/// of a promised switch; `part_changed(work)` when a cut replaced the part meanwhile (the work
/// done since the last cut; it stamps the cut itself). Returns why it ended, the work done
/// since the last cut (ns at the calibrated speed) and whether that was an optional part.
fn execute(
    shared: &Shared,
    id: JobId,
    core: usize,
    unit: u64,
    mut part_changed: impl FnMut(u64),
) -> (Ended, u64, bool) {
    let w = shared.worker(id.task, core);
    let slot = shared.slot(id);
    let origin = shared.origin.load(Ordering::Acquire);
    let mut part = slot.part.load(Ordering::Acquire);
    let mut units = 0u32;
    let mut work = 0;
    loop {
        if w.go.load(Ordering::Acquire) != RUNNING {
            return (Ended::Told, work, is_optional_part(part));
        }
        let stop_at = w.stop_at.load(Ordering::Acquire);
        if stop_at != u64::MAX && clock::now_ns() >= origin + stop_at {
            return (Ended::Switched, work, is_optional_part(part));
        }
        // Only an optional part can be cut under a running worker: the other parts (and plain
        // jobs) keep the loop of plain stores.
        let cuttable = is_optional_part(part);
        if cuttable {
            let word = slot.part.load(Ordering::Acquire);
            if word != part {
                part = word;
                part_changed(work);
                work = 0;
                continue;
            }
        }
        let remaining = slot.remaining.load(Ordering::Acquire);
        if remaining == 0 {
            // The part word before the work left (see `super::shared`): a cut publishes the
            // work first, so work left read after a new word is the new part's.
            let word = slot.part.load(Ordering::Acquire);
            if slot.remaining.load(Ordering::Acquire) != 0 {
                continue;
            }
            let ended = match is_last_part(word) {
                true => Ended::Completed,
                false => Ended::PartDone(word),
            };
            return (ended, work, is_optional_part(part));
        }
        let step = remaining.min(UNIT_NS);
        std::hint::black_box(spin(unit * step / UNIT_NS));
        // Spun whether or not a cut lets it count: the core's speed is what it measures.
        work += step;
        if cuttable {
            // Fails only if a cut replaced the work meanwhile: the unit is then not counted.
            let _ = (slot.remaining).compare_exchange(
                remaining,
                remaining - step,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        } else {
            // Only the holder writes the progress of a part no cut can replace.
            slot.remaining.store(remaining - step, Ordering::Relaxed);
        }
        units = units.wrapping_add(1);
        if units.is_multiple_of(256) {
            w.heartbeat.beat();
        }
    }
}
