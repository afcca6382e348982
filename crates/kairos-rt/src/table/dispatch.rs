//! The per-core dispatcher of G-RES / G-MCRES in user space (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 5 "G-RES Plugin", section 6 "G-MCRES Plugin", Algorithms 1 and 2).
//!
//! One dispatcher per core, pinned, at the top SCHED_FIFO priority below the watchdog. It
//! sleeps until the next interval boundary of its core in the current mode's table (an absolute
//! CLOCK_MONOTONIC futex timeout, see [`crate::platform::futex`]) or until its doorbell rings, then:
//!
//! 1. **end of interval** (section 6.1): the task of the interval that ended is asked to stop
//!    (budget enforcement); if that interval was its job's last in this mode and the job is
//!    unfinished, it is a budget overrun: above the mode, Algorithm 1
//!    ([`crate::mode::ModeState::overrun`]) whose single winner switches every reservation and
//!    rings every core's doorbell; at or below the mode, the job is stopped for good (a miss);
//! 2. **scheduling pass** (Algorithm 2, [`crate::mode::ModeState::schedule`]): the interval of
//!    this core covering now in the table of `lcm[k]`; a hyper-period boundary reads as level 0
//!    with no write (section 6.3);
//! 3. **start**: the selected job's (task, core) worker is asked to run (a store and a
//!    same-core futex wake, see [`super::worker`]) with its interval's end, where it stops
//!    itself; the task it replaces was asked to stop (or already stopped itself there).
//!
//! A boundary where the served interval ends, is not its job's last and the job is unfinished
//! is handled [`ENFORCED_END_SLACK_NS`] late on purpose (at the same nominal time), so the
//! timer's interrupt does not hold up the worker that stops and releases its task there.
//!
//! The hand-off of section 5.3 ([`crate::handoff`]) happens in the worker that wants the
//! task: all workers of a core share one SCHED_FIFO priority below the dispatcher, so when the
//! dispatcher sleeps, the worker it stopped (preempted, so first in line) runs first, sees the
//! stop within one unit of work and releases its task; then the new worker takes its task from
//! the holder word. If another core still holds it, the worker gives up (yields the CPU to the
//! workers of its core that still hold a task) while its core holds one, and busy-waits only
//! once its core holds nothing. A migration is thus a hand-off between two pre-pinned threads,
//! with no `sched_setaffinity` and no cross-core wake.

use super::shared::{Shared, EXPIRED, PARK, RUN, RUNNING};
use crate::measure::Measurements;
use crate::mode::{ModeWord, Overrun};
use crate::parking::wait_for_origin;
use crate::platform::futex::{self, Woke};
use crate::platform::{clock, memory};
use kairos_policy::table::Slot;
use std::sync::atomic::Ordering;

/// Longest single sleep, so a stop request is seen within this time.
const SLEEP_STEP_NS: u64 = 20_000_000;

/// How long after a boundary the dispatcher's timer fires when the worker of the interval that
/// ends there stops itself (see [`super::worker`]): a timer interrupt takes this VM's CPU for
/// 13-17 us, so a timer at the boundary itself would keep the worker from seeing the boundary
/// and releasing its task until the interrupt is over. The worker needs under a microsecond
/// (one unit of work, the claim and the release).
pub const ENFORCED_END_SLACK_NS: u64 = 3_000;

/// Histogram of every boundary's timer latency on this core (programmed expiry to handler:
/// the boundary, or [`ENFORCED_END_SLACK_NS`] after it).
pub const TIMER_TO_HANDLER: &str = "dispatch.timer_to_handler";

/// A mode change this core's dispatcher won (times in ns since the origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeChangeRecord {
    pub core: usize,
    pub from: ModeWord,
    pub to: ModeWord,
    /// End of the overrunning job's last interval.
    pub nominal: u64,
    /// The handler that detected it.
    pub detected_at: u64,
    /// Every reservation switched (Algorithm 1, lines 3-4 done).
    pub switch_done_at: u64,
    /// Every core's doorbell rung (line 5 done).
    pub requested_at: u64,
    pub task: usize,
    pub job: u64,
}

