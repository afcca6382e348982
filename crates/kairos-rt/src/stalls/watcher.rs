//! One core's stall watcher: a thread pinned to the core at SCHED_FIFO
//! [`kairos_os::priority::STALL_WATCH`] that sleeps to absolute CLOCK_MONOTONIC instants on a
//! fixed grid and records every wake-up later than the floor as a [`Stall`]. At each wake it
//! also reads its own run delay (`/proc/thread-self/schedstat`, 2nd field: time runnable but
//! not running), so each stall says how much of it the watcher waited for the core while
//! another thread of this machine held it; the rest of the lateness is a late wake-up itself
//! (the vCPU was not running, or the kernel ran with interrupts off).

use super::{Seen, Stall, StallWatchConfig};
use crate::watchdog::{Heartbeat, RunControl};
use kairos_model::{Duration, Instant};
use kairos_os::{clock, memory};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};

/// What one watcher saw: its stalls (up to the buffer's capacity, preallocated) and totals
/// over all of them, kept stalls or not.
#[derive(Clone, Debug, Default)]
pub struct WatchLog {
    pub stalls: Vec<Stall>,
    pub count: u64,
    pub total: Duration,
    pub held: Duration,
    pub largest: Option<Stall>,
    /// Stalls in the totals that the full buffer could not keep.
    pub dropped: u64,
    /// How many stalls the buffer keeps.
    room: usize,
}

impl WatchLog {
    pub fn with_capacity(room: usize) -> Self {
        WatchLog {
            stalls: Vec::with_capacity(room),
            room,
            ..WatchLog::default()
        }
    }

    /// Counts `stall` and keeps it if the buffer has room (never reallocates).
    pub fn record(&mut self, stall: Stall) {
        self.count += 1;
        self.total += stall.length;
        self.held += stall.held;
        if self.largest.is_none_or(|l| stall.length > l.length) {
            self.largest = Some(stall);
        }
        if self.stalls.len() < self.room {
            self.stalls.push(stall);
        } else {
            self.dropped += 1;
        }
    }
}

/// Where one watcher watches: its core's label, the run's origin and end (CLOCK_MONOTONIC).
pub struct Watch {
    pub core: usize,
    pub origin: u64,
    pub end: u64,
    pub config: StallWatchConfig,
}

/// Watches from `origin + phase` until `end`, `stop` or the run's stop (a stall is recorded
/// only if it began before the run stopped), beating `heartbeat` at each wake-up.
pub fn watch(
    w: &Watch,
    stop: &AtomicBool,
    control: &RunControl,
    heartbeat: &Heartbeat,
) -> WatchLog {
    memory::prefault_stack();
    let run_delay = RunDelay::open();
    let mut log = WatchLog::with_capacity(w.config.capacity);
    let period = w.config.period.as_nanos().max(1);
    let floor = w.config.floor.as_nanos();
    let mut next = w.origin + w.config.phase.as_nanos();
    let mut waited = run_delay.read();
    while next < w.end && !stop.load(Ordering::Relaxed) {
        clock::sleep_until(next);
        let now = clock::now_ns();
        heartbeat.beat();
        let waited_now = run_delay.read();
        if control.stopped_at_ns().is_some_and(|at| at <= next) {
            break;
        }
        let late = now.saturating_sub(next);
        if late > floor {
            log.record(Stall {
                core: w.core,
                start: Instant::from_nanos(next - w.origin),
                length: Duration::from_nanos(late),
                held: Duration::from_nanos(waited_now.saturating_sub(waited).min(late)),
                seen: Seen::Watcher,
            });
        }
        waited = waited_now;
        next = next_wake(next, now, period);
    }
    log
}

/// The first instant of the grid through `previous` (step `period`) after `now`: wake-ups a
/// stall swallowed are skipped, so consecutive stalls never overlap.
pub fn next_wake(previous: u64, now: u64, period: u64) -> u64 {
    if now < previous + period {
        return previous + period;
    }
    previous + ((now - previous) / period + 1) * period
}

/// The calling thread's run delay in ns, read through a file opened once (a `pread` per
/// reading, no allocation); 0 where the kernel does not provide it.
struct RunDelay(Option<File>);

impl RunDelay {
    fn open() -> Self {
        RunDelay(File::open("/proc/thread-self/schedstat").ok())
    }

    fn read(&self) -> u64 {
        let mut buffer = [0u8; 96];
        let Some(file) = &self.0 else { return 0 };
        match file.read_at(&mut buffer, 0) {
            Ok(n) => run_delay_of(&buffer[..n]).unwrap_or(0),
            Err(_) => 0,
        }
    }
}

/// The second number of a `schedstat` line ("on-CPU ns, run-delay ns, timeslices").
pub fn run_delay_of(schedstat: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(schedstat).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_wake_skips_the_instants_a_stall_swallowed() {
        // Grid 1000, 2000, ...: on time at 1000, the next is 2000.
        assert_eq!(next_wake(1000, 1010, 1000), 2000);
        // Woken at 3500 for 1000: 2000 and 3000 passed unseen, the next is 4000.
        assert_eq!(next_wake(1000, 3500, 1000), 4000);
        // Exactly on a grid instant: that one passed too.
        assert_eq!(next_wake(1000, 3000, 1000), 4000);
    }

    #[test]
    fn the_run_delay_is_the_second_number() {
        assert_eq!(run_delay_of(b"184877 161312 2\n"), Some(161_312));
        assert_eq!(run_delay_of(b"184877\n"), None);
    }

    fn stall(start: u64, length: u64) -> Stall {
        Stall {
            core: 0,
            start: Instant::from_nanos(start),
            length: Duration::from_nanos(length),
            held: Duration::from_nanos(length / 2),
            seen: Seen::Watcher,
        }
    }

    #[test]
    fn a_full_buffer_drops_stalls_but_counts_them() {
        let mut log = WatchLog::with_capacity(2);
        for (i, length) in [3, 9, 12].into_iter().enumerate() {
            log.record(stall(i as u64 * 100, length));
        }
        assert_eq!(log.count, 3);
        assert_eq!(log.stalls, vec![stall(0, 3), stall(100, 9)]);
        assert_eq!(log.dropped, 1);
        // The dropped one still counts: 3 + 9 + 12, held halves 1 + 4 + 6, largest 12.
        assert_eq!(log.total, Duration::from_nanos(24));
        assert_eq!(log.held, Duration::from_nanos(11));
        assert_eq!(log.largest, Some(stall(200, 12)));
    }
}
