//! Preconditions of the real-time tests, stated so that a test never passes without running.
//!
//! Every test that needs real-time scheduling is `#[ignore = "needs real-time privilege ..."]`:
//! a plain `cargo test` lists it as ignored, never as passed. The README's test command and CI
//! pass `--include-ignored`; there a missing precondition fails the test with what is missing.

// Each test binary uses a part of these.
#![allow(dead_code)]

use kairos_os::{online_cpus, privilege, sched};
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

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
