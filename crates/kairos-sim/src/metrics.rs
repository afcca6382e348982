//! What a run measured. Definitions (also in `docs/simulate.md`):
//! - a **preemption**: a scheduling decision takes a job off its core before it has finished
//!   (it resumes later, here or elsewhere); aborts under `--abort-on-miss` are counted apart;
//! - a **discard**: the policy removed a job unfinished (the mixed-criticality discard model);
//!   a discarded job is not a miss;
//! - a **migration**: a job resumes on a different core than the one it last ran on;
//! - a **context switch**: a job is switched in on a core (first start or resume);
//! - a **deadline miss**: a job neither finished nor discarded at its absolute deadline (counted
//!   once per job, at the deadline);
//! - **response time**: completion minus release, over completed jobs;
//! - **busy time**: time a core ran a job, overheads included; **overhead time** is the part
//!   spent on scheduling, context-switch and migration costs.
//!
//! - for imprecise tasks run by parts (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP): the optional time **requested** (each job's
//!   optional part, counted when it ends) and **executed**, and how optional parts ended:
//!   **completed**, **cut** (unfinished, at the optional deadline) or **skipped** (cut at the
//!   instant it began: the mandatory part ended at or after the optional deadline); jobs with
//!   an empty optional part count in none. **QoS** is executed / requested optional time.
//!
//! Memory is constant in the simulated duration: everything here is a running sum.

use kairos_model::{Duration, Instant};
use kairos_trace::PartOutcome;
use serde::Serialize;

/// Per-task figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskMetrics {
    pub name: String,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    pub jobs_aborted: u64,
    pub jobs_discarded: u64,
    pub preemptions: u64,
    pub migrations: u64,
    /// Response times in nanoseconds over completed jobs (`null` in JSON when none completed).
    pub response_min_ns: Option<u64>,
    pub response_mean_ns: Option<u64>,
    pub response_max_ns: Option<u64>,
    /// For an imprecise task run by parts.
    #[serde(flatten)]
    pub optional: Option<OptionalMetrics>,
    #[serde(skip)]
    response_sum_ns: u128,
}

/// Per-core figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoreMetrics {
    pub core: usize,
    pub busy_ns: u64,
    pub overhead_ns: u64,
    /// busy / simulated duration.
    pub utilization: f64,
}

/// Everything a run measured. Field names of the JSON form are stable: scripts read them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub policy: String,
    pub cores: usize,
    pub duration_ns: u64,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    pub jobs_aborted: u64,
    /// Removed unfinished by the policy (the discard model): not misses.
    pub jobs_discarded: u64,
    pub preemptions: u64,
    pub migrations: u64,
    pub context_switches: u64,
    /// Calls of the policy.
    pub scheduling_points: u64,
    /// Totals over imprecise tasks, when the policy runs parts.
    #[serde(flatten)]
    pub optional: Option<OptionalMetrics>,
    /// Optional time executed / requested, when the policy runs parts and some was requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optional_qos: Option<f64>,
    pub tasks: Vec<TaskMetrics>,
    pub core_usage: Vec<CoreMetrics>,
    /// Per server, for a policy that schedules through servers (VCPUs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ServerMetrics>,
}

pub use kairos_trace::{OptionalMetrics, ServerMetrics};

impl Metrics {
    pub(crate) fn new(
        policy: &str,
        task_names: impl Iterator<Item = String>,
        cores: usize,
    ) -> Self {
        Metrics {
            policy: policy.to_string(),
            cores,
            tasks: task_names
                .map(|name| TaskMetrics {
                    name,
                    ..TaskMetrics::default()
                })
                .collect(),
            core_usage: (0..cores)
                .map(|core| CoreMetrics {
                    core,
                    ..CoreMetrics::default()
                })
                .collect(),
            ..Metrics::default()
        }
    }

    pub(crate) fn record_completion(&mut self, task: usize, release: Instant, at: Instant) {
        self.jobs_completed += 1;
        let t = &mut self.tasks[task];
        t.jobs_completed += 1;
        let response = (at - release).as_nanos();
        t.response_min_ns = Some(t.response_min_ns.map_or(response, |m| m.min(response)));
        t.response_max_ns = Some(t.response_max_ns.map_or(response, |m| m.max(response)));
        t.response_sum_ns += u128::from(response);
    }

    /// Keeps the optional-part figures of the imprecise tasks (`imprecise[i]`).
    pub(crate) fn count_optional_parts(&mut self, imprecise: impl Iterator<Item = bool>) {
        self.optional = Some(OptionalMetrics::default());
        for (t, is) in self.tasks.iter_mut().zip(imprecise) {
            t.optional = is.then(OptionalMetrics::default);
        }
    }

    /// The optional part of a job of `task` ended.
    pub(crate) fn record_optional(
        &mut self,
        task: usize,
        requested: Duration,
        executed: Duration,
        outcome: PartOutcome,
    ) {
        for figures in [&mut self.optional, &mut self.tasks[task].optional]
            .into_iter()
            .flatten()
        {
            figures.add(requested, executed, outcome);
        }
    }

    pub(crate) fn record_miss(&mut self, task: usize) {
        self.deadline_misses += 1;
        self.tasks[task].deadline_misses += 1;
    }

    pub(crate) fn finish(&mut self, duration: Duration) {
        self.duration_ns = duration.as_nanos();
        for t in &mut self.tasks {
            t.response_mean_ns = (t.jobs_completed > 0)
                .then(|| (t.response_sum_ns / u128::from(t.jobs_completed)) as u64);
        }
        self.optional_qos = self.optional.and_then(|o| o.qos());
        for c in &mut self.core_usage {
            c.utilization = if duration.is_zero() {
                0.0
            } else {
                c.busy_ns as f64 / duration.as_nanos() as f64
            };
        }
    }
}
