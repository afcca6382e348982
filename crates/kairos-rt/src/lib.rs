//! # kairos-rt
//!
//! Runs workloads for real on this machine's cores: real threads with explicit
//! policy and affinity, calibrated busy work, table-driven global dispatch (G-RES) and lock-free
//! mode changes (G-MCRES, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", Algorithms 1 and 2), measured as in
//! that paper's section 7 (release latency, response time, migration and mode-change parts).
//!
//! Every call into the operating system goes through `kairos-os`, the workspace's only crate
//! with `unsafe` code; this crate forbids it, so a mistake here is a wrong schedule, never
//! undefined behaviour. The platform tools (OS-latency suite, stressors, core partitions, the
//! resource manager) are in `kairos-platform`, which builds on this runtime's measurements and
//! watchdog.
//!
//! Layers, bottom up (`kairos-os` below them all):
//! - [`sync`], [`handoff`], [`doorbell`]: the lock-free migration hand-off and the dispatchers'
//!   doorbells, model checked with loom.
//! - [`calibrate`]: per-core calibrated busy work and per-job user commands.
//! - [`measure`]: HDR histograms, job records, the run result and its trace.
//! - [`stalls`], [`attribution`]: the time taken from each core during a run (the host's, or
//!   a thread above the run's), and each deadline miss attributed to the host or the schedule.
//! - [`watchdog`]: bounded runs, stop on SIGINT/SIGTERM, demotion of stuck threads.
//! - [`parking`]: the bounded futex waits every dispatched run shares.
//! - [`probe`]: the timer-latency probe (cyclictest's quantity).
//! - [`periodic`]: periodic and sporadic task sets under partitioned/global FIFO or
//!   SCHED_DEADLINE, scheduled by the kernel.
//! - [`dispatcher`]: the user-space dispatcher, running any contract policy on real cores.
//! - [`table`]: the table-driven MC-DAG runtime on that dispatcher, and its benches.

#![forbid(unsafe_code)]

pub mod attribution;
pub mod calibrate;
pub mod dispatcher;
pub mod doorbell;
pub mod handoff;
pub mod measure;
pub mod parking;
pub mod periodic;
pub mod probe;
pub mod stalls;
pub mod sync;
pub mod table;
pub mod watchdog;
