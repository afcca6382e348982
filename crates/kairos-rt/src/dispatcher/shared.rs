//! What the dispatchers and workers of a user-dispatched run share without the scheduler's
//! lock: per job slot its work and progress, per (task, core) worker a parking word and the
//! request, per core a doorbell and the job the last decision wants there.
//!
//! Ownership rule that makes relaxed fields safe: a slot's progress is written only by the
//! worker that holds the slot (the hand-off of [`crate::handoff`] passes the hold from core to
//! core through Release/Acquire); a slot is (re)loaded only under the scheduler's lock while no
//! worker can hold it (its previous job is closed, or its part ended and its worker let go); a
//! worker's request fields are written by its core's dispatcher before it sets `go` (Release)
//! and read after the worker sees it.
//!
//! The one exception is the cut of an optional part ([`kairos_policy::Action::CutOptional`]),
//! which must take effect while a worker may be executing it: the scheduler swaps the wind-up's
//! work into `remaining` and then publishes the new `part` (Release); the holder's progress
//! stores are compare-exchanges, so a unit of work in flight at the cut is dropped rather than
//! charged to the wind-up, and a worker that finds no work left re-reads `part` before
//! `remaining` to know which part it finished.

use super::scheduler::Scheduler;
use crate::doorbell::Doorbell;
use crate::handoff::Holders;
use crate::watchdog::{Heartbeat, RunControl};
use kairos_policy::JobId;
use std::ops::Deref;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A value alone on its cache lines: 128 bytes, two 64-byte lines, as x86's adjacent-line
/// prefetcher fetches them in pairs. A core's words, a worker's and a slot's progress are each
/// written by one core at a time; side by side, each write would take the line from the core
/// using its neighbour (false sharing).
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct Padded<T>(pub T);

impl<T> Deref for Padded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// Slots per task: how many jobs of one task may be released and unfinished at once. A run
/// that needs more is hopelessly overloaded and is stopped with that reason. A host that
/// stalls this machine's vCPUs holds the dispatcher back too: with 8 slots a 2 ms task's run
/// on a shared VM was stopped once, early, by a hold-up of 16 ms or more; 32 slots (a few KiB
/// per task) absorb 64 ms, and the jobs a hold-up delays show as late instead.
pub const SLOTS_PER_TASK: usize = 32;

/// One released job's execution state, on two line pairs of its own: the work left, which its
/// holder writes at every unit of work, and the rest, which a pass reads for every open job
/// and a worker writes once per activation or part (apart, a pass's reads of the stamps do not
/// wait for the running worker's last unit).
#[derive(Debug, Default)]
pub struct SlotShared {
    /// CPU work left, ns.
    pub remaining: Padded<AtomicU64>,
    /// Job number + 1 loaded in this slot (0 = never used).
    pub job: AtomicU64,
    /// Completion time + 1, ns since the origin (0 = not completed).
    pub completed_at: AtomicU64,
    /// Core + 1 the job last ran on (0 = never ran).
    pub last_core: AtomicUsize,
    /// The part `remaining` belongs to: [`part_word`] of a count of the job's part changes and
    /// whether the part is the job's last (a plain job's only part is its last).
    pub part: AtomicU64,
    /// When the holder found a part that is not the job's last finished, + 1 (0 = none since
    /// the scheduler last looked), and that part's word: the worker let the job go and waits
    /// for the scheduler to load its next part.
    pub part_end_at: AtomicU64,
    pub part_end_word: AtomicU64,
}

/// The word of a job's `count`-th part (from 0), `last` if it is the job's last, `optional` if
/// it is an optional part.
pub fn part_word(count: u64, last: bool, optional: bool) -> u64 {
    (count << 2) | (u64::from(optional) << 1) | u64::from(last)
}

/// Whether a part word is the job's last part.
pub fn is_last_part(word: u64) -> bool {
    word & 1 == 1
}

