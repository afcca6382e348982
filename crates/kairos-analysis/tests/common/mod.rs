//! The simulation both test files compare analysis verdicts with.

use kairos_analysis::SporadicTask;
use kairos_model::{Arrival, CoreId, Duration, Task, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};

/// What one simulated run showed.
pub struct Observed {
    /// Some job released before the hyper-period missed its deadline.
    pub missed: bool,
    /// Largest response time per task over completed jobs.
    pub max_response: Vec<Option<u64>>,
}

/// Simulates `tasks` with synchronous periodic release for H + max D under `kind` (FP:
/// deadline-monotonic), each task on the core `mapping` gives (or none, for global policies).
pub fn simulate_synchronous(
    tasks: &[SporadicTask],
    cores: usize,
    mapping: Option<&[usize]>,
    kind: PolicyKind,
) -> Observed {
    let task = |(i, t): (usize, &SporadicTask)| Task {
        name: format!("t{i}"),
        wcet: t.wcet,
        bcet: t.wcet,
        period: t.period,
        deadline: t.deadline,
        offset: Duration::ZERO,
        arrival: Arrival::Periodic,
        priority: None,
        core: mapping.map(|m| CoreId(m[i])),
        imprecise: None,
    };
    let workload = Workload {
        name: None,
        cores,
        tasks: tasks.iter().enumerate().map(task).collect(),
        overheads: Default::default(),
    };
    let h = workload.hyperperiod().expect("small periods").as_nanos();
    let d_max = tasks
        .iter()
        .map(|t| t.deadline.as_nanos())
        .max()
        .unwrap_or(0);
    let config = SimConfig {
        duration: Duration::from_nanos(h + d_max),
        record_trace: true,
        ..SimConfig::default()
    };
    let mut policy = kind.build(PriorityOrder::DeadlineMonotonic);
    let outcome = simulate(&workload, policy.as_mut(), &config).expect("simulation runs");
    let trace = serde_json::to_value(outcome.trace.as_ref().expect("trace")).expect("json");
    let missed = trace["events"].as_array().expect("events").iter().any(|e| {
        let (task, job) = (
            e["task"].as_u64().unwrap_or(0),
            e["job"].as_u64().unwrap_or(0),
        );
        e["event"] == "deadline_miss" && job * tasks[task as usize].period.as_nanos() < h
    });
    let max_response = outcome
        .metrics
        .tasks
        .iter()
        .map(|t| t.response_max_ns)
        .collect();
    Observed {
        missed,
        max_response,
    }
}

/// A task of `(C, D, T)` nanoseconds.
pub fn task_ns(wcet: u64, deadline: u64, period: u64) -> SporadicTask {
    let ns = Duration::from_nanos;
    SporadicTask::new(ns(wcet), ns(deadline), ns(period))
}

/// A verdict's response times (or other list of durations) in nanoseconds.
pub fn nanos(list: Option<Vec<Duration>>) -> Option<Vec<u64>> {
    list.map(|l| l.iter().map(|d| d.as_nanos()).collect())
}
