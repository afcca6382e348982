//! The two waits every dispatched run shares (the table runtime and the user-space
//! dispatcher): a thread waiting for the run's common origin, and a worker parked on its
//! parking word until its dispatcher asks for a run. Both are bounded futex sleeps, so a stop
//! request is seen within one step even if no wake comes.

use crate::watchdog::RunControl;
use kairos_os::{clock, futex};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Worker parking word values, as both runtimes use them: the dispatcher sets [`RUN`] to start
/// an activation and [`PARK`] to stop it, the worker acknowledges a start by swapping [`RUN`]
/// for [`RUNNING`], and [`EXIT`] ends the worker.
pub const PARK: u32 = 0;
pub const RUN: u32 = 1;
pub const EXIT: u32 = 2;
pub const RUNNING: u32 = 3;

/// Longest wait for the origin without looking at the stop flag.
const ORIGIN_STEP_NS: u64 = 20_000_000;
/// Longest park without looking at the stop flag.
const PARK_STEP_NS: u64 = 50_000_000;

/// Waits until `origin` (CLOCK_MONOTONIC of time 0, published with a wake on `gate`) is set;
/// `None` if the run was abandoned before it started.
pub fn wait_for_origin(origin: &AtomicU64, gate: &AtomicU32, control: &RunControl) -> Option<u64> {
    loop {
        let at = origin.load(Ordering::Acquire);
        if at != 0 {
            return Some(at);
        }
        if control.should_stop() {
            return None;
        }
        futex::wait_until(gate, 0, clock::now_ns() + ORIGIN_STEP_NS);
    }
}

/// Waits until `go` is [`RUN`]; false on [`EXIT`] or a stop of the run.
pub fn park(go: &AtomicU32, control: &RunControl) -> bool {
    loop {
        match go.load(Ordering::Acquire) {
            RUN => return true,
            EXIT => return false,
            state => {
                if control.should_stop() {
                    return false;
                }
                futex::wait_until(go, state, clock::now_ns() + PARK_STEP_NS);
            }
        }
    }
}
