//! The time a core's dispatcher takes from its workers, which they credit to the run's own
//! dispatching rather than count as lost ([`crate::measure::WorkerTime::lost`],
//! [`CoreShared::dispatching`]).
//!
//! Its CPU time, read as each stretch awake ends (at each sleep), not the wall time it was
//! awake: a hole of the host, or a thread above the run, while it is awake is not its own (a
//! holding thread that preempted a pass just begun had its 2 ms credited to the run, and lost
//! to no job, when the credit was wall time), and while it waits for the scheduler's lock its
//! worker runs and its clock stands still. Reading the clock is a system call (about 1.5 us on
//! this VM) that comes before each sleep and so before the worker a pass asked for can start:
//! it lengthened the median context switch by about 2 us here (docs/bench.md). Crediting short
//! stretches their wall time and reading the clock only now and then was tried and dropped: a
//! hole inside a short stretch, credited to the run there, could only be taken back from a
//! later stretch, in another job's segment, which would then lose time it never had. The
//! host's steal is not thread CPU time on this kernel (`CONFIG_PARAVIRT_TIME_ACCOUNTING`).
//!
//! Besides, [`CoreShared::dispatching`] adds:
//! - [`SWITCH_BACK_NS`] for each stretch: the switches and the interrupt no clock of the run
//!   sees (part of the sleep's own system call is also in the next reading: errs towards the
//!   schedule by a microsecond or two);
//! - the time its wake-up came after it was due, when its pass then stopped the job the core
//!   ran ([`Dispatcher::credit_switch_wait`]).
//!
//! A wait for the scheduler's lock held by another core's dispatcher is a sleep too: the
//! stretch ends before it (a reading only when the lock is contended), so that a worker that
//! starts or ends a segment meanwhile reads a whole credit. Its workers read the credit only
//! while it sleeps or waits so. A request made during a pass reads it without that pass: the
//! requested worker's start then takes all of the pass out of its lateness, not only what
//! followed the request, which errs towards the schedule.
//!
//! One case still counts on neither side: a late wake-up whose pass stops the running job
//! excuses that job (the time after it was due was not its own), but the job it starts is
//! timed from its request, after the hole, and the late wake-up, a stall of its core, is cut
//! where the stopped job's segment covers it ([`crate::attribution`]'s `own`).
//!
//! [`CoreShared::dispatching`]: super::super::shared::CoreShared::dispatching

use super::super::scheduler::Scheduler;
use super::super::shared::SWITCH_BACK_NS;
use super::Dispatcher;
use kairos_os::clock;
use std::sync::atomic::Ordering;
use std::sync::{MutexGuard, TryLockError};

impl<'a> Dispatcher<'a> {
    /// Ends a stretch awake: its CPU time since the last one ended, and its switches, are
    /// credited.
    pub(super) fn end_stretch(&mut self) {
        let cpu = clock::thread_cpu_ns();
        let used = cpu.saturating_sub(self.cpu_read);
        self.cpu_read = cpu;
        let core = &self.shared.cores[self.core];
        (core.dispatching).fetch_add(used + SWITCH_BACK_NS, Ordering::SeqCst);
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
    /// this one (module documentation). A poisoned lock means a dispatcher panicked: its state
    /// is still the last whole pass.
    pub(super) fn lock_scheduler(&mut self) -> MutexGuard<'a, Scheduler> {
        let scheduler = &self.shared.scheduler;
        match scheduler.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                self.end_stretch();
                scheduler.lock().unwrap_or_else(|p| p.into_inner())
            }
        }
    }
}
