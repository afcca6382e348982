//! Preconditions of the real-time tests, stated so that a test never passes without running.
//!
//! Every test that needs real-time scheduling is `#[ignore = "needs real-time privilege ..."]`:
//! a plain `cargo test` lists it as ignored, never as passed. The README's test command and CI
//! pass `--include-ignored`; there a missing precondition fails the test with what is missing.

use kairos_os::{online_cpus, privilege};

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
