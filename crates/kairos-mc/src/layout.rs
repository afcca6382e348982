//! Numbering of the jobs of one level (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.1: job `k` of
//! DAG `g` is released at `k T_g`; a task runs at the levels up to its own).
//!
//! Jobs of a level are numbered DAG by DAG, then DAG job by DAG job, then task by task among the
//! tasks present at that level, so an id is computed, not looked up, and the tables of two
//! levels can be matched job by job.

use crate::error::SynthFailure;
use kairos_model::{McSystem, TaskRef};

/// The jobs of one DAG at one level.
#[derive(Clone, Debug)]
struct DagJobs {
    first: u32,
    /// Tasks present at the level, in task order.
    present: Vec<usize>,
    /// Position of each task in `present`.
    local: Vec<Option<u32>>,
    jobs: u64,
}

/// Every job of one level of one hyper-period.
#[derive(Clone, Debug)]
pub(crate) struct LevelJobs {
    dags: Vec<DagJobs>,
    count: u32,
}

impl LevelJobs {
    /// The jobs of `level` over a hyper-period of `hyperperiod_ns`.
    pub fn new(
        system: &McSystem,
        level: usize,
        hyperperiod_ns: u64,
    ) -> Result<LevelJobs, SynthFailure> {
        let mut dags = Vec::with_capacity(system.dags.len());
        let mut count = 0u64;
        for dag in &system.dags {
            let present: Vec<usize> = (0..dag.tasks.len())
                .filter(|&t| dag.tasks[t].runs_at(level))
                .collect();
            let mut local = vec![None; dag.tasks.len()];
            for (i, &t) in present.iter().enumerate() {
                local[t] = Some(i as u32);
            }
            let jobs = hyperperiod_ns / dag.period.as_nanos();
            let first = count;
            count += jobs * present.len() as u64;
            dags.push(DagJobs {
                first: u32::try_from(first).unwrap_or(u32::MAX),
                present,
                local,
                jobs,
            });
        }
        let count = u32::try_from(count).map_err(|_| {
            SynthFailure::Input(format!(
                "level {level} has {count} jobs in one hyper-period, more than synthesis handles"
            ))
        })?;
        Ok(LevelJobs { dags, count })
    }

    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// Number of DAG jobs of DAG `dag` in the hyper-period.
    pub fn dag_jobs(&self, dag: usize) -> u64 {
        self.dags[dag].jobs
    }

    /// Tasks of DAG `dag` present at this level.
    pub fn present(&self, dag: usize) -> &[usize] {
        &self.dags[dag].present
    }

    /// The id of job `k` of `task`, if the task runs at this level.
    pub fn id(&self, task: TaskRef, k: u64) -> Option<u32> {
        let d = &self.dags[task.dag];
        let local = d.local[task.task]?;
        Some(d.first + (k * d.present.len() as u64) as u32 + local)
    }

    /// The jobs of `task` as `(DAG job, id)`, by DAG job (none when it does not run here).
    pub fn of_task(&self, task: TaskRef) -> impl Iterator<Item = (u64, u32)> + '_ {
        let d = &self.dags[task.dag];
        let (local, count) = match d.local[task.task] {
            Some(local) => (local, d.jobs),
            None => (0, 0),
        };
        let stride = d.present.len() as u32;
        (0..count as u32).map(move |k| (u64::from(k), d.first + k * stride + local))
    }

    /// Every job as `(task, DAG job)`, in id order.
    pub fn each(&self) -> impl Iterator<Item = (TaskRef, u64)> + '_ {
        self.dags.iter().enumerate().flat_map(|(dag, d)| {
            (0..d.jobs).flat_map(move |k| {
                d.present
                    .iter()
                    .map(move |&task| (TaskRef { dag, task }, k))
            })
        })
    }

    /// The task and DAG job of `id`.
    pub fn job(&self, id: u32) -> (TaskRef, u64) {
        // `first` never decreases; DAGs with no job here share the next DAG's `first`.
        let upto = self.dags.partition_point(|d| d.first <= id);
        let dag = (0..upto)
            .rev()
            .find(|&g| !self.dags[g].present.is_empty())
            .expect("a job id belongs to a DAG with jobs");
        let d = &self.dags[dag];
        let offset = id - d.first;
        let n = d.present.len() as u32;
        let task = TaskRef {
            dag,
            task: d.present[(offset % n) as usize],
        };
        (task, u64::from(offset / n))
    }
}
