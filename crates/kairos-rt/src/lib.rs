//! # kairos-rt
//!
//! Runs workloads for real on this machine's cores: real threads with explicit
//! policy and affinity, calibrated busy work, table-driven global dispatch (G-RES) and lock-free
//! mode changes (G-MCRES, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", Algorithms 1 and 2), measured as in
//! that paper's section 7 (release latency, response time, migration and mode-change parts).
//!
//! Layers, bottom up:
//! - [`platform`]: the only `unsafe` code: pthreads with explicit policy and affinity,
//!   `sched_setattr`, clocks, futexes, `mlockall`, `/dev/cpu_dma_latency`, privilege checks,
//!   signals.
//! - [`calibrate`]: per-core calibrated busy work and per-job user commands.
//! - [`measure`]: HDR histograms, job records, the run result and its trace.
//! - [`watchdog`]: bounded runs, stop on SIGINT/SIGTERM, demotion of stuck threads.
//! - [`probe`]: the timer-latency probe (cyclictest's quantity).
//! - [`periodic`]: periodic and sporadic task sets under partitioned/global FIFO or
//!   SCHED_DEADLINE.

pub mod calibrate;
pub mod dispatcher;
pub mod fit;
pub mod handoff;
pub mod manage;
pub mod measure;
pub mod oslat;
pub mod parking;
pub mod partition;
pub mod periodic;
pub mod platform;
pub mod probe;
pub mod stress;
pub mod sync;
pub mod table;
pub mod watchdog;
