//! Safety of real runs (docs/run.md, "Safety"): every run is
//! bounded in time, SIGINT/SIGTERM stop it cleanly, and a watchdog demotes every runtime
//! thread to SCHED_OTHER if one of them stops making progress.
//!
//! The watchdog is a thread at SCHED_FIFO [`priority::WATCHDOG`] (above every worker and
//! dispatcher) allowed on every CPU, waking every [`WatchdogConfig::period_ns`] on an absolute
//! timer. Being the most important FIFO thread is what lets it run while a runtime thread
//! spins: a separate process or a SCHED_OTHER thread would get only the 5 % RT throttling
//! leaves. (SCHED_DEADLINE threads rank above FIFO, but their runtime budget throttles them,
//! so they cannot starve it either.)
//!
//! Progress is a heartbeat counter each guarded thread bumps in its loops. A thread counts as
//! stuck when its heartbeat has not moved while it consumed more than
//! [`WatchdogConfig::stall_ns`] of CPU time (read through its per-thread CPU clock): a thread
//! that is merely preempted or asleep consumes nothing and is left alone, so an overloaded but
//! healthy run is not mistaken for a stuck one. Threads must block only with timeouts, so the
//! stop flag ends every run: the hard stop at duration + grace ends even a run that ignores it
//! by demoting everything and killing per-job child processes.

use kairos_os::{clock, priority, sched, signals, thread, PlatformError};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The stop flag and reason shared by every thread of a run.
#[derive(Debug, Default)]
pub struct RunControl {
    stop: AtomicBool,
    reason: Mutex<Option<String>>,
    /// CLOCK_MONOTONIC time of the first stop request (0 = none).
    stopped_at: AtomicU64,
}

impl RunControl {
    pub fn new() -> Arc<RunControl> {
        Arc::new(RunControl::default())
    }

