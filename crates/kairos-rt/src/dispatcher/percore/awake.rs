//! The time a core's dispatcher takes from its workers, which they credit to the run's own
//! dispatching rather than count as lost ([`crate::measure::WorkerTime::lost`],
//! [`CoreShared::dispatched_by`]).
//!
//! Its stretches awake, each from a wake-up to the next sleep (a wait for the scheduler's lock
//! is a sleep: its worker runs meanwhile), counted as its CPU time rather than their wall time
//! wherever a hole could matter: a hole of the host, or a thread above the run, while it is
//! awake is not its own (a holding thread that preempted a pass just begun had its 2 ms credited
//! to the run, and lost to no job, when every stretch was wall time). Reading its CPU clock is a
//! system call (about 1.5 us on this VM) that would lengthen every switch, so a stretch is
//! credited its wall time while that is short, and its CPU time when it was long
//! ([`LONG_STRETCH_NS`]) or when the short ones since the last reading add up
//! ([`RECONCILE_NS`]). Then the CPU time since that reading, less what the short stretches
//! were credited, is the stretch's credit (at most its wall time): the run's total credit is
//! its dispatchers' CPU time at each reading, and a hole inside a short stretch, credited to
//! the run there, is taken back from the stretch that reads. Besides, [`CoreShared::dispatching`]
//! adds:
//! - [`SWITCH_BACK_NS`] for each stretch: the switches and the interrupt no clock of the run
//!   sees, and its CPU time between two stretches (the sleep's own system calls);
//! - the time its wake-up came after it was due, when its pass then stopped the job the core
//!   ran ([`Dispatcher::credit_switch_wait`]).
//!
//! Its workers read the credit only while it sleeps or waits for the lock, so it is whole then.
//! A request made during a pass reads it without that pass: the requested worker's start then
//! takes all of the pass out of its lateness, not only what followed the request, which errs
//! towards the schedule.
//!
//! [`CoreShared::dispatching`]: super::super::shared::CoreShared::dispatching

use super::super::scheduler::Scheduler;
use super::super::shared::SWITCH_BACK_NS;
use super::Dispatcher;
use kairos_os::clock;
use std::sync::atomic::Ordering;
use std::sync::{MutexGuard, TryLockError};

/// A stretch awake longer than this is credited its CPU time: a hole the watchers may miss
/// (the dispatchers' late wake-up floor), well above a pass's 99th percentile here (25-50 us).
pub const LONG_STRETCH_NS: u64 = super::super::late::LATE_WAKE_FLOOR_NS;

/// Wall time credited to short stretches after which the next one reads the CPU clock: one
/// reading in every ten to twenty passes, so that a hole inside one is taken back soon.
pub const RECONCILE_NS: u64 = 200_000;

/// Where a dispatcher's credit stands ([`Dispatcher::end_stretch`]).
#[derive(Debug)]
pub(super) struct Awake {
    /// When its current stretch began (CLOCK_MONOTONIC ns).
    from: u64,
    /// Its CPU time at the last reading, and the wall time credited to stretches since (ns).
    cpu_read: u64,
    short_since_read: u64,
}

impl Awake {
    /// From now on, the thread's CPU time read now.
    pub(super) fn now() -> Awake {
        Awake {
            from: clock::now_ns(),
            cpu_read: clock::thread_cpu_ns(),
            short_since_read: 0,
        }
    }

    /// The credit of the stretch ending at `now` (module documentation), reading the thread's
    /// CPU time with `cpu` when it needs to.
    fn end(&mut self, now: u64, cpu: impl FnOnce() -> u64) -> u64 {
        let wall = now.saturating_sub(self.from);
        if wall <= LONG_STRETCH_NS && self.short_since_read + wall <= RECONCILE_NS {
            self.short_since_read += wall;
            return wall;
        }
        let cpu = cpu();
        let used = cpu.saturating_sub(self.cpu_read);
        let credit = used.saturating_sub(self.short_since_read).min(wall);
        (self.cpu_read, self.short_since_read) = (cpu, 0);
        credit
    }
}

