//! Lost time per core during a real run: the time a core was taken from the run's threads, as
//! intervals ([`Stall`]), and the steal time the hypervisor reports for each CPU. The noise a
//! workload observes, measured from the workload's side (de Oliveira, Casini, Cucinotta,
//! "Operating System Noise in the Linux Kernel", IEEE Transactions on Computers 72(1), 2023,
//! section 3): on a virtual machine the hypervisor can take a vCPU away for milliseconds, and
//! [`crate::attribution`] uses these intervals to tell a miss the host caused from one the
//! schedule did.
//!
//! **Why a watcher thread.** Each core of the run gets a thread pinned to it at SCHED_FIFO
//! [`kairos_os::priority::STALL_WATCH`], above every thread of the run (dispatchers, workers)
//! and below only the watchdog, that sleeps to absolute instants on a 1 ms grid and records
//! each wake-up later than a floor (`watcher`). Being the most important thread of its core,
//! the only things that can make it late are the ones that would hold up any thread of the
//! run: the hypervisor running something else on the vCPU, the kernel (interrupts, a
//! non-preemptible section), or a thread above the run (the watchdog's few microseconds, RT
//! throttling). So its lateness is exactly the time its core was taken, with the interval,
//! seen the same way under every runtime. The alternative, the dispatcher's own timer
//! lateness, sees holes only when they cover one of its events, and the kernel-dispatched
//! runtime has no dispatcher at all. The cost is one timer wake-up per core per millisecond
//! (measured in `docs/run.md`, "Lost time and misses by cause"). The grid's phase, 0.513 ms
//! after the run's origin, keeps the watcher's wake-ups off the instants of any release or
//! table grid that divides a millisecond (2 us to 500 us steps), where they would delay a
//! dispatcher's pass.
//!
//! **What a stall is and is not.** A stall is `[intended wake-up, actual wake-up)`: a lower
//! bound of the hole (it may have begun up to a period earlier, after the previous wake-up),
//! and a hole shorter than the period may fall between two wake-ups and go unseen; stalls are
//! disjoint per core. The floor, 500 us, is this machine's p99.9 timer lateness at SCHED_FIFO 98
//! (cyclictest: p50 29 us, p99 79 us, p99.9 464 us on the loaded 2-vCPU VM), so ordinary
//! lateness is not counted as lost time. Each stall also says how much of it the watcher was
//! runnable but waiting (`held`: a thread of this machine had the core) — the rest is a late
//! wake-up itself, the vCPU absent. Under SCHED_DEADLINE (`--policy edf`) the run's own
//! threads rank above every FIFO thread, so a watcher there would count the run's jobs as lost
//! time: such cores are not watched, and only their steal is reported.
//!
//! Stalls are kept in a buffer preallocated per watcher ([`StallWatchConfig::capacity`]); past
//! it they are still counted in the totals. Nothing allocates while the run runs.

mod steal;
mod watcher;

use steal::steal_between;
pub use steal::steal_ticks_per_cpu;

use crate::watchdog::{Guarded, Heartbeat, RunControl};
use kairos_model::{Duration, Instant};
use kairos_os::{priority, thread, PlatformError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use watcher::{watch, Watch, WatchLog};

/// Time a core was taken from the run: from `start` (since the run's origin) for `length`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    /// The core, numbered as the run's segments and job records number it.
    pub core: usize,
    pub start: Instant,
    pub length: Duration,
    /// The part of it the watcher was runnable but another thread of this machine held the
    /// core; the rest, its wake-up itself came late.
    pub held: Duration,
    pub seen: Seen,
}

/// What saw a stall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The core's stall watcher, by its own lateness on its grid.
    Watcher,
    /// The core's dispatcher, by a wake-up of its own that came late
    /// (`crate::dispatcher::late`): a hole between the watcher's wake-ups or under its floor.
    Dispatcher,
    /// A worker of the core, by its start that came late after its dispatcher's request
    /// (`crate::dispatcher::late_start`): the hole ends at the job's first instruction.
    Worker,
    /// The attribution, on the path from an optional deadline to its job's wind-up: the holes
    /// recorded there, together, placed on the wind-up's core and ending at its start
    /// (`crate::attribution`'s `windup`). Never in a run's lost time; only a miss it explains
    /// names it.
    Path,
}

impl Stall {
    pub fn end(&self) -> Instant {
        self.start + self.length
    }

    /// Whether it overlaps the half-open window `[from, to)`.
    pub fn overlaps(&self, from: Instant, to: Instant) -> bool {
        self.start < to && self.end() > from
    }
}

/// How the watchers watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StallWatchConfig {
    /// Step of the wake-up grid.
    pub period: Duration,
    /// Offset of the grid from the run's origin.
    pub phase: Duration,
    /// Lateness above which a wake-up is a stall.
    pub floor: Duration,
    /// Stalls each watcher keeps as intervals.
    pub capacity: usize,
}