/// What one dispatcher saw.
#[derive(Debug, Default)]
pub struct DispatcherLog {
    pub core: usize,
    /// `(time, lcm)` whenever a pass ran under a different `lcm[k]` than the previous one.
    pub passes: Vec<(u64, ModeWord)>,
    pub mode_changes: Vec<ModeChangeRecord>,
    /// Jobs stopped for good by budget enforcement: `(task, job, time)`.
    pub kills: Vec<(usize, u64, u64)>,
    /// Overruns whose Algorithm 1 changed nothing (a simultaneous winner, or a stale lcm).
    pub overruns_absorbed: u64,
    /// Attempts Algorithm 2 threw away.
    pub restarts: u64,
    pub measurements: Measurements,
}

/// The slot this core serves now.
#[derive(Clone, Copy, Debug)]
struct Assigned {
    task: usize,
    /// Job number since time 0.
    job: u64,
    /// Absolute (since the origin) slot bounds and the mode of its table.
    start: u64,
    end: u64,
    last: bool,
    mode: usize,
    /// When this core first handled the slot.
    handler_at: u64,
    /// When the task should have started here (the slot start, or the pass time for a slot
    /// entered mid-way after a mode change).
    nominal: u64,
    state: Serving,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Serving {
    /// Its worker was asked to run it.
    Requested,
    /// Nothing to run: the job is already closed.
    Done,
}

struct Dispatcher<'a> {
    shared: &'a Shared,
    core: usize,
    origin: u64,
    assigned: Option<Assigned>,
    next: u64,
    /// When to wake for `next`: the boundary itself, or [`Shared::lead_ns`] before it when
    /// this core idles until then (the worker is asked early and starts at the boundary).
    wake_at: u64,
    last_lcm: Option<ModeWord>,
    log: DispatcherLog,
}

/// Runs the dispatcher of `core` until the end of the plan or a stop request.
pub fn run_dispatcher(shared: &Shared, core: usize) -> DispatcherLog {
    memory::prefault_stack();
    let Some(origin) = wait_for_origin(&shared.origin, &shared.gate, &shared.control) else {
        return DispatcherLog {
            core,
            ..DispatcherLog::default()
        };
    };
    let mut d = Dispatcher {
        shared,
        core,
        origin,
        assigned: None,
        next: 0,
        wake_at: 0,
        last_lcm: None,
        log: DispatcherLog {
            core,
            passes: Vec::with_capacity(64),
            ..DispatcherLog::default()
        },
    };
    d.run();
    d.log
}

