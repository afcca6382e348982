//! The dispatcher of one core: pinned, at the top SCHED_FIFO priority below the watchdog. It
//! sleeps on its doorbell with an absolute CLOCK_MONOTONIC timeout ([`crate::platform::futex`])
//! until its next event (a release of a task homed here, a policy timer on core 0, the end of
//! the run) or until a worker of its core completes a job or another core's decision changed
//! this core's job. Then it runs a pass under the scheduler's lock
//! ([`super::scheduler::Scheduler::pass`]), rings the other cores whose job or wake time
//! changed, and applies this core's job itself: the worker it replaces is told to stop and the
//! wanted job's worker is asked to run, both on this core (a store and a same-core futex wake).

use super::scheduler::{Scheduler, LOCK_WAIT};
use super::shared::{decode, Shared};
use crate::measure::Measurements;
use crate::parking::{wait_for_origin, PARK, RUN};
use crate::platform::futex::{self, Woke};
use crate::platform::{clock, memory};
use kairos_policy::JobId;
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;

/// Longest single sleep, so a stop request is seen within this time.
const SLEEP_STEP_NS: u64 = 20_000_000;

/// Programmed wake-up to the dispatcher's handler, ns.
pub const TIMER_TO_HANDLER: &str = "dispatch.timer_to_handler";

/// What one dispatcher saw.
#[derive(Debug, Default)]
pub struct DispatcherLog {
    pub measurements: Measurements,
}

struct Dispatcher<'a> {
    shared: &'a Shared,
    core: usize,
    origin: u64,
    /// The job this core's worker was last asked to run.
    current: Option<JobId>,
    log: DispatcherLog,
}

/// Runs the dispatcher of `core` until the end of the run or a stop request.
pub fn run_dispatcher(shared: &Shared, core: usize) -> DispatcherLog {
    memory::prefault_stack();
    let Some(origin) = wait_for_origin(&shared.origin, &shared.gate, &shared.control) else {
        return DispatcherLog::default();
    };
    let mut d = Dispatcher {
        shared,
        core,
        origin,
        current: None,
        log: DispatcherLog::default(),
    };
    d.run();
    d.apply(None);
    d.log
}

/// The scheduler's lock, timing the wait.
fn lock<'s>(shared: &'s Shared, measurements: &mut Measurements) -> MutexGuard<'s, Scheduler> {
    let asked = clock::now_ns();
    // A poisoned lock means a dispatcher panicked: its state is still the last whole pass.
    let guard = (shared.scheduler.lock()).unwrap_or_else(|p| p.into_inner());
    measurements.record(LOCK_WAIT, clock::now_ns().saturating_sub(asked));
    guard
}

impl Dispatcher<'_> {
    fn run(&mut self) {
        let end = self.shared.duration_ns;
        // Core 0 makes the first decision at time 0 (the contract's first instant).
        let mut wake_at = if self.core == 0 { 0 } else { end };
        loop {
            let seen = self.shared.cores[self.core]
                .doorbell
                .load(Ordering::Acquire);
            let alarm = self.alarm(wake_at, end);
            let timed_out = self.sleep(seen, alarm);
            let now = clock::now_ns().saturating_sub(self.origin);
            self.shared.cores[self.core].heartbeat.beat();
            if self.shared.control.should_stop() || now >= end {
                break;
            }
            if timed_out {
                (self.log.measurements).record(TIMER_TO_HANDLER, now.saturating_sub(alarm));
            }
            // Woken ahead of an event on purpose: decide as of the event's instant.
            let at = if timed_out && now < wake_at {
                wake_at
            } else {
                now
            };
            wake_at = self.pass(at);
            self.apply(decode(
                self.shared.cores[self.core].wanted.load(Ordering::Acquire),
            ));
        }
    }

    /// When to wake for an event at `wake_at`: [`Shared::lead_ns`] ahead when this core runs
    /// nothing (its worker is then asked early and starts at the event's instant itself), at
    /// the event otherwise (waking early would take CPU time from the running job).
    fn alarm(&self, wake_at: u64, end: u64) -> u64 {
        if self.current.is_none() && wake_at < end {
            wake_at.saturating_sub(self.shared.lead_ns)
        } else {
            wake_at
        }
    }

    /// One bounded futex sleep on the doorbell; true if `alarm` passed.
    fn sleep(&self, seen: u32, alarm: u64) -> bool {
        let deadline = self.origin + alarm;
        let now = clock::now_ns();
        if now >= deadline {
            return true;
        }
        let step = deadline.min(now + SLEEP_STEP_NS);
        let woke = futex::wait_until(&self.shared.cores[self.core].doorbell, seen, step);
        woke == Woke::TimedOut && clock::now_ns() >= deadline
    }

    /// A pass under the lock at schedule time `now`; rings the cores whose job or wake time
    /// changed (a new job there starts at `now` at the earliest) and returns this core's next
    /// wake time.
    fn pass(&mut self, now: u64) -> u64 {
        let mut scheduler = lock(self.shared, &mut self.log.measurements);
        let before: Vec<u64> = self.wanted_words();
        let old_wake: Vec<u64> = (self.shared.cores.iter())
            .map(|c| c.wake_at.load(Ordering::Relaxed))
            .collect();
        scheduler.pass(self.shared, now);
        if let Some(reason) = &scheduler.failure {
            self.shared.control.request_stop(reason.clone());
        }
        let wake = scheduler.wake_times();
        drop(scheduler);
        let after = self.wanted_words();
        for (core, c) in self.shared.cores.iter().enumerate() {
            c.wake_at.store(wake[core], Ordering::Relaxed);
            if before[core] != after[core] {
                c.not_before.store(now, Ordering::Relaxed);
            }
            let moved = before[core] != after[core] || wake[core] < old_wake[core];
            if core != self.core && moved {
                c.ring();
            }
        }
        wake[self.core]
    }

    fn wanted_words(&self) -> Vec<u64> {
        (self.shared.cores.iter())
            .map(|c| c.wanted.load(Ordering::Acquire))
            .collect()
    }

    /// Makes this core run `want`: stops the worker of the job it ran, asks the wanted job's.
    fn apply(&mut self, want: Option<JobId>) {
        if want == self.current {
            return;
        }
        if let Some(old) = self.current {
            (self.shared.worker(old.task, self.core).go).store(PARK, Ordering::Release);
        }
        if let Some(new) = want {
            let w = self.shared.worker(new.task, self.core);
            let now = clock::now_ns().saturating_sub(self.origin);
            let not_before = self.shared.cores[self.core]
                .not_before
                .load(Ordering::Relaxed);
            w.job.store(new.number, Ordering::Relaxed);
            w.requested_at.store(now, Ordering::Relaxed);
            w.not_before.store(not_before, Ordering::Relaxed);
            w.go.store(RUN, Ordering::Release);
            futex::wake(&w.go);
        }
        self.current = want;
    }
}
