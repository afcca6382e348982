//! The tables of one system resolved for execution: task names to indices, one job key per
//! (task, job of the hyper-period), the intervals of each level sorted per core with each job's
//! last interval tagged (where G-MCRES detects a budget overrun, section 6.1 of the paper named
//! in the parent module), and every instant where something may happen.
//!
//! Times are nanoseconds relative to the start of a hyper-period. Building the plan
//! ([`TablePlan::new`], in `resolve`) refuses only what no engine can execute: unknown tasks,
//! intervals outside the hyper-period or on missing cores, overlaps on a core or of one task.
//! Budgets, windows, precedence and safe transitions are the validator's business; their
//! violations show in a run as misses and precedence violations instead.

/// One interval of a level table on one core, with its job resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub start: u64,
    pub end: u64,
    /// Flat task index ([`TablePlan::tasks`]).
    pub task: usize,
    /// Job of the task counted from 0 inside the hyper-period.
    pub job: u64,
    /// [`TablePlan::key_job`] index of that job.
    pub key: usize,
    /// Whether this is the job's last interval in this level's table.
    pub last: bool,
}

/// The table of one level, ready for lookups.
#[derive(Clone, Debug)]
pub struct LevelPlan {
    /// Per core, intervals sorted by start (disjoint).
    pub by_core: Vec<Vec<Slot>>,
    /// Per core, every interval start and end plus the hyper-period, sorted, distinct.
    pub bounds: Vec<Vec<u64>>,
    /// Per job key, the end of its last interval in this table (`f_l(j)`), if it has one.
    pub last_end: Vec<Option<u64>>,
    /// `(last_end, key)` sorted, to find the jobs whose last interval ends at an instant.
    pub ends: Vec<(u64, usize)>,
}

impl LevelPlan {
    /// The interval on `core` covering `[at, at + 1 ns)`, if any.
    pub fn slot_at(&self, core: usize, at: u64) -> Option<&Slot> {
        let slots = &self.by_core[core];
        let after = slots.partition_point(|s| s.start <= at);
        let slot = slots.get(after.checked_sub(1)?)?;
        (at < slot.end).then_some(slot)
    }

    /// The first bound of `core` strictly after `at` (the hyper-period when none is).
    pub fn next_bound(&self, core: usize, at: u64, hyperperiod: u64) -> u64 {
        let bounds = &self.bounds[core];
        bounds
            .get(bounds.partition_point(|&b| b <= at))
            .copied()
            .unwrap_or(hyperperiod)
    }

    /// Keys of the jobs whose last interval ends exactly at `at`.
    pub fn ending_at(&self, at: u64) -> impl Iterator<Item = usize> + '_ {
        let from = self.ends.partition_point(|&(end, _)| end < at);
        self.ends[from..]
            .iter()
            .take_while(move |&&(end, _)| end == at)
            .map(|&(_, key)| key)
    }
}

/// A task of the system, flattened DAG by DAG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskPlan {
    /// `dag/task`.
    pub name: String,
    pub dag: usize,
    /// WCET per level in ns, `criticality + 1` entries.
    pub wcet: Vec<u64>,
    /// First job key of this task; job `k` of the hyper-period has key `first_key + k`.
    pub first_key: usize,
    /// Flat indices of every task with a path to this one in its DAG.
    pub ancestors: Vec<usize>,
}

impl TaskPlan {
    /// The highest level the task runs at.
    pub fn criticality(&self) -> usize {
        self.wcet.len() - 1
    }
}

/// Timing of one DAG in ns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DagPlan {
    pub period: u64,
    pub deadline: u64,
    pub jobs_per_hyperperiod: u64,
    /// Flat indices of its tasks.
    pub tasks: Vec<usize>,
}

/// A system and its tables, resolved.
#[derive(Clone, Debug)]
pub struct TablePlan {
    pub hyperperiod: u64,
    pub cores: usize,
    pub levels: Vec<String>,
    pub tasks: Vec<TaskPlan>,
    pub dags: Vec<DagPlan>,
    /// Task (flat index) and job of the hyper-period of each key.
    pub key_job: Vec<(usize, u64)>,
    /// One per level, in level order.
    pub tables: Vec<LevelPlan>,
    /// Every instant of a hyper-period where something may happen: interval bounds of every
    /// level, releases, deadlines and the hyper-period end. Sorted, distinct.
    pub instants: Vec<u64>,
}

impl TablePlan {
    /// Release of job `k` of `dag` relative to the hyper-period start.
    pub fn release(&self, dag: usize, k: u64) -> u64 {
        k * self.dags[dag].period
    }

    pub fn deadline(&self, dag: usize, k: u64) -> u64 {
        self.release(dag, k) + self.dags[dag].deadline
    }

    pub fn key_count(&self) -> usize {
        self.key_job.len()
    }

    pub fn jobs_per_hyperperiod(&self, task: usize) -> u64 {
        self.dags[self.tasks[task].dag].jobs_per_hyperperiod
    }

    /// Job number since time 0 of the job `local` of `task` in hyper-period `generation`.
    pub fn global_job(&self, task: usize, generation: u64, local: u64) -> u64 {
        generation * self.jobs_per_hyperperiod(task) + local
    }

    /// Every `(task, core)` pair some table uses, sorted.
    pub fn task_core_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = self
            .tables
            .iter()
            .flat_map(|level| level.by_core.iter().enumerate())
            .flat_map(|(core, slots)| slots.iter().map(move |slot| (slot.task, core)))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}
