//! Memory follows the number of intervals and jobs, not hyper-period x cores.
//!
//! A global allocator wrapping the system one counts live and peak heap bytes per thread (tests
//! run in parallel threads; synthesis allocates on the calling thread only). The same system is
//! synthesized on its own grid and on a grid 1000 times finer (every time scaled by 1000, plus a
//! one-slot task): hyper-period x cores grows 1000 times, the peak heap must not.

mod common;

use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{mcdag_xml, Dag, Duration, McSystem, McTask};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note(grow: usize, shrink: usize) {
    let _ = LIVE.try_with(|live| {
        let now = (live.get() + grow).saturating_sub(shrink);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters only record
// sizes and never touch the memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size(), 0);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(0, layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size(), 0);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size, layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Peak heap bytes above the starting level while running `f`.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get) - base)
}

/// `system` with every time multiplied by `factor` and a one-millisecond task added in its own
/// DAG (period = the scaled hyper-period), so one slot stays 1 ms while the hyper-period grows.
fn refined(system: &McSystem, factor: u64) -> McSystem {
    let scale = |d: Duration| Duration::from_nanos(d.as_nanos() * factor);
    let mut out = system.clone();
    for dag in &mut out.dags {
        dag.period = scale(dag.period);
        dag.deadline = scale(dag.deadline);
        for task in &mut dag.tasks {
            task.wcet.iter_mut().for_each(|w| *w = scale(*w));
        }
    }
    let hyperperiod = out.hyperperiod().unwrap();
    out.dags.push(Dag {
        name: "tick".into(),
        period: hyperperiod,
        deadline: hyperperiod,
        tasks: vec![McTask {
            name: "t".into(),
            wcet: vec![Duration::from_millis(1)],
        }],
        edges: vec![],
    });
    out
}

#[test]
fn peak_heap_does_not_follow_the_hyperperiod() {
    let text = include_str!("../../../examples/mcdag/xml/test-6-8.xml");
    let system = mcdag_xml::import(text, Duration::from_millis(1))
        .system
        .unwrap();
    let options = SynthOptions {
        cores: Some(8),
        ..SynthOptions::default()
    };
    let (coarse, coarse_peak) = peak_of(|| synthesize(&system, &options).unwrap());
    let fine_system = refined(&system, 1000);
    let (fine, fine_peak) = peak_of(|| synthesize(&fine_system, &options).unwrap());
    assert_eq!(fine.slot, Duration::from_millis(1));
    assert_eq!(fine.tables.hyperperiod, coarse.tables.hyperperiod * 1000);
    assert!(common::violations(&fine_system, &fine.tables).is_empty());
    let grid_cells = fine.tables.hyperperiod / 1_000_000 * 8;
    println!(
        "coarse: {} intervals, peak {coarse_peak} B; fine: {} intervals, {grid_cells} slot-cores, peak {fine_peak} B",
        coarse.tables.interval_count(),
        fine.tables.interval_count()
    );
    // 1000 times the slots: the heap grows with the intervals, far less than the grid.
    let interval_ratio =
        fine.tables.interval_count() as f64 / coarse.tables.interval_count() as f64;
    assert!((fine_peak as f64) < 2.0 * interval_ratio * coarse_peak as f64);
    assert!(
        (fine_peak as u64) < grid_cells,
        "a byte per slot-core would be {grid_cells} B"
    );
}
