//! # kairos-platform
//!
//! The platform tools: what this Linux machine costs a real-time task and how to keep that
//! cost bounded, as the OS-latency study of Linux PREEMPT_RT for mixed time-criticality
//! measures it and proposes to manage it. They are apart from the runtime (`kairos-rt`), which
//! runs workloads and needs none of them; they use its measurements (distributions) and its
//! watchdog, and call the operating system only through `kairos-os`, the workspace's only crate
//! with `unsafe` code. This crate forbids it.
//!
//! Layers, bottom up:
//! - [`fit`]: straight-line fits with the slope's confidence interval.
//! - [`oslat`]: the OS-latency suite, per-call distributions of twelve OS services.
//! - [`stress`]: stress-ng and kairos's own stressors, bounded and always stopped.
//! - [`partition`]: RT and best-effort core partitions (cpusets, IRQ affinity).
//! - [`manage`]: the resource manager: one RT task, best-effort programs, their bandwidth
//!   adapted from a learned interference model.

#![forbid(unsafe_code)]

pub mod fit;
pub mod manage;
pub mod oslat;
pub mod partition;
pub mod stress;