/// Whether a part word is an optional part.
pub fn is_optional_part(word: u64) -> bool {
    word & 2 == 2
}

/// One (task, core) worker thread.
#[derive(Debug, Default)]
pub struct WorkerShared {
    /// Parking word ([`crate::parking`]): the dispatcher sets `RUN` to ask for the job in
    /// `job`, `PARK` to stop; the worker acknowledges a request by swapping `RUN` for
    /// `RUNNING` and executes only while it reads `RUNNING`, so any new store (a stop, or a
    /// request for another job) ends the current activation within one unit of work.
    pub go: AtomicU32,
    /// The job number the dispatcher asked for, and when (ns since the origin).
    pub job: AtomicU64,
    pub requested_at: AtomicU64,
    /// The job starts at this time at the earliest (the schedule time of the decision, ahead
    /// of the clock when an idle core's dispatcher woke early), ns since the origin.
    pub not_before: AtomicU64,
    /// What its core's dispatcher had taken ([`CoreShared::dispatched_by`]) at the request,
    /// the pass making it not included: the worker takes what its dispatcher spent since out
    /// of its start's lateness (`super::late_start`), the whole of that pass with it.
    pub dispatched_at_request: AtomicU64,
    /// When the worker last became a real-time thread again after an optional part (ns since
    /// the origin): a wait before it was a best-effort thread's, behind any other.
    pub realtime_since: AtomicU64,
    /// The worker stops by itself at this time (a promised switch), ns since the origin;
    /// `u64::MAX`: only when told.
    pub stop_at: AtomicU64,
    /// The worker's thread id, for its dispatcher to change its scheduling policy.
    pub tid: std::sync::atomic::AtomicI32,
    pub heartbeat: Arc<Heartbeat>,
}

/// One core.
#[derive(Debug, Default)]
pub struct CoreShared {
    /// Rung to make the core's dispatcher look at the scheduler now.
    pub doorbell: Doorbell,
    /// The job the last decision placed here ([`encode`]); 0 = idle.
    pub wanted: AtomicU64,
    /// When this core's dispatcher must next run a pass (ns since the origin), as the last
    /// pass published it ([`super::wakes`]).
    pub wake_at: crate::sync::AtomicU64,
    /// Schedule time of the decision that last changed `wanted`.
    pub not_before: AtomicU64,
    /// The job the last decision promised here from `ahead_at` on ([`kairos_policy::Ahead`],
    /// [`encode`]d), and that instant (`u64::MAX`: no promise). The core's dispatcher prepares
    /// it a little before the instant: the job it runs stops itself then, the promised one
    /// starts then.
    pub ahead: AtomicU64,
    pub ahead_at: AtomicU64,
    /// Slots the workers of this core hold (the hand-off's "still holds a task").
    pub held: AtomicUsize,
    /// What the run's own dispatching has taken from a worker of this core (ns): its
    /// dispatcher's CPU time as its last stretch awake ended, [`SWITCH_BACK_NS`] a stretch, and
    /// how late its wake-ups came before passes that stopped this core's job (the dispatcher's
    /// `awake` module).
    pub dispatching: AtomicU64,
    pub heartbeat: Arc<Heartbeat>,
}

impl CoreShared {
    /// Makes this core's dispatcher look again (from any thread).
    pub fn ring(&self) {
        self.doorbell.ring();
    }

    /// The time the run's own dispatching has taken from a worker of this core so far
    /// ([`CoreShared::dispatching`]), read by a worker while its dispatcher sleeps or waits for
    /// the scheduler's lock, when it is whole.
    pub fn dispatched_by(&self) -> u64 {
        self.dispatching.load(Ordering::SeqCst)
    }
}

/// What each stretch of a dispatcher is credited besides its own clock's reading: the switch
/// back to the worker after its sleep begins, and the interrupt before its wake-up when that
/// came early, which no clock of the run sees (1-3 us each on this machine), with room to spare.
pub const SWITCH_BACK_NS: u64 = 5_000;