impl Dispatcher<'_> {
    fn now(&self) -> u64 {
        clock::now_ns().saturating_sub(self.origin)
    }

    fn run(&mut self) {
        let end = self.shared.plan.duration;
        loop {
            let early = self.wake_at < self.next;
            let timed_out = self.wait();
            let now = self.now();
            self.shared.cores[self.core].heartbeat.beat();
            if self.shared.control.should_stop() {
                break;
            }
            // A boundary is handled at its nominal time even when the timer fired late (or
            // early, on purpose); a doorbell (mode change) is handled at the real time.
            let t = if timed_out || now >= self.next {
                self.next
            } else {
                now
            };
            if timed_out && !early && now >= self.wake_at {
                // Against the programmed expiry (the boundary, or just after it).
                self.log
                    .measurements
                    .record(TIMER_TO_HANDLER, now - self.wake_at);
            }
            if t >= end {
                self.end_slot_if_over(end, now);
                break;
            }
            self.pass(t, now);
        }
        self.stop_everything(end);
    }

    /// Sleeps until the next boundary or the doorbell; true if the boundary timer expired.
    fn wait(&mut self) -> bool {
        let seen = self.shared.cores[self.core]
            .doorbell
            .load(Ordering::Acquire);
        self.sleep(seen, self.origin + self.wake_at)
    }

    /// One bounded futex sleep on the doorbell; true if `deadline` passed.
    fn sleep(&self, seen: u32, deadline: u64) -> bool {
        let step = deadline.min(clock::now_ns() + SLEEP_STEP_NS);
        let woke = futex::wait_until(&self.shared.cores[self.core].doorbell, seen, step);
        woke == Woke::TimedOut && clock::now_ns() >= deadline
    }

    /// Steps 1-3 of the module documentation at schedule time `t` (handled at `now`).
    fn pass(&mut self, t: u64, now: u64) {
        self.end_slot_if_over(t, now);
        let plan = &self.shared.plan;
        let (h, core) = (plan.table.hyperperiod, self.core);
        let (generation, local) = (t / h, t % h);
        let shared = self.shared;
        let pass = shared.mode.schedule(core, generation, |lcm| {
            let mode = lcm.mode_at(generation);
            let slot = plan.slot_at(mode, core, local).copied();
            let consistent = slot.is_none_or(|s| {
                ModeWord(shared.tasks[s.task].reservation.load(Ordering::SeqCst))
                    .at_generation(generation)
                    == lcm
            });
            (slot, consistent)
        });
        let done = self.now().max(t);
        self.log.restarts += u64::from(pass.restarts);
        if !pass.selected.1 {
            shared.inconsistent.fetch_add(1, Ordering::Relaxed);
        }
        if self.last_lcm != Some(pass.lcm) {
            self.log.passes.push((done, pass.lcm));
            self.last_lcm = Some(pass.lcm);
        }
        let mode = pass.lcm.mode_at(generation);
        self.apply(pass.selected.0, mode, generation, t, now);
        self.next = generation * h + plan.next_boundary(mode, core, local);
        self.wake_at = self.next;
        if self.idle_until_next() && self.slot_starts_at_next(generation, mode) {
            self.wake_at = self.next.saturating_sub(shared.lead_ns).max(t);
        } else if self.worker_stops_itself_at_next() {
            self.wake_at = self.next + ENFORCED_END_SLACK_NS;
        }
    }

    /// Whether the worker of the served slot stops itself at `next` and nothing needs this
    /// dispatcher there first: the slot ends at `next`, is not its job's last (no overrun can
    /// be seen there) and the job is unfinished. The boundary's pass then waits
    /// [`ENFORCED_END_SLACK_NS`], so its timer interrupt does not take the CPU from the worker
    /// at the very instant the worker stops and releases the task.
    fn worker_stops_itself_at_next(&self) -> bool {
        self.assigned.is_some_and(|a| {
            a.state == Serving::Requested
                && a.end == self.next
                && !a.last
                && self.shared.tasks[a.task].finished.load(Ordering::SeqCst) <= a.job
        })
    }

    /// Whether nothing runs here until `next`: no slot, a closed job, or one that completed
    /// and whose slot ends at `next` (its end-of-slot check cannot find an overrun then).
    fn idle_until_next(&self) -> bool {
        match self.assigned {
            None => true,
            Some(a) => {
                a.state == Serving::Done
                    || (a.end == self.next
                        && self.shared.tasks[a.task].finished.load(Ordering::SeqCst) > a.job)
            }
        }
    }

    /// Whether a slot of this core starts exactly at `next` (in the mode in force then).
    fn slot_starts_at_next(&self, generation: u64, mode: usize) -> bool {
        let plan = &self.shared.plan;
        let (g, local) = (
            self.next / plan.table.hyperperiod,
            self.next % plan.table.hyperperiod,
        );
        let mode = if g == generation { mode } else { 0 };
        plan.slot_at(mode, self.core, local)
            .is_some_and(|s| s.start == local)
    }

    /// Step 1: the served slot ended at or before `t`.
    fn end_slot_if_over(&mut self, t: u64, now: u64) {
        let Some(a) = self.assigned else { return };
        if a.end > t {
            return;
        }
        self.assigned = None;
        if a.state == Serving::Requested {
            self.stop(a.task, a.end, now);
        }
        if !a.last || a.state == Serving::Done {
            return;
        }
        let task = &self.shared.tasks[a.task];
        if task.finished.load(Ordering::SeqCst) > a.job {
            return;
        }
        if self.shared.plan.table.tasks[a.task].criticality() > a.mode {
            self.overrun(a, now);
        } else {
            // Budget enforcement at or above the task's own level: the job stops for good.
            task.finished.fetch_max(a.job + 1, Ordering::SeqCst);
            self.log.kills.push((a.task, a.job, now));
        }
    }

    /// Algorithm 1 for the job of `a`, detected at `now`.
    fn overrun(&mut self, a: Assigned, now: u64) {
        let shared = self.shared;
        let origin = self.origin;
        let mut stamps = (0, 0);
        let outcome = shared.mode.overrun(self.core, |_, to| {
            // Lines 3-4: every reservation follows the new mode's table.
            for task in &shared.tasks {
                task.reservation.fetch_max(to.0, Ordering::SeqCst);
            }
            stamps.0 = clock::now_ns() - origin;
            // Line 5: every core (this one included) runs a scheduling pass.
            for core in &shared.cores {
                core.doorbell.fetch_add(1, Ordering::Release);
                futex::wake(&core.doorbell);
            }
            stamps.1 = clock::now_ns() - origin;
        });
        match outcome {
            Overrun::Raised { from, to } => self.log.mode_changes.push(ModeChangeRecord {
                core: self.core,
                from,
                to,
                nominal: a.end,
                detected_at: now,
                switch_done_at: stamps.0,
                requested_at: stamps.1,
                task: a.task,
                job: a.job,
            }),
            Overrun::Unchanged { .. } => self.log.overruns_absorbed += 1,
        }
    }

    /// Step 3 for the pass's selection.
    fn apply(&mut self, slot: Option<Slot>, mode: usize, generation: u64, t: u64, now: u64) {
        let Some(slot) = slot else {
            if let Some(a) = self.assigned.take() {
                if a.state == Serving::Requested {
                    self.stop(a.task, t, now);
                }
            }
            return;
        };
        let h = self.shared.plan.table.hyperperiod;
        let job = self
            .shared
            .plan
            .table
            .global_job(slot.task, generation, slot.job);
        let (start, end) = (generation * h + slot.start, generation * h + slot.end);
        match self.assigned {
            Some(mut a) if a.task == slot.task && a.job == job => {
                // Same job, possibly from another mode's table: follow the new bounds.
                let moved = a.end != end;
                (a.start, a.end, a.last, a.mode) = (start, end, slot.last, mode);
                self.assigned = Some(a);
                if moved && a.state == Serving::Requested {
                    self.move_end(&a);
                }
            }
            other => {
                if let Some(a) = other {
                    if a.state == Serving::Requested {
                        self.stop(a.task, t, now);
                    }
                }
                let closed = self.shared.tasks[slot.task].finished.load(Ordering::SeqCst) > job;
                self.assigned = Some(Assigned {
                    task: slot.task,
                    job,
                    start,
                    end,
                    last: slot.last,
                    mode,
                    handler_at: now,
                    nominal: start.max(t),
                    state: if closed {
                        Serving::Done
                    } else {
                        Serving::Requested
                    },
                });
                if let Some(a) = self.assigned.filter(|a| a.state == Serving::Requested) {
                    self.start(&a);
                }
            }
        }
    }

    /// Asks this core's worker of `a.task` to run job `a.job` (it takes the task itself).
    fn start(&self, a: &Assigned) {
        let worker = self.shared.worker(a.task, self.core);
        worker.job.store(a.job, Ordering::Relaxed);
        worker.nominal.store(a.nominal, Ordering::Relaxed);
        worker.handler_at.store(a.handler_at, Ordering::Relaxed);
        worker.stop_at.store(self.origin + a.end, Ordering::Release);
        worker.go.store(RUN, Ordering::Release);
        futex::wake(&worker.go);
    }

    /// A mode change moved the end of the running job's interval: the worker follows the new
    /// end. If it reached the old one first (between this pass's start and now, so it stopped
    /// and released the task or is about to), it is asked to run again, as the old code's
    /// worker would have kept running.
    fn move_end(&self, a: &Assigned) {
        let worker = self.shared.worker(a.task, self.core);
        let before = worker.stop_at.swap(self.origin + a.end, Ordering::AcqRel);
        if before == EXPIRED && a.end > self.now() && worker.go.load(Ordering::Acquire) == RUNNING {
            self.start(a);
        }
    }

    /// Asks this core's worker of `task` to stop at boundary `nominal` (handled at `now`). A
    /// worker that has not taken the task yet abandons its attempt; one that completed its
    /// job has parked already.
    fn stop(&self, task: usize, nominal: u64, now: u64) {
        let worker = self.shared.worker(task, self.core);
        worker.stop_nominal.store(nominal, Ordering::Relaxed);
        worker.stop_handler_at.store(now, Ordering::Relaxed);
        worker
            .stop_requested_at
            .store(self.now(), Ordering::Relaxed);
        for from in [RUN, RUNNING] {
            if worker
                .go
                .compare_exchange(from, PARK, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }

    /// End of the run: stop whatever runs here.
    fn stop_everything(&mut self, end: u64) {
        if let Some(a) = self.assigned.take() {
            if a.state == Serving::Requested {
                let now = self.now();
                self.stop(a.task, end, now);
            }
        }
    }
}
