//! Preconditions of the real-time tests, stated so that a test never passes without running.
//!
//! Every test that needs real-time scheduling is `#[ignore = "needs real-time privilege ..."]`:
//! a plain `cargo test` lists it as ignored, never as passed. The README's test command and CI
//! pass `--include-ignored`; there a missing precondition fails the test with what is missing.

// Each test binary uses a part of these.
#![allow(dead_code)]

pub mod table;

use kairos_model::{Duration, Instant};
use kairos_os::{online_cpus, privilege, sched};
use kairos_rt::measure::RunResult;
use kairos_rt::stalls::Stall;
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// Says why a real run runs again, with the host's evidence, on the process's standard error
/// itself: the test harness captures `println!` and `eprintln!` of a test that passes, and a
/// rerun must show in the log of every run, passing or not.
pub fn tell_rerun(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// One test binary's turn at the CPUs: the real-time tests share them, the process-wide signal
/// disposition, and the process's thread list.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Panics, listing them, if real-time threads of this process outlived a run.
pub fn assert_no_rt_thread_left() {
    let left = sched::rt_threads_of_self();
    assert!(
        left.is_empty(),
        "real-time threads left after the run: {left:?}"
    );
}

/// Panics, naming what is missing, unless SCHED_FIFO threads can be created here.
pub fn require_rt() {
    if let Err(e) = privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
}

/// Panics unless this machine has at least `cpus` online CPUs.
pub fn require_cpus(cpus: usize) {
    let online = online_cpus().len();
    assert!(
        online >= cpus,
        "this test needs {cpus} online CPUs, this machine has {online}"
    );
}

/// The stalls of a run on any of its cores overlapping `[from, to)` (ns since its start).
pub fn stalls_over(result: &RunResult, from: u64, to: u64) -> Vec<Stall> {
    let (from, to) = (Instant::from_nanos(from), Instant::from_nanos(to));
    (result.stall_intervals.iter())
        .filter(|s| s.overlaps(from, to))
        .copied()
        .collect()
}

/// Whether the hypervisor reported steal time on a CPU of the run.
pub fn stole(result: &RunResult) -> bool {
    (result.stalls.iter()).any(|c| c.steal.is_some_and(|s| !s.is_zero()))
}

/// The evidence that the host took time from a run, in text: `stalls` and each CPU's totals
/// and steal.
pub fn lost_time(result: &RunResult, stalls: &[Stall]) -> String {
    let ms = |d: Duration| d.as_millis_f64();
    let mut text: Vec<String> = (stalls.iter())
        .map(|s| {
            format!(
                "stall of {:.3} ms on core {} at {:.3} ms ({:.3} ms held by other threads)",
                ms(s.length),
                s.core,
                s.start.since_origin().as_millis_f64(),
                ms(s.held)
            )
        })
        .collect();
    for c in &result.stalls {
        let steal = c
            .steal
            .map_or("unknown".into(), |s| format!("{:.0} ms", ms(s)));
        text.push(format!(
            "CPU {}: {} stall(s), {:.3} ms in all, steal {steal}",
            c.cpu,
            c.count,
            ms(c.total)
        ));
    }
    text.join("; ")
}
