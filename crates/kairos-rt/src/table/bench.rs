//! The measurements of Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 7 on this machine, as library
//! functions `kairos bench migration | mode-change | cyclic` print and plot:
//!
//! - [`raw_floor`]: what moving a thread to the other CPU costs with the two mechanisms a
//!   user-space runtime could use, a futex wake of a thread pinned there and a
//!   `sched_setaffinity` of the caller (`linux-platform.md`, "Physical limits"), measured the
//!   same way as the runtime's migrations: from the decision to the thread running there;
//! - [`migration`]: one task alternating between two cores at every window boundary
//!   (section 7.2's single migrating task, here with instantaneous migrations);
//! - [`mode_change_point`]: figure 8, the mode change time for a number of tasks, one overrun
//!   per hyper-period, with its parts and each core's rescheduling delay (section 7.1, 7.2);
//! - [`cyclic_point`]: figures 10-11, `n` tasks on `n` cores, every task moving to the next
//!   core at every window (section 7.3): time per migration and in total per window.

use super::result::reschedule_delay_name;
pub use super::result::MODE_CHANGE_TOTAL;
use super::{run_tables_detailed, scenarios, TableRun, TableRunConfig};
/// A migration end to end: from the boundary (the promised switch's instant) to the job
/// running on its new core.
pub use crate::dispatcher::MIGRATION_REQUEST_TO_START as MIGRATION_TOTAL;
use crate::dispatcher::TIMER_TO_HANDLER;
use crate::measure::{names, Distribution, Summary};
use crate::periodic::RunError;
use kairos_os::{clock, dma, futex, memory, priority, sched, thread, PlatformError};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Gap between two floor samples, so the woken side is really asleep again.
const FLOOR_GAP_NS: u64 = 200_000;

/// The raw cost of moving execution to another CPU.
#[derive(Clone, Debug)]
pub struct Floor {
    /// Waker's timestamp before `FUTEX_WAKE` to the wakee's first timestamp on the other CPU.
    pub futex_wake: Distribution,
    /// Timestamp before `sched_setaffinity(self, {other CPU})` to the one after it returns
    /// there.
    pub setaffinity: Distribution,
    pub dma_latency_held: bool,
}

/// Measures [`Floor`] between CPUs `a` and `b` with `samples` samples each, at SCHED_FIFO
/// priority 80 (cyclictest's).
pub fn raw_floor(a: usize, b: usize, samples: usize) -> Result<Floor, RunError> {
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let futex_wake = futex_floor(a, b, samples)?;
    let setaffinity = thread::spawn(
        thread::ThreadSpec::fifo("kairos-floor", priority::PROBE, vec![a]),
        move || affinity_floor(a, b, samples),
    )?
    .join()??;
    Ok(Floor {
        futex_wake,
        setaffinity,
        dma_latency_held: dma.held(),
    })
}

fn futex_floor(a: usize, b: usize, samples: usize) -> Result<Distribution, PlatformError> {
    let word = Arc::new(AtomicU32::new(0));
    let woke_at = Arc::new(AtomicU64::new(0));
    let acked = Arc::new(AtomicU32::new(0));
    let (w, t, k) = (word.clone(), woke_at.clone(), acked.clone());
    let waiter = thread::spawn(
        thread::ThreadSpec::fifo("kairos-floor-w", priority::PROBE, vec![b]),
        move || {
            let mut seen = 0;
            loop {
                let value = w.load(Ordering::Acquire);
                if value == seen {
                    futex::wait_until(&w, seen, clock::now_ns() + 100_000_000);
                    continue;
                }
                t.store(clock::now_ns(), Ordering::Release);
                k.store(value, Ordering::Release);
                if value == u32::MAX {
                    return;
                }
                seen = value;
            }
        },
    )?;
    let waker = thread::spawn(
        thread::ThreadSpec::fifo("kairos-floor-s", priority::PROBE, vec![a]),
        move || {
            let mut d = Distribution::new();
            for i in 1..=samples as u32 {
                clock::sleep_until(clock::now_ns() + FLOOR_GAP_NS);
                let before = clock::now_ns();
                word.store(i, Ordering::Release);
                futex::wake(&word);
                let give_up = before + 100_000_000;
                while acked.load(Ordering::Acquire) != i && clock::now_ns() < give_up {
                    std::hint::spin_loop();
                }
                if acked.load(Ordering::Acquire) == i {
                    d.record(woke_at.load(Ordering::Acquire).saturating_sub(before));
                }
            }
            word.store(u32::MAX, Ordering::Release);
            futex::wake(&word);
            d
        },
    )?;
    let d = waker.join()?;
    waiter.join()?;
    Ok(d)
}

/// Runs on CPU `a`; moves itself to `b` and back, timing each move.
fn affinity_floor(a: usize, b: usize, samples: usize) -> Result<Distribution, PlatformError> {
    let mut d = Distribution::new();
    let mut here = a;
    for _ in 0..samples {
        clock::sleep_until(clock::now_ns() + FLOOR_GAP_NS);
        let there = if here == a { b } else { a };
        let before = clock::now_ns();
        sched::set_affinity(0, &[there])?;
        let after = clock::now_ns();
        if clock::current_cpu() == there {
            d.record(after - before);
        }
        here = there;
    }
    sched::set_affinity(0, &[a])?;
    Ok(d)
}

