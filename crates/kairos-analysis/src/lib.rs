//! # kairos-analysis
//!
//! Schedulability tests for sporadic tasks (C, D, T) in integer nanoseconds on `m` identical
//! cores. Every test is its own module with one entry point returning a [`Verdict`]; its doc
//! comment cites the paper and equations it implements. Tests are pure: tasks in, verdict out.
#![forbid(unsafe_code)]

pub mod csa;
pub mod gedzl;
pub mod global_edf;
pub mod global_fp;
pub mod partition;
pub mod registry;
pub mod rmwp;
pub mod uniprocessor;

/// The unit tests' seeded source of random cases (xorshift64): `next(n)` is in `[0, n)`.
/// `seed` must not be 0.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

use serde::Serialize;

/// A sporadic task as the analysis sees it, in integer nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SporadicTask {
    /// Worst-case execution time C.
    pub wcet: u64,
    /// Relative deadline D.
    pub deadline: u64,
    /// Period or minimum inter-arrival time T.
    pub period: u64,
    /// For an imprecise task, its wind-up part `w` (then `wcet` is `m + w`); 0 for a plain
    /// task. Only the RMWP tests ([`rmwp`]) read it.
    pub windup: u64,
}

impl SporadicTask {
    pub const fn new(wcet: u64, deadline: u64, period: u64) -> Self {
        SporadicTask {
            wcet,
            deadline,
            period,
            windup: 0,
        }
    }

    /// An imprecise task: mandatory `m`, wind-up `w` (its optional part is no demand).
    pub const fn imprecise(mandatory: u64, windup: u64, deadline: u64, period: u64) -> Self {
        SporadicTask {
            wcet: mandatory + windup,
            deadline,
            period,
            windup,
        }
    }
    /// C / T, for bounds and heuristics.
    pub fn utilization(&self) -> f64 {
        self.wcet as f64 / self.period as f64
    }
    /// C / min(D, T).
    pub fn density(&self) -> f64 {
        self.wcet as f64 / self.deadline.min(self.period) as f64
    }
}

/// Converts the model's tasks (durations in ns) into analysis tasks.
pub fn tasks_of(workload: &kairos_model::Workload) -> Vec<SporadicTask> {
    workload
        .tasks
        .iter()
        .map(|t| SporadicTask {
            windup: t.imprecise.map_or(0, |p| p.windup.as_nanos()),
            ..SporadicTask::new(
                t.wcet.as_nanos(),
                t.deadline.as_nanos(),
                t.period.as_nanos(),
            )
        })
        .collect()
}

/// The answer of one test on one task set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub schedulable: bool,
    /// Response-time bounds per task (same order as the input), where the test computes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_times: Option<Vec<u64>>,
    /// The first task (input index) the test could not show schedulable, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing_task: Option<usize>,
    /// For partitioning: the core of each task, when every task fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<Vec<usize>>,
    /// For the RMWP tests: the relative optional deadline of each task (its deadline for a
    /// plain task, which has no wind-up to wait for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optional_deadlines: Option<Vec<u64>>,
}

impl Verdict {
    pub fn yes() -> Self {
        Verdict {
            schedulable: true,
            response_times: None,
            failing_task: None,
            mapping: None,
            optional_deadlines: None,
        }
    }
    pub fn no(failing_task: Option<usize>) -> Self {
        Verdict {
            schedulable: false,
            response_times: None,
            failing_task,
            mapping: None,
            optional_deadlines: None,
        }
    }
    pub fn with_response_times(mut self, r: Vec<u64>) -> Self {
        self.response_times = Some(r);
        self
    }
}
