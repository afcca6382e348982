//! The dispatcher of one core: pinned, at the top SCHED_FIFO priority below the watchdog and
//! the stall watchers (which only sleep and look at the clock). It
//! sleeps on its doorbell with an absolute CLOCK_MONOTONIC timeout ([`kairos_os::futex`])
//! until its next event (a release of a task homed here, a policy timer on core 0, the end of
//! the run) or until a worker of its core completes a job or another core's decision changed
//! this core's job. Then it runs a pass under the scheduler's lock
//! ([`super::scheduler::Scheduler::pass`]), rings the other cores whose job or wake time
//! changed, and applies this core's job itself: the worker it replaces is told to stop and the
//! wanted job's worker is asked to run, both on this core (a store and a same-core futex wake):
//! [`switch`], which also makes a worker in an optional part a best-effort thread.

mod awake;
mod switch;

use super::late::{acted_at, LateWakes, Woken};
use super::metered::{Timings, PASS_HISTOGRAMS};
use super::scheduler::LOCK_WAIT;
use super::shared::{decode, Shared};
use super::wakes;
use crate::doorbell::Ticket;
use crate::measure::Measurements;
use crate::parking::wait_for_origin;
use crate::stalls::Stall;
use kairos_os::futex::Woke;
use kairos_os::{clock, memory};
use kairos_policy::JobId;
use std::sync::atomic::Ordering;

/// Longest single sleep, so a stop request is seen within this time.
const SLEEP_STEP_NS: u64 = 20_000_000;

/// Programmed wake-up to the dispatcher's handler, ns.
pub const TIMER_TO_HANDLER: &str = "dispatch.timer_to_handler";

/// A timed event (a release, a policy timer) to the pass that decides on it, ns: its instant to
/// the pass, none when the dispatcher woke ahead of it in time. With [`DOORBELL_TO_HANDLER`],
/// what a decision waits for before it is made ([`super::measured_overheads`]).
pub const EVENT_TO_HANDLER: &str = "dispatch.event_to_handler";

/// A ring of the doorbell (a worker's completion or part end, another core's decision, a cut
/// of an optional part) to the pass that handles it, ns: the analysis's `ipi`.
pub const DOORBELL_TO_HANDLER: &str = "dispatch.doorbell_to_handler";

/// One change of a worker's scheduling policy for an optional part (a `sched_setattr` of
/// another thread), ns.
pub const PART_POLICY: &str = "dispatch.part_policy";

/// How long after a promised instant the pass that confirms it runs. The switch itself (a
/// worker stopping itself, another starting) needs under a microsecond; the pass's timer
/// interrupt takes this VM's CPU for 13-17 us and may be delivered a few microseconds before
/// its expiry (the hypervisor advances guest timers). With 3 us, about half of the runs had the
/// interrupt hold up the switch on the timer's core (15-35 us median migration); 8 us gave
/// 0.4 us in every run tried, for 5 us more overrun detection.
pub const CONFIRM_SLACK_NS: u64 = 8_000;

/// What one dispatcher saw.
#[derive(Debug, Default)]
pub struct DispatcherLog {
    pub core: usize,
    pub measurements: Measurements,
    /// `(mode epoch, time)`: when this core first ran what a changed mode wants.
    pub rescheduled: Vec<(u64, u64)>,
    /// Its wake-ups that came late, as host stalls ([`super::late`]), and how many more it
    /// did not keep.
    pub late_wakes: Vec<Stall>,
    /// Late wake-ups past the room of its list, counted only.
    pub late_wakes_dropped: u64,
}

