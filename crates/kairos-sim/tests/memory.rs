//! Memory does not grow with the simulated duration when no trace is recorded.
//!
//! RSS is not reliable in-process, so this binary counts heap bytes itself: a global allocator
//! wrapping the system one keeps, per thread, the live and the peak live byte count. Tests run in
//! parallel threads, so per-thread counters keep them from seeing each other's allocations (the
//! engine allocates only on the calling thread). Structural properties are checked as well: no
//! trace, fixed-length metrics vectors, and a bounded number of unfinished jobs.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::*;
use kairos_model::{Duration, Workload};
use kairos_policy::PolicyKind;
use kairos_sim::{SimConfig, SimOutcome};

struct CountingAllocator;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(size: usize) {
    // `try_with`: allocations during thread teardown are simply not counted.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + size;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn note_dealloc(size: usize) {
    // Memory freed on another thread than the one that allocated it may underflow; saturate.
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_dealloc(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_dealloc(layout.size());
        note_alloc(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `f` and returns its result with the peak heap bytes it had live at once on this thread
/// beyond what was live before it started.
fn peak_heap_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get) - base)
}

/// A schedulable set on 2 cores, periods in milliseconds: U = 0.5 + 0.45 + 0.3 + 0.25 = 1.5;
/// first-fit puts a and b (0.95, harmonic periods) on core 0 and c and d (0.55) on core 1, and the
/// global policies meet it too (checked below: no misses).
fn schedulable() -> Workload {
    let ms = 1_000; // units are microseconds
    workload(
        2,
        vec![
            task("a", ms / 2, ms, ms, 0),
            task("b", 9 * ms / 10, 2 * ms, 2 * ms, 0),
            task("c", 3 * ms / 2, 5 * ms, 4 * ms, 100),
            task("d", 2_500, 10 * ms, 10 * ms, 0),
        ],
    )
}

/// Releases of periodic tasks over the closed interval [0, duration].
fn periodic_releases(w: &Workload, duration: Duration) -> u64 {
    w.tasks
        .iter()
        .filter(|t| t.offset <= duration)
        .map(|t| (duration - t.offset).as_nanos() / t.period.as_nanos() + 1)
        .sum()
}

fn run_for(
    w: &Workload,
    kind: PolicyKind,
    duration: Duration,
    abort_on_miss: bool,
) -> (SimOutcome, usize) {
    let config = SimConfig {
        duration,
        abort_on_miss,
        ..SimConfig::default()
    };
    peak_heap_during(|| run(w, kind, &config))
}

/// Without a trace, the outcome holds no trace and its metrics vectors have one entry per task
/// and per core, whatever the duration; unfinished jobs stay at most one per task for a
/// schedulable set; and the peak heap of a 10 s run is no larger than that of a 1 s run.
#[test]
fn memory_is_constant_in_the_duration_without_a_trace() {
    let w = schedulable();
    for kind in PolicyKind::ALL {
        let name = kind.cli_name();
        let (short, short_peak) = run_for(&w, kind, Duration::from_secs(1), false);
        let (long, long_peak) = run_for(&w, kind, Duration::from_secs(10), false);
        for outcome in [&short, &long] {
            assert!(
                outcome.trace.is_none(),
                "{name}: trace kept without record_trace"
            );
            assert_eq!(outcome.metrics.tasks.len(), w.tasks.len());
            assert_eq!(outcome.metrics.core_usage.len(), w.cores);
            assert_eq!(
                outcome.metrics.deadline_misses, 0,
                "{name}: the set is schedulable"
            );
            assert!(
                outcome.unfinished_jobs <= w.tasks.len(),
                "{name}: {} unfinished",
                outcome.unfinished_jobs
            );
        }
        // The runs really covered 1 s and 10 s.
        assert_eq!(
            short.metrics.jobs_released,
            periodic_releases(&w, Duration::from_secs(1))
        );
        assert_eq!(
            long.metrics.jobs_released,
            periodic_releases(&w, Duration::from_secs(10))
        );
        assert!(
            long_peak <= short_peak,
            "{name}: peak heap {short_peak} B for 1 s, {long_peak} B for 10 s"
        );
        assert!(
            long_peak < 64 * 1024,
            "{name}: peak heap {long_peak} B for a 4-task set"
        );
    }
}

/// The byte counter can see growth: recording a trace makes the 10 s run's peak heap far larger
/// than the 1 s run's (so the previous test's comparison is not vacuous).
#[test]
fn recorded_traces_do_grow_with_the_duration() {
    let w = schedulable();
    let traced = |duration| {
        let config = SimConfig {
            duration,
            record_trace: true,
            ..SimConfig::default()
        };
        peak_heap_during(|| run(&w, PolicyKind::GlobalEdf, &config)).1
    };
    let short = traced(Duration::from_secs(1));
    let long = traced(Duration::from_secs(10));
    assert!(
        long > 5 * short,
        "trace peak heap {short} B for 1 s, {long} B for 10 s"
    );
}

/// The unfinished-job count is live, not a constant: an overloaded core (U = 1.625) without
/// aborts builds an ever longer backlog, and the heap grows with it (memory is constant in the
/// duration only while the backlog is bounded); with abort_on_miss and D <= T at most one job per
/// task can be pending (the previous one was aborted at its deadline, no later than the release).
#[test]
fn unfinished_jobs_are_bounded_by_aborts_and_grow_without() {
    let w = workload(
        1,
        vec![
            task("a", 3, 4, 4, 0),
            task("b", 6, 8, 7, 1),
            task("c", 1, 8, 8, 2),
        ],
    );
    let (short, short_peak) = run_for(&w, PolicyKind::GlobalEdf, units(1_000), false);
    let (long, long_peak) = run_for(&w, PolicyKind::GlobalEdf, units(10_000), false);
    assert!(short.unfinished_jobs > 10 * w.tasks.len());
    assert!(long.unfinished_jobs > 5 * short.unfinished_jobs);
    assert!(
        long_peak > 2 * short_peak,
        "backlog heap {short_peak} B after 1 ms, {long_peak} B after 10 ms"
    );
    for kind in PolicyKind::ALL {
        let (outcome, _) = run_for(&w, kind, units(10_000), true);
        assert!(outcome.metrics.jobs_aborted > 1_000, "{}", kind.cli_name());
        assert!(
            outcome.unfinished_jobs <= w.tasks.len(),
            "{}: {}",
            kind.cli_name(),
            outcome.unfinished_jobs
        );
    }
}