/// The distributions of one table-driven run that the benches print.
#[derive(Clone, Debug)]
pub struct Figures {
    pub rows: Vec<(String, Summary)>,
    pub run: TableRunSummary,
}

/// Counts of a run that say whether its figures can be trusted.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableRunSummary {
    pub migrations: u64,
    pub mode_changes: u64,
    pub deadline_misses: u64,
    pub overlaps: u64,
    pub dma_latency_held: bool,
}

fn summary_of(run: &TableRun) -> TableRunSummary {
    TableRunSummary {
        migrations: run.result.migrations,
        mode_changes: run.result.mode_changes,
        deadline_misses: run.result.deadline_misses,
        overlaps: run.overlaps,
        dma_latency_held: run.result.dma_latency_held,
    }
}

fn histogram(run: &TableRun, name: &str) -> Summary {
    run.result
        .histograms
        .get(name)
        .map(|h| h.summary)
        .unwrap_or_default()
}

/// One task alternating between table cores 0 and 1 every `window_ns` for `duration_ns`.
pub fn migration(
    window_ns: u64,
    duration_ns: u64,
    base: &TableRunConfig,
) -> Result<Figures, RunError> {
    let (system, tables) = scenarios::cyclic(1, 2, window_ns, 100);
    let mut config = base.clone();
    config.duration_ns = duration_ns;
    let run = run_tables_detailed(&system, &tables, &config)?;
    let rows = [MIGRATION_TOTAL, TIMER_TO_HANDLER]
        .iter()
        .map(|n| (n.to_string(), histogram(&run, n)))
        .collect();
    Ok(Figures {
        rows,
        run: summary_of(&run),
    })
}

/// Figure 8 for `tasks` tasks on `cores` cores: one overrun (task `mc/t0`) per hyper-period
/// for `periods` hyper-periods of [`scenarios::mode_change`] with budgets of `unit_ns`.
pub fn mode_change_point(
    tasks: usize,
    cores: usize,
    unit_ns: u64,
    periods: u64,
    base: &TableRunConfig,
) -> Result<Figures, RunError> {
    let (system, tables) = scenarios::mode_change(tasks, cores, unit_ns);
    let mut config = base.clone();
    config.duration_ns = periods * tables.hyperperiod;
    config.overruns = (0..periods)
        .map(|j| format!("mc/t0@{j}").parse())
        .collect::<Result<_, _>>()
        .map_err(RunError::Invalid)?;
    let run = run_tables_detailed(&system, &tables, &config)?;
    let mut rows: Vec<(String, Summary)> = [
        MODE_CHANGE_TOTAL,
        names::MODE_CHANGE_DETECTION,
        names::MODE_CHANGE_SWITCH_DONE,
        names::MODE_CHANGE_ALL_RESCHEDULED,
    ]
    .iter()
    .map(|n| (n.to_string(), histogram(&run, n)))
    .collect();
    for core in 0..cores {
        let name = reschedule_delay_name(core);
        rows.push((name.clone(), histogram(&run, &name)));
    }
    Ok(Figures {
        rows,
        run: summary_of(&run),
    })
}

/// Name of the per-window total of [`cyclic_point`].
pub const WINDOW_TOTAL: &str = "cyclic.window_total";

/// Figures 10-11 for `cores` tasks on `cores` cores moving every `window_ns`.
pub fn cyclic_point(
    cores: usize,
    window_ns: u64,
    duration_ns: u64,
    base: &TableRunConfig,
) -> Result<Figures, RunError> {
    let (system, tables) = scenarios::cyclic(cores, cores, window_ns, cores as u64);
    let mut config = base.clone();
    config.duration_ns = duration_ns;
    let run = run_tables_detailed(&system, &tables, &config)?;
    let mut rows: Vec<(String, Summary)> = [MIGRATION_TOTAL]
        .iter()
        .map(|n| (n.to_string(), histogram(&run, n)))
        .collect();
    rows.push((
        WINDOW_TOTAL.into(),
        window_totals(&run, cores, window_ns).summary(),
    ));
    Ok(Figures {
        rows,
        run: summary_of(&run),
    })
}

/// Per window boundary `b`, the last task's start after `b` minus `b`: the time until every
/// task runs on its next core (figure 10, "total"). Windows where a task did not run are
/// skipped.
fn window_totals(run: &TableRun, tasks: usize, window_ns: u64) -> Distribution {
    let mut starts: Vec<(u64, usize)> = run
        .result
        .trace
        .segments()
        .map(|(_, task, _, start, _)| (start.as_nanos(), task))
        .collect();
    starts.sort_unstable();
    let mut totals = Distribution::new();
    let end = run.result.duration_ns;
    let mut boundary = window_ns;
    let mut i = 0;
    while boundary < end {
        let mut last: Vec<Option<u64>> = vec![None; tasks];
        while i < starts.len() && starts[i].0 < boundary {
            i += 1;
        }
        let mut j = i;
        while j < starts.len() && starts[j].0 < boundary + window_ns {
            let (at, task) = starts[j];
            last[task].get_or_insert(at);
            j += 1;
        }
        if last.iter().all(Option::is_some) {
            let latest = last.iter().flatten().max().copied().unwrap_or(boundary);
            totals.record(latest - boundary);
        }
        boundary += window_ns;
    }
    totals
}
