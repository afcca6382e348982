//! A run-time resource manager for mixed time-criticality on Linux, as the OS-latency study (a
//! model of intra- and inter-core interference and OS-induced latencies in Linux PREEMPT_RT
//! for mixed time-criticality) proposes in sections III and IV and leaves unbuilt: one RT task
//! on its core, best-effort programs on the others, each core's enforcing period P split into
//! S_RT, S_BE and idle time (equation 2), enforced by the kernel, measured every period, and
//! adapted from a learned linear interference model (equations 3-5).
//!
//! - Partition: the RT core gets its own cpuset ([`crate::partition`]); in constrained
//!   execution the cpuset is also its own scheduling domain, which SCHED_DEADLINE needs to
//!   pin a reservation to one core.
//! - RT enforcement: free execution (figure 1a) runs each job to completion under SCHED_FIFO;
//!   constrained execution (figure 1b) gives the task a SCHED_DEADLINE reservation of S_RT
//!   every P, so a job may span periods (equation 6).
//! - Best-effort enforcement: a CFS quota of S_BE per P per core ([`bandwidth`]).
//! - Measurement and control: [`job`], [`manager`], [`model`], [`control`].
//!
//! Everything set on the machine is recorded in the partition's state file before it is set
//! and undone at the end, on SIGINT/SIGTERM, and by `kairos partition --reset` after a crash.

pub mod bandwidth;
pub mod be;
pub mod chase;
pub mod control;
pub mod job;
pub mod manager;
pub mod model;
mod setup;

pub use setup::{run, ManageConfig, ManageError, ManageOutcome};