impl Default for StallWatchConfig {
    /// The values the module documentation explains.
    fn default() -> Self {
        StallWatchConfig {
            period: Duration::from_millis(1),
            phase: Duration::from_micros(513),
            floor: Duration::from_micros(500),
            capacity: 16_384,
        }
    }
}

/// How the run numbers its cores in segments and job records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreNumbers {
    /// By CPU number (the kernel-dispatched runtime).
    Cpu,
    /// By index into the run's CPUs (the user-space dispatcher).
    Index,
}

/// Lost time of one core of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoreLost {
    /// The core as the run's segments number it.
    pub core: usize,
    pub cpu: usize,
    /// Whether a watcher watched it (not under SCHED_DEADLINE).
    pub watched: bool,
    pub count: u64,
    #[serde(rename = "total_ns", serialize_with = "nanos")]
    pub total: Duration,
    #[serde(rename = "largest_ns", serialize_with = "nanos")]
    pub largest: Duration,
    /// Start of the largest stall, since the run's origin.
    #[serde(rename = "largest_at_ns")]
    pub largest_at: Option<Instant>,
    /// The part of the stalls another thread of this machine held the core.
    #[serde(rename = "held_ns", serialize_with = "nanos")]
    pub held: Duration,
    /// Steal time of the CPU from just before the run's start to just after its end; `None`
    /// if `/proc/stat` could not be read.
    #[serde(rename = "steal_ns", serialize_with = "nanos_or_null")]
    pub steal: Option<Duration>,
    /// Stalls counted above but not kept as intervals (the buffer was full).
    pub dropped: u64,
    /// Late wake-ups of the core's dispatcher outside every stall the watcher saw, kept as
    /// stalls of their own ([`Seen::Dispatcher`]), and their total.
    pub late_wakes: u64,
    #[serde(rename = "late_wakes_ns", serialize_with = "nanos")]
    pub late_wake_total: Duration,
    /// Late starts of the core's workers outside every stall seen otherwise, kept as stalls
    /// of their own ([`Seen::Worker`]), and their total.
    pub late_starts: u64,
    #[serde(rename = "late_starts_ns", serialize_with = "nanos")]
    pub late_start_total: Duration,
    /// The CPU time the jobs held there that their calibrated work does not account for,
    /// beyond the run's usual share: the core ran slower than at calibration
    /// ([`crate::attribution::Slowness`]); `None` when the run's workers do not count work in
    /// calibrated units (kernel dispatch).
    #[serde(rename = "slowed_ns", serialize_with = "nanos_or_null")]
    pub slowed: Option<Duration>,
}

fn nanos<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_nanos())
}

fn nanos_or_null<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_u64(d.as_nanos()),
        None => s.serialize_none(),
    }
}

/// The lost time of a whole run: per core in the order of the run's CPUs, and every stall
/// kept, by core then start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LostTime {
    pub cores: Vec<CoreLost>,
    pub stalls: Vec<Stall>,
}

impl LostTime {
    /// Adds the late wake-ups of the dispatchers or the late starts of the workers as stalls,
    /// each that overlaps none kept before it on its core (the watchers' and those added
    /// already): one hole seen twice counts once, and the stalls stay disjoint per core.
    pub fn add_late(&mut self, late: impl IntoIterator<Item = Stall>) {
        for stall in late {
            let seen = (self.stalls.iter())
                .any(|s| s.core == stall.core && s.overlaps(stall.start, stall.end()));
            if seen {
                continue;
            }
            if let Some(core) = self.cores.iter_mut().find(|c| c.core == stall.core) {
                let (count, total) = match stall.seen {
                    Seen::Worker => (&mut core.late_starts, &mut core.late_start_total),
                    _ => (&mut core.late_wakes, &mut core.late_wake_total),
                };
                *count += 1;
                *total += stall.length;
            }
            self.stalls.push(stall);
        }
        self.stalls.sort_by_key(|s| (s.core, s.start));
    }
}

struct Watcher {
    core: usize,
    cpu: usize,
    thread: Option<thread::RtThread<WatchLog>>,
    heartbeat: Arc<Heartbeat>,
}

/// The watchers of a running run; [`StallWatch::stop`] ends them and gives the lost time.
/// Dropped without `stop` (a set-up that failed), the watchers end by themselves.
pub struct StallWatch {
    watchers: Vec<Watcher>,
    stop: Arc<AtomicBool>,
    steal_before: Option<BTreeMap<usize, u64>>,
}

