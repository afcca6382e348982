//! # kairos-analysis
//!
//! Schedulability tests for sporadic tasks (C, D, T) on `m` identical cores. The API takes and
//! returns the model's [`kairos_model::Duration`]; inside, the tests compute on integer
//! nanoseconds. Every test is its own module with one entry point returning a [`Verdict`]; its doc
//! comment cites the paper and equations it implements. Tests are pure: tasks in, verdict out.
#![forbid(unsafe_code)]

pub mod csa;
pub mod gedzl;
pub mod global_edf;
pub mod global_fp;
pub mod overheads;
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

/// A verdict's list of durations as nanoseconds, for the unit tests' integer expectations.
#[cfg(test)]
pub(crate) fn nanos_of(list: &Option<Vec<Duration>>) -> Option<Vec<u64>> {
    list.as_ref()
        .map(|l| l.iter().map(|d| d.as_nanos()).collect())
}

/// A task of `(C, D, T)` nanoseconds, for the unit tests' small integer cases.
#[cfg(test)]
pub(crate) const fn task_ns(wcet: u64, deadline: u64, period: u64) -> SporadicTask {
    SporadicTask::new(
        kairos_model::Duration::from_nanos(wcet),
        kairos_model::Duration::from_nanos(deadline),
        kairos_model::Duration::from_nanos(period),
    )
}

use kairos_model::Duration;
use serde::Serialize;

mod nanos;

/// A sporadic task as the analysis sees it. The algorithms compute on its parameters as
/// integer nanoseconds (`wcet_ns()` and the like), exactly, in `u64`/`u128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SporadicTask {
    /// Worst-case execution time C.
    #[serde(serialize_with = "nanos::one")]
    pub wcet: Duration,
    /// Relative deadline D.
    #[serde(serialize_with = "nanos::one")]
    pub deadline: Duration,
    /// Period or minimum inter-arrival time T.
    #[serde(serialize_with = "nanos::one")]
    pub period: Duration,
    /// For an imprecise task, its wind-up part `w` (then `wcet` is `m + w`); zero for a plain
    /// task. Only the RMWP tests ([`rmwp`]) read it.
    #[serde(serialize_with = "nanos::one")]
    pub windup: Duration,
    /// For an imprecise task, the relative optional deadline its workload gives (`None`: the
    /// RMWP tests compute it). Only the RMWP tests read it: they use it when it is at most their
    /// safe bound, and reject the set when it is later.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "nanos::option"
    )]
    pub optional_deadline: Option<Duration>,
    /// The core the workload binds the task to (its `core`), if any. Only the partitioning
    /// tests read it: they place a bound task on its core before the heuristic places the
    /// others, as kairos's partitioned policies run it, and refuse the set when that core does
    /// not admit it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<usize>,
}

impl SporadicTask {
    pub const fn new(wcet: Duration, deadline: Duration, period: Duration) -> Self {
        SporadicTask {
            wcet,
            deadline,
            period,
            windup: Duration::ZERO,
            optional_deadline: None,
            core: None,
        }
    }

    /// An imprecise task: mandatory `m`, wind-up `w` (its optional part is no demand).
    pub fn imprecise(
        mandatory: Duration,
        windup: Duration,
        deadline: Duration,
        period: Duration,
    ) -> Self {
        SporadicTask {
            wcet: mandatory + windup,
            deadline,
            period,
            windup,
            optional_deadline: None,
            core: None,
        }
    }

    /// C / T, for bounds and heuristics.
    pub fn utilization(&self) -> f64 {
        self.wcet_ns() as f64 / self.period_ns() as f64
    }
    /// C / min(D, T).
    pub fn density(&self) -> f64 {
        self.wcet_ns() as f64 / self.deadline_ns().min(self.period_ns()) as f64
    }

    /// C in nanoseconds, for the algorithms' integer arithmetic.
    pub(crate) const fn wcet_ns(&self) -> u64 {
        self.wcet.as_nanos()
    }
    /// D in nanoseconds.
    pub(crate) const fn deadline_ns(&self) -> u64 {
        self.deadline.as_nanos()
    }
    /// T in nanoseconds.
    pub(crate) const fn period_ns(&self) -> u64 {
        self.period.as_nanos()
    }
    /// w in nanoseconds.
    pub(crate) const fn windup_ns(&self) -> u64 {
        self.windup.as_nanos()
    }
}

/// Converts the model's tasks into analysis tasks.
pub fn tasks_of(workload: &kairos_model::Workload) -> Vec<SporadicTask> {
    workload
        .tasks
        .iter()
        .map(|t| SporadicTask {
            windup: t.imprecise.map_or(Duration::ZERO, |p| p.windup),
            optional_deadline: t.imprecise.and_then(|p| p.optional_deadline),
            core: t.core.map(|c| c.0),
            ..SporadicTask::new(t.wcet, t.deadline, t.period)
        })
        .collect()
}

/// The nanoseconds the integer algorithms computed, as durations.
pub(crate) fn durations(nanos: Vec<u64>) -> Vec<Duration> {
    nanos.into_iter().map(Duration::from_nanos).collect()
}

/// The answer of one test on one task set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub schedulable: bool,
    /// Response-time bounds per task (same order as the input), where the test computes them.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "nanos::some_list"
    )]
    pub response_times: Option<Vec<Duration>>,
    /// The first task (input index) the test could not show schedulable, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing_task: Option<usize>,
    /// For partitioning: the core of each task, when every task fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<Vec<usize>>,
    /// For the RMWP tests: the relative optional deadline of each task (its deadline for a
    /// plain task, which has no wind-up to wait for).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "nanos::some_list"
    )]
    pub optional_deadlines: Option<Vec<Duration>>,
    /// For the RMWP tests: the given optional deadlines later than the analysis's safe bound,
    /// in input order. Any makes the verdict negative.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsafe_optional_deadlines: Vec<UnsafeOptionalDeadline>,
}

/// A task's given optional deadline that is later than the latest one the RMWP analysis shows
/// safe: its wind-up, released that late, may miss its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnsafeOptionalDeadline {
    /// The task (input index).
    pub task: usize,
    /// The optional deadline the task gives.
    #[serde(serialize_with = "nanos::one")]
    pub given: Duration,
    /// The latest optional deadline the analysis shows safe (`D - R^w`, or 0 when it cannot
    /// bound the wind-up's response).
    #[serde(serialize_with = "nanos::one")]
    pub safe_bound: Duration,
}

impl Verdict {
    pub fn yes() -> Self {
        Verdict {
            schedulable: true,
            response_times: None,
            failing_task: None,
            mapping: None,
            optional_deadlines: None,
            unsafe_optional_deadlines: Vec::new(),
        }
    }
    pub fn no(failing_task: Option<usize>) -> Self {
        Verdict {
            schedulable: false,
            response_times: None,
            failing_task,
            mapping: None,
            optional_deadlines: None,
            unsafe_optional_deadlines: Vec::new(),
        }
    }
    pub fn with_response_times(mut self, r: Vec<Duration>) -> Self {
        self.response_times = Some(r);
        self
    }
}
