//! How a core's dispatcher applies its job: the worker it replaces is told to stop and the
//! wanted job's worker is asked to run, at once or at a promised instant.
//!
//! **Optional parts run as best-effort threads.** An optional part is work done in the slack
//! (the extended imprecise computation model): semi-fixed-priority policies keep a core busy
//! with optional parts whenever no real-time part is ready, which as SCHED_FIFO work would
//! run into the kernel's real-time throttling (`sched_rt_runtime_us`: 95 % of each second
//! by default, then every real-time thread of the CPU stops for the rest of it) and shut the
//! rest of the machine out. So while its job is in an optional part, a worker is SCHED_OTHER;
//! its dispatcher sets it back to SCHED_FIFO before it stops it and when the job moves on to
//! its wind-up. Only a core's own dispatcher changes its workers' policies, and it runs on
//! that core above them, so no worker runs between the dispatcher's look at a job's part and
//! the change: a stopped worker is always a real-time one again, first in line to let go of
//! its job (the hand-off rule of [`crate::dispatcher::worker`]). The cost of each change is the
//! [`PART_POLICY`] histogram.

use super::{Dispatcher, PART_POLICY};
use crate::dispatcher::shared::{decode, is_optional_part};
use crate::parking::{PARK, RUN};
use kairos_os::{clock, futex, priority, sched};
use kairos_policy::JobId;
use std::sync::atomic::Ordering;

impl Dispatcher<'_> {
    /// Makes this core run what it should now: the promised job once its switch is near
    /// ([`crate::dispatcher::shared::Shared::effective`]), else the last decision's.
    pub(super) fn settle(&mut self) {
        let c = &self.shared.cores[self.core];
        let now = clock::now_ns().saturating_sub(self.origin);
        let at = c.ahead_at.load(Ordering::Acquire);
        if at != u64::MAX && now + self.shared.lead_ns >= at {
            let want = decode(c.ahead.load(Ordering::Acquire));
            if now >= at {
                self.switch_now(want, at);
            } else {
                self.switch_at(want, at);
            }
        } else {
            // The job first: its start time, written before it, is then at least as new.
            let wanted = decode(c.wanted.load(Ordering::Acquire));
            self.switch_now(wanted, c.not_before.load(Ordering::Relaxed));
        }
        if let Some(job) = self.current {
            let word = self.shared.slot(job).part.load(Ordering::Acquire);
            self.set_best_effort(job.task, is_optional_part(word));
        }
        self.note_mode_change(now);
    }

    /// Makes this core's worker of `task` a best-effort thread or a real-time one again (see
    /// the module documentation). After a stop of the run, never real-time again: the watchdog
    /// may be demoting every thread.
    fn set_best_effort(&mut self, task: usize, on: bool) {
        if self.best_effort[task] == on || (!on && self.shared.control.should_stop()) {
            return;
        }
        let tid = self
            .shared
            .worker(task, self.core)
            .tid
            .load(Ordering::Acquire);
        let began = clock::now_ns();
        let changed = match on {
            true => sched::set_other(tid),
            false => sched::set_fifo(tid, priority::WORKER_MAX),
        };
        (self.timings.measurements).record(PART_POLICY, clock::now_ns().saturating_sub(began));
        if changed.is_ok() && !on {
            // Its start's lateness is timed from here at the earliest (`super::super::late_start`).
            let now = clock::now_ns().saturating_sub(self.origin);
            let w = self.shared.worker(task, self.core);
            w.realtime_since.store(now, Ordering::Release);
        }
        match changed {
            Ok(()) => self.best_effort[task] = on,
            Err(e) => (self.shared.control)
                .request_stop(format!("a worker's policy for an optional part: {e}")),
        }
    }

    /// The promised switch at `at`: the running job's worker stops itself then, and the
    /// promised job's worker, asked now, starts then. When both jobs are one task's, they
    /// share this core's worker, which a request would interrupt at once: only the stop is
    /// set, and the request waits for the instant.
    fn switch_at(&mut self, want: Option<JobId>, at: u64) {
        if want == self.current {
            return;
        }
        if let Some(old) = self.current {
            self.set_best_effort(old.task, false);
            (self.shared.worker(old.task, self.core).stop_at).store(at, Ordering::Release);
            self.stop_set_for = Some(at);
            if want.is_some_and(|new| new.task == old.task) {
                return;
            }
        }
        if let Some(new) = want {
            self.request(new, at);
        }
        self.current = want;
    }

    /// Stops the worker of the job this core ran and asks the wanted job's to start at
    /// `not_before` at the earliest.
    pub(super) fn switch_now(&mut self, want: Option<JobId>, not_before: u64) {
        if want == self.current {
            if let Some(job) = want.filter(|&job| self.let_go(job)) {
                self.request(job, not_before);
            }
            return;
        }
        if let Some(old) = self.current {
            self.set_best_effort(old.task, false);
            self.credit_switch_wait();
            (self.shared.worker(old.task, self.core).go).store(PARK, Ordering::Release);
        }
        if let Some(new) = want {
            self.request(new, not_before);
        }
        self.current = want;
    }

    /// Whether the worker of `job` on this core stopped by itself while the job is still
    /// wanted here: at the end of a part (the scheduler has loaded the next one by now), or
    /// at a completion this core's last pass did not see yet (the worker then finds the job
    /// closed and parks again).
    fn let_go(&self, job: JobId) -> bool {
        (self.shared.worker(job.task, self.core).go).load(Ordering::Acquire) == PARK
    }

    fn request(&mut self, job: JobId, not_before: u64) {
        let w = self.shared.worker(job.task, self.core);
        let clock_now = clock::now_ns();
        let now = clock_now.saturating_sub(self.origin);
        let dispatched = self.shared.cores[self.core].dispatched_by();
        w.dispatched_at_request.store(dispatched, Ordering::Relaxed);
        w.stop_at.store(u64::MAX, Ordering::Relaxed);
        w.job.store(job.number, Ordering::Relaxed);
        w.requested_at.store(now, Ordering::Relaxed);
        w.not_before.store(not_before, Ordering::Relaxed);
        w.go.store(RUN, Ordering::Release);
        futex::wake(&w.go);
        self.stop_set_for = None;
    }

    /// After a pass changed the criticality mode: when this core runs what the new mode wants.
    fn note_mode_change(&mut self, now: u64) {
        let epoch = self.shared.mode_epoch.load(Ordering::Acquire);
        if epoch != self.seen_epoch {
            self.seen_epoch = epoch;
            self.rescheduled.push((epoch, now));
        }
    }
}