impl StallWatch {
    /// Reads the steal time of `cpus` and, with `watch`, starts a watcher on each, watching
    /// from `origin` to `end` (CLOCK_MONOTONIC ns) or until `control` stops the run.
    pub fn start(
        cpus: &[usize],
        numbers: CoreNumbers,
        (origin, end): (u64, u64),
        watch: Option<StallWatchConfig>,
        control: &Arc<RunControl>,
    ) -> Result<StallWatch, PlatformError> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut watchers = Vec::with_capacity(cpus.len());
        for (index, &cpu) in cpus.iter().enumerate() {
            let core = match numbers {
                CoreNumbers::Cpu => cpu,
                CoreNumbers::Index => index,
            };
            let heartbeat = Arc::new(Heartbeat::default());
            let thread = match watch {
                Some(config) => {
                    let w = Watch {
                        core,
                        origin,
                        end,
                        config,
                    };
                    Some(spawn(cpu, w, &stop, control, &heartbeat)?)
                }
                None => None,
            };
            watchers.push(Watcher {
                core,
                cpu,
                thread,
                heartbeat,
            });
        }
        Ok(StallWatch {
            watchers,
            stop,
            steal_before: steal_ticks_per_cpu(),
        })
    }

    /// The watcher threads, for the watchdog to guard.
    pub fn guarded(&self) -> Vec<Guarded> {
        (self.watchers.iter())
            .filter_map(|w| {
                let t = w.thread.as_ref()?;
                Some(Guarded {
                    name: t.name().to_string(),
                    tid: t.tid(),
                    heartbeat: Arc::clone(&w.heartbeat),
                    child: Arc::new(AtomicI32::new(0)),
                })
            })
            .collect()
    }

    /// Ends the watchers and returns the lost time they saw.
    pub fn stop(mut self) -> LostTime {
        self.stop.store(true, Ordering::SeqCst);
        let after = steal_ticks_per_cpu();
        let cpus: Vec<usize> = self.watchers.iter().map(|w| w.cpu).collect();
        let steal = steal_between(&cpus, self.steal_before.as_ref(), after.as_ref());
        let mut lost = LostTime::default();
        for (w, steal) in self.watchers.iter_mut().zip(steal) {
            let watched = w.thread.is_some();
            let log = (w.thread.take()).and_then(|t| t.join().ok());
            let log = log.unwrap_or_default();
            lost.cores.push(core_lost(w, watched, &log, steal));
            lost.stalls.extend(log.stalls);
        }
        lost
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn spawn(
    cpu: usize,
    w: Watch,
    stop: &Arc<AtomicBool>,
    control: &Arc<RunControl>,
    heartbeat: &Arc<Heartbeat>,
) -> Result<thread::RtThread<WatchLog>, PlatformError> {
    let spec = thread::ThreadSpec::fifo(
        format!("kairos-watch{cpu}"),
        priority::STALL_WATCH,
        vec![cpu],
    );
    let (stop, control) = (Arc::clone(stop), Arc::clone(control));
    let heartbeat = Arc::clone(heartbeat);
    thread::spawn(spec, move || watch(&w, &stop, &control, &heartbeat))
}

fn core_lost(w: &Watcher, watched: bool, log: &WatchLog, steal: Option<Duration>) -> CoreLost {
    CoreLost {
        core: w.core,
        cpu: w.cpu,
        watched,
        count: log.count,
        total: log.total,
        largest: log.largest.map_or(Duration::ZERO, |s| s.length),
        largest_at: log.largest.map(|s| s.start),
        held: log.held,
        steal,
        dropped: log.dropped,
        late_wakes: 0,
        late_wake_total: Duration::ZERO,
        late_starts: 0,
        late_start_total: Duration::ZERO,
        // Known once the workers' segments are merged (`RunResult::build`).
        slowed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(core: usize) -> CoreLost {
        CoreLost {
            core,
            cpu: core,
            watched: true,
            ..CoreLost::default()
        }
    }

    fn stall(core: usize, start_us: u64, length_us: u64, seen: Seen) -> Stall {
        Stall {
            core,
            start: Instant::from_nanos(start_us * 1000),
            length: Duration::from_micros(length_us),
            held: Duration::ZERO,
            seen,
        }
    }

    #[test]
    fn a_hole_seen_before_counts_once_and_late_starts_are_counted_apart() {
        let watched = stall(0, 1_000, 900, Seen::Watcher);
        let mut lost = LostTime {
            cores: vec![core(0), core(1)],
            stalls: vec![watched],
        };
        let wake = stall(1, 500, 200, Seen::Dispatcher);
        lost.add_late([wake, stall(0, 1_500, 300, Seen::Dispatcher)]);
        // Inside the watcher's stall, a worker's late start is the same hole; beside the
        // dispatcher's late wake-up on core 1, one of its own.
        let start = stall(1, 800, 150, Seen::Worker);
        lost.add_late([stall(0, 1_200, 120, Seen::Worker), start]);
        assert_eq!(lost.stalls, vec![watched, wake, start]);
        let counts = |c: &CoreLost| (c.late_wakes, c.late_starts, c.late_start_total);
        assert_eq!(counts(&lost.cores[0]), (0, 0, Duration::ZERO));
        assert_eq!(counts(&lost.cores[1]), (1, 1, Duration::from_micros(150)));
    }
}
