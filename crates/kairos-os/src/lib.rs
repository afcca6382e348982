//! # kairos-os
//!
//! Safe wrappers over the Linux mechanisms kairos needs (docs/run.md says what the runtime
//! takes from each): for the runtime (`kairos-rt`) and for the platform tools (`kairos-platform`). This is the workspace's only crate with `unsafe` code:
//! every block has a `SAFETY:` comment saying why it is sound (clippy's
//! `undocumented_unsafe_blocks` holds it to that), each wrapper keeps its invariants behind a
//! safe signature, and every other crate's library (and the `kairos` binary) forbids
//! `unsafe_code`. The calls go through the `libc` crate, which kairos already depended on;
//! where the C call itself is what is measured (the OS-latency suite's services), the wrapper
//! makes exactly that call.
//!
//! For the runtime:
//! - [`thread`]: threads created with an explicit policy, priority and affinity.
//! - [`sched`]: policies of existing threads (FIFO, OTHER, DEADLINE), affinity, thread scans.
//! - [`clock`]: the monotonic and thread CPU-time clocks, absolute sleeps, the clock tick.
//! - [`futex`]: futex waits with an absolute CLOCK_MONOTONIC deadline, and wakes.
//! - [`memory`]: `mlockall` and stack prefaulting.
//! - [`dma`]: the `/dev/cpu_dma_latency` PM-QoS guard.
//! - [`privilege`]: whether real-time scheduling is allowed here, and why not.
//! - [`signals`]: SIGINT/SIGTERM turned into a stop flag.
//! - [`scratch`]: private temporary folders, and those of killed runs removed.
//! - [`spin`]: the busy loop of calibrated work, aligned in every build.
//!
//! For the platform tools:
//! - [`process`]: children confined to a CPU, cgroups and a process group; group signals.
//! - [`services`]: the one-process OS services the latency suite times, one call each.
//! - [`echo`]: two-process round trips through pipes, sockets and FIFOs.
//! - [`perf`]: software perf events opened and closed (the kernel static keys they switch).
//!
//! For tests (feature `alloc-count`): `alloc_count`, a global allocator counting each thread's
//! allocations.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc-count")]
pub mod alloc_count;
pub mod clock;
pub mod dma;
pub mod echo;
pub mod futex;
pub mod memory;
pub mod perf;
pub mod privilege;
pub mod process;
pub mod sched;
pub mod scratch;
pub mod services;
pub mod signals;
pub mod spin;
pub mod thread;

use thiserror::Error;

/// Priorities the runtime uses, highest first. The watchdog is above everything it guards.
/// The ladder is here, below its users, because [`privilege`] checks `RLIMIT_RTPRIO` against
/// its top and the platform tools (the manager, the latency suite) place threads on it too.
pub mod priority {
    /// The watchdog: above every runtime thread so a spinning one cannot starve it.
    pub const WATCHDOG: i32 = 99;
    /// The per-core stall watchers of a run: above every thread of the run, so the time they
    /// lose is time the run's threads could not have had either.
    pub const STALL_WATCH: i32 = 98;
    /// Per-core dispatchers of the user-space dispatcher (and the table-driven runtime on it).
    pub const DISPATCHER: i32 = 97;
    /// The most important worker of a fixed-priority run; less important ones count down.
    pub const WORKER_MAX: i32 = 89;
    /// The resource manager's thread, above the RT task it measures so that an overrunning
    /// job cannot keep it from acting.
    pub const MANAGER: i32 = 90;
    /// The timer-latency probe, as cyclictest's `-p 80`; also the managed RT task.
    pub const PROBE: i32 = 80;
    /// The least important real-time priority.
    pub const MIN: i32 = 1;
}

/// A platform call that failed, with what to do about it.
#[derive(Debug, Error)]
pub enum PlatformError {
    /// Real-time scheduling is not allowed for this process (exit 3 in the CLI).
    #[error("{0}")]
    NoPrivilege(String),
    /// SCHED_DEADLINE admission control refused a thread.
    #[error("{0}")]
    DeadlineRefused(String),
    /// A measurement stopped by SIGINT/SIGTERM or its control before it finished.
    #[error("interrupted before the measurement finished")]
    Interrupted,
    /// Any other failing system call.
    #[error("{op} failed: {source}")]
    Os {
        op: &'static str,
        source: std::io::Error,
    },
}

impl PlatformError {
    pub(crate) fn os(op: &'static str, errno: i32) -> Self {
        PlatformError::Os {
            op,
            source: std::io::Error::from_raw_os_error(errno),
        }
    }

    pub(crate) fn last_os(op: &'static str) -> Self {
        PlatformError::Os {
            op,
            source: std::io::Error::last_os_error(),
        }
    }

    /// True when the failure is about the environment (privilege, limits), not the input.
    pub fn is_environment(&self) -> bool {
        matches!(
            self,
            PlatformError::NoPrivilege(_) | PlatformError::DeadlineRefused(_)
        )
    }
}

/// The CPUs this process may run on (its affinity at start-up), ascending.
pub fn online_cpus() -> Vec<usize> {
    match sched::affinity_of(0) {
        Ok(cpus) if !cpus.is_empty() => cpus,
        _ => (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect(),
    }
}