struct Dispatcher<'a> {
    shared: &'a Shared,
    core: usize,
    origin: u64,
    /// The job this core's worker was last asked to run.
    current: Option<JobId>,
    /// The promised instant at which the running job's worker was told to stop by itself.
    stop_set_for: Option<u64>,
    seen_epoch: u64,
    /// Per task, whether this core's worker of it is SCHED_OTHER (running an optional part).
    best_effort: Vec<bool>,
    timings: Timings,
    /// Per core, what a pass changes: its words before and after, its wake time and whether
    /// that came earlier (reserved once, so that a pass does not allocate).
    before: Vec<Words>,
    after: Vec<Words>,
    wake: Vec<u64>,
    earlier: Vec<bool>,
    rescheduled: Vec<(u64, u64)>,
    /// When its last sleep began (run time), if it slept.
    slept_from: Option<u64>,
    /// Its thread's CPU time as its last stretch awake ended (ns, [`awake`]).
    cpu_read: u64,
    /// When its last sleep ended (CLOCK_MONOTONIC ns).
    woke_at: u64,
    late: LateWakes,
    /// How long after it was due its last wake-up came (ns), for its pass to credit if it stops
    /// the running job ([`awake`]); 0 once credited, and from each wake-up on until its lateness
    /// is known.
    late_by: u64,
    /// How long its last pass waited for the scheduler's lock (ns).
    lock_wait: u64,
}

/// A core's job at a pass's time (its promise once prepared), its promise and that instant.
type Words = (u64, u64, u64);

/// Runs the dispatcher of `core` until the end of the run or a stop request.
pub fn run_dispatcher(shared: &Shared, core: usize) -> DispatcherLog {
    memory::prefault_stack();
    let Some(origin) = wait_for_origin(&shared.origin, &shared.gate, &shared.control) else {
        return DispatcherLog::default();
    };
    let cores = shared.cores.len();
    let mut d = Dispatcher {
        shared,
        core,
        origin,
        current: None,
        stop_set_for: None,
        seen_epoch: 0,
        best_effort: vec![false; shared.slots.len() / super::shared::SLOTS_PER_TASK],
        timings: Timings::new(PASS_HISTOGRAMS.into_iter().chain(DISPATCHER_HISTOGRAMS)),
        before: Vec::with_capacity(cores),
        after: Vec::with_capacity(cores),
        wake: vec![0; cores],
        earlier: vec![false; cores],
        rescheduled: Vec::with_capacity(RESCHEDULED_RESERVED),
        slept_from: None,
        cpu_read: clock::thread_cpu_ns(),
        woke_at: clock::now_ns(),
        late: LateWakes::default(),
        late_by: 0,
        lock_wait: 0,
    };
    d.run();
    d.switch_now(None, 0);
    d.end_stretch();
    let usual = |name| d.timings.measurements.summary(name).p50;
    let medians = (usual(TIMER_TO_HANDLER), usual(DOORBELL_TO_HANDLER));
    DispatcherLog {
        core,
        late_wakes: d.late.stalls(core, medians),
        late_wakes_dropped: d.late.dropped(),
        measurements: d.timings.measurements,
        rescheduled: d.rescheduled,
    }
}

/// Every histogram a dispatcher records besides a pass's ([`PASS_HISTOGRAMS`]).
const DISPATCHER_HISTOGRAMS: [&str; 5] = [
    LOCK_WAIT,
    TIMER_TO_HANDLER,
    EVENT_TO_HANDLER,
    DOORBELL_TO_HANDLER,
    PART_POLICY,
];

/// Mode changes a dispatcher notes without growing its list.
const RESCHEDULED_RESERVED: usize = 1024;

