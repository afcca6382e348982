//! The system seen as the validator needs it: tasks flattened to indices, with their windows
//! and WCETs in nanoseconds, and the hyper-period (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.1:
//! job `k` of a DAG is released at `k T` and due at `k T + D`).

use kairos_model::McSystem;
use std::collections::HashMap;

/// One task, flattened.
pub(crate) struct TaskInfo {
    /// `dag/task`.
    pub name: String,
    pub dag: usize,
    /// WCET per level in ns, for levels `0..=criticality`.
    pub wcet: Vec<u64>,
    pub period: u64,
    pub deadline: u64,
    /// Jobs in one hyper-period.
    pub jobs: u64,
}

impl TaskInfo {
    pub fn runs_at(&self, level: usize) -> bool {
        level < self.wcet.len()
    }

    pub fn release(&self, job: u64) -> u64 {
        job * self.period
    }

    pub fn due(&self, job: u64) -> u64 {
        job * self.period + self.deadline
    }
}

/// The flattened system; task indices run DAG by DAG.
pub(crate) struct Flat<'a> {
    pub system: &'a McSystem,
    pub tasks: Vec<TaskInfo>,
    /// Flat index of each DAG's first task.
    pub dag_start: Vec<usize>,
    by_name: HashMap<String, usize>,
}

impl<'a> Flat<'a> {
    /// Flattens `system` for hyper-period `hyperperiod` (ns).
    pub fn new(system: &'a McSystem, hyperperiod: u64) -> Self {
        let mut tasks = Vec::new();
        let mut dag_start = Vec::with_capacity(system.dags.len());
        for (d, dag) in system.dags.iter().enumerate() {
            dag_start.push(tasks.len());
            let period = dag.period.as_nanos();
            for task in &dag.tasks {
                tasks.push(TaskInfo {
                    name: format!("{}/{}", dag.name, task.name),
                    dag: d,
                    wcet: task.wcet.iter().map(|w| w.as_nanos()).collect(),
                    period,
                    deadline: dag.deadline.as_nanos(),
                    jobs: hyperperiod.checked_div(period).unwrap_or(0),
                });
            }
        }
        let by_name = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        Flat {
            system,
            tasks,
            dag_start,
            by_name,
        }
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub fn level_name(&self, level: usize) -> &str {
        &self.system.levels[level]
    }
}