    /// Asks every thread to stop; the first reason given is kept.
    pub fn request_stop(&self, reason: impl Into<String>) {
        if let Ok(mut slot) = self.reason.lock() {
            slot.get_or_insert_with(|| reason.into());
        }
        let _ = self.stopped_at.compare_exchange(
            0,
            clock::now_ns(),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        self.stop.store(true, Ordering::SeqCst);
    }

    /// CLOCK_MONOTONIC time of the first [`RunControl::request_stop`], if any.
    pub fn stopped_at_ns(&self) -> Option<u64> {
        match self.stopped_at.load(Ordering::SeqCst) {
            0 => None,
            at => Some(at),
        }
    }

    /// Stops without a reason (the normal end of a run: nothing to report).
    pub fn finish(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Why the run was stopped early, if it was.
    pub fn reason(&self) -> Option<String> {
        self.reason.lock().ok()?.clone()
    }
}

/// A progress counter a guarded thread bumps in its loops (a relaxed increment: cheap).
#[derive(Debug, Default)]
pub struct Heartbeat(AtomicU64);

impl Heartbeat {
    pub fn beat(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A thread the watchdog watches and, if needed, demotes.
#[derive(Clone, Debug)]
pub struct Guarded {
    pub name: String,
    pub tid: i32,
    pub heartbeat: Arc<Heartbeat>,
    /// Pid of the per-job child process it waits for (0 = none), killed at a hard stop.
    pub child: Arc<AtomicI32>,
}

/// Timing of the watchdog, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchdogConfig {
    pub period_ns: u64,
    /// CPU time a thread may burn without a heartbeat before everything is demoted.
    pub stall_ns: u64,
    /// CLOCK_MONOTONIC time of the hard stop (duration + grace after the start).
    pub hard_stop_at_ns: u64,
}

impl WatchdogConfig {
    /// Default: a check every 25 ms, a stall after 1 s of CPU without progress, and the hard
    /// stop `grace_ns` after `end_ns`.
    pub fn for_run(end_ns: u64, grace_ns: u64) -> Self {
        WatchdogConfig {
            period_ns: 25_000_000,
            stall_ns: 1_000_000_000,
            hard_stop_at_ns: end_ns + grace_ns,
        }
    }
}

/// The running watchdog; [`Watchdog::stop`] ends it and says whether it had to intervene.
/// Dropped without `stop` (a set-up that failed after starting it), it ends by itself.
pub struct Watchdog {
    thread: Option<thread::RtThread<Option<String>>>,
    shutdown: Arc<AtomicBool>,
    guarded: Arc<Mutex<Vec<Guarded>>>,
}

impl Watchdog {
    /// Starts the watchdog thread (SCHED_FIFO 99 on every CPU).
    pub fn start(
        control: Arc<RunControl>,
        config: WatchdogConfig,
    ) -> Result<Watchdog, PlatformError> {
        let shutdown = Arc::new(AtomicBool::new(false));
        let guarded: Arc<Mutex<Vec<Guarded>>> = Arc::new(Mutex::new(Vec::new()));
        let spec = thread::ThreadSpec::fifo(
            "kairos-watchdog",
            priority::WATCHDOG,
            kairos_os::online_cpus(),
        );
        let (flag, list) = (Arc::clone(&shutdown), Arc::clone(&guarded));
        let thread = thread::spawn(spec, move || watch(&control, &flag, &list, config))?;
        Ok(Watchdog {
            thread: Some(thread),
            shutdown,
            guarded,
        })
    }

    /// Adds a thread to watch.
    pub fn guard(&self, guarded: Guarded) {
        if let Ok(mut list) = self.guarded.lock() {
            list.push(guarded);
        }
    }

    /// Ends the watchdog; returns what it did, if it intervened ("demoted ...").
    pub fn stop(mut self) -> Option<String> {
        self.shutdown.store(true, Ordering::SeqCst);
        self.thread.take()?.join().ok().flatten()
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shutdown.store(true, Ordering::SeqCst);
    }
}

/// Per-thread progress seen at the last heartbeat change.
struct Seen {
    beats: u64,
    cpu_ns: u64,
}

fn watch(
    control: &RunControl,
    shutdown: &AtomicBool,
    guarded: &Mutex<Vec<Guarded>>,
    config: WatchdogConfig,
) -> Option<String> {
    let mut seen: Vec<Seen> = Vec::new();
    let mut next = clock::now_ns();
    let mut intervention = None;
    while !shutdown.load(Ordering::SeqCst) {
        next += config.period_ns;
        clock::sleep_until(next);
        if let Some(signal) = signals::received() {
            control.request_stop(signals::signal_name(signal));
        }
        let Ok(list) = guarded.lock() else { break };
        let verdict = if clock::now_ns() >= config.hard_stop_at_ns {
            Some("hard stop: the run outlived its duration plus grace".to_string())
        } else {
            find_stuck(&list, &mut seen, config.stall_ns)
        };
        if let (Some(why), None) = (verdict, &intervention) {
            demote_all(&list);
            let text = format!(
                "watchdog: {why}; demoted {} thread(s) to SCHED_OTHER",
                list.len()
            );
            control.request_stop(text.clone());
            intervention = Some(text);
        }
    }
    intervention
}

/// The first guarded thread that burned `stall_ns` of CPU without a heartbeat, described.
fn find_stuck(list: &[Guarded], seen: &mut Vec<Seen>, stall_ns: u64) -> Option<String> {
    let mut stuck = None;
    for (i, g) in list.iter().enumerate() {
        let beats = g.heartbeat.count();
        let cpu_ns = clock::thread_cpu_ns_of(g.tid).unwrap_or(0);
        if i == seen.len() {
            seen.push(Seen { beats, cpu_ns });
            continue;
        }
        let s = &mut seen[i];
        if beats != s.beats {
            *s = Seen { beats, cpu_ns };
        } else if cpu_ns.saturating_sub(s.cpu_ns) > stall_ns && stuck.is_none() {
            stuck = Some(format!(
                "thread {} (tid {}) ran {} ms of CPU without progress",
                g.name,
                g.tid,
                (cpu_ns - s.cpu_ns) / 1_000_000
            ));
        }
    }
    stuck
}

/// Demotes every guarded thread to SCHED_OTHER and kills their per-job child processes.
pub fn demote_all(list: &[Guarded]) {
    for g in list {
        // A thread that already ended gives ESRCH: nothing to demote.
        let _ = sched::set_other(g.tid);
        let pid = g.child.load(Ordering::SeqCst);
        if pid > 0 {
            // The slot holds the pid only while the worker waits for it, so it is not reused.
            signals::kill(pid);
        }
    }
}