impl Dispatcher<'_> {
    fn run(&mut self) {
        let end = self.shared.duration_ns;
        // Core 0 makes the first decision at time 0 (the contract's first instant).
        let mut wake_at = if self.core == 0 { 0 } else { end };
        let doorbell = &self.shared.cores[self.core].doorbell;
        let mut seen = Ticket::UNRUNG;
        loop {
            let (pass_alarm, early) = self.pass_alarm(wake_at, end);
            let alarm = pass_alarm.min(self.promise_alarm());
            self.slept_from = None;
            let timed_out = self.sleep(seen, alarm);
            self.late_by = 0;
            let now = clock::now_ns().saturating_sub(self.origin);
            self.shared.cores[self.core].heartbeat.beat();
            if self.shared.control.should_stop() || now >= end {
                break;
            }
            if timed_out {
                (self.timings.measurements).record(TIMER_TO_HANDLER, now.saturating_sub(alarm));
            }
            // The ticket moves on before any look at the state (see `crate::doorbell`).
            let rang_at = doorbell.advance(&mut seen);
            let due = self.due(timed_out.then_some(alarm), rang_at);
            let mut late = None;
            if let Some(due) = due {
                let what = if timed_out { Woken::Timer } else { Woken::Ring };
                let event = self.event_of(alarm, (pass_alarm, early, wake_at));
                // From the event an alarm stood for: a promise's alarm comes ahead of the
                // instant the running job was due to leave at.
                let instant = if timed_out { event } else { due };
                self.late_by = self.woke_at.saturating_sub(self.origin + instant);
                late = Some((what, instant));
            }
            // Timed to when it could act: a long wait for the scheduler's lock counts.
            let mut acted = now;
            if !timed_out || rang_at.is_some() || now >= pass_alarm {
                // The pass's own alarm, not a ring or a promise's alarm before it, woke it.
                let timed = timed_out && now >= pass_alarm;
                // Woken ahead of an event on purpose: decide as of the event's instant.
                let at = if timed && early { wake_at } else { now };
                self.record_event_delay(
                    rang_at,
                    timed.then_some((now, early, wake_at, pass_alarm)),
                );
                wake_at = self.pass(at);
                acted = acted_at(now, self.lock_wait);
            }
            if let Some((what, due)) = late {
                self.late.note(what, due, acted);
            }
            self.settle();
        }
    }

    /// Records what the pass about to run waited for: after a timed wake `(now, early, wake_at,
    /// pass_alarm)`, the lateness against the event ([`EVENT_TO_HANDLER`], none when woken
    /// ahead of it); else the time since the doorbell last rang, if it rang (`rang_at`,
    /// [`DOORBELL_TO_HANDLER`]; a wake-up between two sleep steps is no event).
    fn record_event_delay(&mut self, rang_at: Option<u64>, timed: Option<(u64, bool, u64, u64)>) {
        let (name, delay) = match (timed, rang_at) {
            (Some((now, early, wake_at, pass_alarm)), _) => (
                EVENT_TO_HANDLER,
                now.saturating_sub(if early { wake_at } else { pass_alarm }),
            ),
            (None, Some(rung)) => (DOORBELL_TO_HANDLER, clock::now_ns().saturating_sub(rung)),
            (None, None) => return,
        };
        (self.timings.measurements).record(name, delay);
    }

    /// When the wake-up that ended its sleep was due (run time): the alarm that passed, else
    /// the ring or the start of the sleep, whichever is later; none when it did not sleep or a
    /// sleep step ended.
    fn due(&self, alarm: Option<u64>, rang_at: Option<u64>) -> Option<u64> {
        let slept = self.slept_from?;
        match (alarm, rang_at) {
            (Some(alarm), _) => Some(alarm),
            (None, Some(rung)) => Some(rung.saturating_sub(self.origin).max(slept)),
            (None, None) => None,
        }
    }

    /// The instant an alarm stood for: the event when it was set ahead of it on purpose (an
    /// idle core's pass, a promised switch it prepares), so that a late wake-up is timed from
    /// when the core was needed ([`super::late`]).
    fn event_of(&self, alarm: u64, (pass_alarm, early, wake_at): (u64, bool, u64)) -> u64 {
        if alarm == pass_alarm {
            return if early { wake_at } else { alarm };
        }
        let promised = self.shared.cores[self.core]
            .ahead_at
            .load(Ordering::Acquire);
        match promised {
            u64::MAX => alarm,
            at => at.clamp(alarm, alarm + self.shared.lead_ns),
        }
    }

    /// When to pass for an event at `wake_at`, and whether that is ahead of it. After a
    /// promise, not before its instant and its [`CONFIRM_SLACK_NS`] (the workers switch first;
    /// the pass confirms or corrects). Otherwise [`Shared::lead_ns`] ahead when this core runs
    /// nothing (its worker is then asked early and starts at the event's instant itself), at
    /// the event else (waking early would take CPU time from the running job).
    fn pass_alarm(&self, wake_at: u64, end: u64) -> (u64, bool) {
        let promised = self.shared.cores[self.core]
            .ahead_at
            .load(Ordering::Acquire);
        if promised <= wake_at {
            (wake_at.max(promised + CONFIRM_SLACK_NS), false)
        } else if self.current.is_none() && wake_at < end {
            (wake_at.saturating_sub(self.shared.lead_ns), true)
        } else {
            (wake_at, false)
        }
    }

    /// When to prepare this core's promised switch: [`Shared::lead_ns`] before its instant, or
    /// at the instant when the leaving and the coming job share a worker (see [`Self::settle`]).
    fn promise_alarm(&self) -> u64 {
        let c = &self.shared.cores[self.core];
        let at = c.ahead_at.load(Ordering::Acquire);
        if at == u64::MAX || decode(c.ahead.load(Ordering::Acquire)) == self.current {
            return u64::MAX;
        }
        if self.stop_set_for == Some(at) {
            at
        } else {
            at.saturating_sub(self.shared.lead_ns)
        }
    }

    /// One bounded futex sleep on the doorbell; true if `alarm` passed.
    fn sleep(&mut self, seen: Ticket, alarm: u64) -> bool {
        let deadline = self.origin.saturating_add(alarm);
        let now = clock::now_ns();
        if now >= deadline {
            return true;
        }
        self.slept_from = Some(now.saturating_sub(self.origin));
        self.end_stretch();
        let step = deadline.min(now + SLEEP_STEP_NS);
        let woke = self.shared.cores[self.core].doorbell.wait_until(seen, step);
        let back = clock::now_ns();
        self.woke_at = back;
        woke == Woke::TimedOut && back >= deadline
    }

    /// A pass under the lock at schedule time `now`; rings the cores whose job, or promise,
    /// changed (a new job there starts at `now` at the earliest) and returns this core's next
    /// wake time. The pass's timings, and the wait for the lock, are recorded once the lock is
    /// let go.
    fn pass(&mut self, now: u64) -> u64 {
        let shared = self.shared;
        let asked = clock::now_ns();
        let mut scheduler = self.lock_scheduler();
        let locked = clock::now_ns();
        let clock_now = locked.saturating_sub(self.origin);
        self.lock_wait = locked.saturating_sub(asked);
        words(shared, clock_now, &mut self.before);
        scheduler.pass(shared, self.core, now, &mut self.timings);
        if let Some(reason) = scheduler.failure() {
            shared.control.request_stop(reason.clone());
        }
        scheduler.wake_times(&mut self.wake);
        // Published before the lock is let go, so that the next pass compares against them
        // (`super::wakes`); the rings wait for after it.
        let published = shared.cores.iter().map(|c| &c.wake_at);
        wakes::publish(published, &self.wake, &mut self.earlier);
        words(shared, clock_now, &mut self.after);
        drop(scheduler);
        self.timings.defer(LOCK_WAIT, locked.saturating_sub(asked));
        self.timings.record_deferred();
        for (core, c) in shared.cores.iter().enumerate() {
            let moved = self.before[core] != self.after[core] || self.earlier[core];
            if core != self.core && moved {
                c.ring();
            }
        }
        self.wake[self.core]
    }
}

/// Per core, into `out`: the job it runs at `now` (its promise once prepared) and its promise.
fn words(shared: &Shared, now: u64, out: &mut Vec<Words>) {
    out.clear();
    out.extend(shared.cores.iter().enumerate().map(|(core, c)| {
        let (ahead, at) = (
            c.ahead.load(Ordering::Acquire),
            c.ahead_at.load(Ordering::Acquire),
        );
        (shared.effective(core, now), ahead, at)
    }));
}