/// Everything shared by one run.
pub struct Shared {
    pub scheduler: Mutex<Scheduler>,
    pub slots: Vec<SlotShared>,
    /// `workers[task * cores + core]`.
    pub workers: Vec<Padded<WorkerShared>>,
    pub cores: Vec<Padded<CoreShared>>,
    /// One holder word per slot: a job runs on one core at a time.
    pub holders: Holders,
    /// CLOCK_MONOTONIC of time 0; 0 until the run starts (futex word `gate`).
    pub origin: AtomicU64,
    pub gate: AtomicU32,
    pub control: Arc<RunControl>,
    pub duration_ns: u64,
    /// How long before a known event an idle core's dispatcher wakes (0: at the event).
    pub lead_ns: u64,
    /// Bumped by every pass that changed the criticality mode.
    pub mode_epoch: AtomicU64,
}

impl Shared {
    pub fn new(
        scheduler: Scheduler,
        control: Arc<RunControl>,
        duration_ns: u64,
        lead_ns: u64,
    ) -> Self {
        let (tasks, cores) = (scheduler.task_count(), scheduler.cores());
        Shared {
            scheduler: Mutex::new(scheduler),
            slots: (0..tasks * SLOTS_PER_TASK)
                .map(|_| SlotShared::default())
                .collect(),
            workers: (0..tasks * cores)
                .map(|_| {
                    Padded(WorkerShared {
                        stop_at: AtomicU64::new(u64::MAX),
                        ..WorkerShared::default()
                    })
                })
                .collect(),
            cores: (0..cores)
                .map(|_| {
                    Padded(CoreShared {
                        ahead_at: AtomicU64::new(u64::MAX),
                        // Above any time a core sleeps to: the first pass rings every core
                        // whose first event it publishes (`super::wakes`).
                        wake_at: crate::sync::AtomicU64::new(u64::MAX),
                        ..CoreShared::default()
                    })
                })
                .collect(),
            holders: Holders::new(tasks * SLOTS_PER_TASK),
            origin: AtomicU64::new(0),
            gate: AtomicU32::new(0),
            control,
            duration_ns,
            lead_ns,
            mode_epoch: AtomicU64::new(0),
        }
    }

    pub fn worker(&self, task: usize, core: usize) -> &WorkerShared {
        &self.workers[task * self.cores.len() + core]
    }

    /// The job `core` runs at `now` (ns since the origin): its promised one from
    /// [`Self::lead_ns`] before the promise's instant on (the switch is then prepared), the
    /// last decision's before ([`encode`]d).
    pub fn effective(&self, core: usize, now: u64) -> u64 {
        let c = &self.cores[core];
        let at = c.ahead_at.load(Ordering::Acquire);
        if at != u64::MAX && now + self.lead_ns >= at {
            c.ahead.load(Ordering::Acquire)
        } else {
            c.wanted.load(Ordering::Acquire)
        }
    }

    pub fn slot(&self, id: JobId) -> &SlotShared {
        &self.slots[slot_index(id)]
    }
}

/// The slot of a job.
pub fn slot_index(id: JobId) -> usize {
    id.task * SLOTS_PER_TASK + (id.number % SLOTS_PER_TASK as u64) as usize
}

/// A job as one word for [`CoreShared::wanted`] (0 is "idle").
pub fn encode(id: Option<JobId>) -> u64 {
    id.map_or(0, |id| (id.number << 16) | (id.task as u64 + 1))
}

pub fn decode(word: u64) -> Option<JobId> {
    match word & 0xffff {
        0 => None,
        task => Some(JobId {
            task: task as usize - 1,
            number: word >> 16,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_words_round_trip() {
        for (task, number) in [(0, 0), (3, 7), (65_533, 1 << 40)] {
            let id = JobId { task, number };
            assert_eq!(decode(encode(Some(id))), Some(id));
        }
        assert_eq!(decode(encode(None)), None);
    }
}