impl<'a> Dispatcher<'a> {
    /// Begins a stretch awake at `now` (CLOCK_MONOTONIC ns).
    pub(super) fn wake_at(&mut self, now: u64) {
        self.awake.from = now;
    }

    /// Ends its stretch awake at `now` (CLOCK_MONOTONIC ns), crediting it.
    pub(super) fn end_stretch(&mut self, now: u64) {
        let credit = self.awake.end(now, clock::thread_cpu_ns);
        let core = &self.shared.cores[self.core];
        (core.dispatching).fetch_add(credit + SWITCH_BACK_NS, Ordering::SeqCst);
    }

    /// Credits the time its last wake-up came after it was due ([`Dispatcher::late_by`]) as
    /// its pass stops the job this core ran: that job was due to leave then, so what it ran or
    /// lost since was not its own. Before the next job's request, whose worker takes what its
    /// dispatcher spent after the request out of its late start. A pass that keeps the job, or
    /// only sets its stop at a promised instant, gets no such credit: the job was due to run
    /// on, and a hole of the host there is its loss (the dispatcher's late wake-up, a stall
    /// cut out of every job's segment, does not stand for it).
    pub(super) fn credit_switch_wait(&mut self) {
        let core = &self.shared.cores[self.core];
        core.dispatching.fetch_add(self.late_by, Ordering::SeqCst);
        self.late_by = 0;
    }

    /// The scheduler's lock. When another core's dispatcher holds it, the wait is a sleep of
    /// this one (its worker runs meanwhile), with its switches. A poisoned lock means a
    /// dispatcher panicked: its state is still the last whole pass.
    pub(super) fn lock_scheduler(&mut self) -> MutexGuard<'a, Scheduler> {
        let scheduler = &self.shared.scheduler;
        match scheduler.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                self.end_stretch(clock::now_ns());
                let guard = scheduler.lock().unwrap_or_else(|p| p.into_inner());
                self.wake_at(clock::now_ns());
                guard
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000;

    fn at(from: u64, cpu_read: u64) -> Awake {
        Awake {
            from,
            cpu_read,
            short_since_read: 0,
        }
    }

    #[test]
    fn short_stretches_are_credited_their_wall_time_without_reading_the_clock() {
        let mut awake = at(0, 7);
        let never = || panic!("read the CPU clock");
        assert_eq!(awake.end(20 * US, never), 20 * US);
        awake.from = 50 * US;
        assert_eq!(awake.end(150 * US, never), 100 * US);
        assert_eq!(awake.short_since_read, 120 * US);
    }

    #[test]
    fn a_long_stretch_is_credited_its_cpu_time_less_what_the_short_ones_had() {
        // 30 us credited to a short stretch that ran 25 us; then a stretch of 2.1 ms wall in
        // which the thread ran 40 us (a 2 ms hole): credited 40 + 25 - 30 = 35 us.
        let mut awake = at(0, 1_000 * US);
        assert_eq!(awake.end(30 * US, || unreachable!()), 30 * US);
        awake.from = 100 * US;
        let credit = awake.end(2_200 * US, || 1_065 * US);
        assert_eq!(credit, 35 * US);
        assert_eq!((awake.cpu_read, awake.short_since_read), (1_065 * US, 0));
        // Never more than the stretch's wall time, whatever the reading says.
        awake.from = 3_000 * US;
        assert_eq!(awake.end(3_150 * US, || 9_999 * US), 150 * US);
    }

    #[test]
    fn short_stretches_adding_up_past_the_reconcile_bound_read_the_clock() {
        let mut awake = at(0, 0);
        let mut reads = 0;
        for i in 0..25 {
            awake.from = i * 100 * US;
            awake.end(awake.from + 10 * US, || {
                reads += 1;
                (i + 1) * 10 * US
            });
        }
        // 20 stretches of 10 us reach 200 us; the 21st reads.
        assert_eq!(reads, 1);
        assert_eq!(awake.short_since_read, 40 * US);
    }
}
