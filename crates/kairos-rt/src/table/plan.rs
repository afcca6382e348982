//! The dispatch plan: an MC-DAG system and its per-level tables turned into what the per-core
//! dispatchers read without any lock (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 5.1 definition
//! 5.4, G-RES reservations as `(interval, core)` pairs per task; section 6.1, per-mode tables
//! and the tagging of each job's last interval, where a budget overrun can only be observed).
//!
//! Per level and core: the intervals sorted by start (the core's slots) and every boundary, so
//! a pass finds "what runs on core `k` at time `t` in mode `l`" and "when is the next boundary"
//! by binary search. Per task and job: the CPU work each job really asks for (its demand),
//! fixed before the run from the overrun requests, so a run is reproducible.

use super::overrun::{demands, OverrunSpec};
use crate::periodic::RunError;
use kairos_model::{McSystem, TableSet};
use std::collections::HashMap;

/// One interval of one level's table on one core, with its job counted from 0 inside the
/// hyper-period and the section 6.1 tag "last interval of this job at this level".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub start: u64,
    pub end: u64,
    pub task: usize,
    pub job: u64,
    pub last: bool,
}

/// A task of the system, flattened (index = position in [`Plan::tasks`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanTask {
    /// `dag/task`.
    pub name: String,
    /// Highest level the task runs at.
    pub criticality: usize,
    /// WCET per level, ns.
    pub wcet: Vec<u64>,
    pub period: u64,
    pub deadline: u64,
}

impl PlanTask {
    pub fn jobs_per_hyperperiod(&self, hyperperiod: u64) -> u64 {
        hyperperiod / self.period
    }
}

/// Everything the dispatchers and workers read.
#[derive(Clone, Debug)]
pub struct Plan {
    pub tasks: Vec<PlanTask>,
    pub levels: Vec<String>,
    pub hyperperiod: u64,
    pub cores: usize,
    /// `slots[level][core]`, sorted by start, pairwise disjoint.
    pub slots: Vec<Vec<Vec<Slot>>>,
    /// `bounds[level][core]`: sorted distinct interval starts and ends, plus the hyper-period.
    pub bounds: Vec<Vec<Vec<u64>>>,
    /// `demand[task][n]`: CPU work of the task's job `n` (counted from time 0), ns.
    pub demand: Vec<Vec<u64>>,
    /// Length of the run: a whole number of hyper-periods.
    pub duration: u64,
}

impl Plan {
    /// Checks that `tables` belong to `system` and builds the plan for a run of at least
    /// `duration` ns (rounded up to whole hyper-periods) with the given overruns.
    pub fn build(
        system: &McSystem,
        tables: &TableSet,
        duration: u64,
        overruns: &OverrunRequest,
    ) -> Result<Plan, RunError> {
        let tasks = flatten(system);
        let hyperperiod = check_header(system, tables)?;
        let index: HashMap<&str, usize> = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        let mut slots = Vec::with_capacity(tables.tables.len());
        for (level, table) in tables.tables.iter().enumerate() {
            slots.push(level_slots(
                level,
                table,
                &index,
                &tasks,
                tables.cores,
                hyperperiod,
            )?);
        }
        let bounds = slots
            .iter()
            .map(|per_core| {
                per_core
                    .iter()
                    .map(|s| boundaries(s, hyperperiod))
                    .collect()
            })
            .collect();
        let periods = duration.div_ceil(hyperperiod).max(1);
        let duration = periods
            .checked_mul(hyperperiod)
            .ok_or_else(|| RunError::Invalid("the run length overflows 64-bit ns".into()))?;
        let demand = demands(system, tables, &tasks, duration, overruns)?;
        Ok(Plan {
            tasks,
            levels: tables.levels.clone(),
            hyperperiod,
            cores: tables.cores,
            slots,
            bounds,
            demand,
            duration,
        })
    }

    /// The slot of `core` covering `t` (inside the hyper-period) at `level`.
    pub fn slot_at(&self, level: usize, core: usize, t: u64) -> Option<&Slot> {
        let slots = &self.slots[level][core];
        let after = slots.partition_point(|s| s.start <= t);
        let slot = slots.get(after.checked_sub(1)?)?;
        (t < slot.end).then_some(slot)
    }

    /// The first boundary of `core` at `level` strictly after `t` (at most the hyper-period).
    pub fn next_boundary(&self, level: usize, core: usize, t: u64) -> u64 {
        let bounds = &self.bounds[level][core];
        bounds
            .get(bounds.partition_point(|&b| b <= t))
            .copied()
            .unwrap_or(self.hyperperiod)
    }

    /// Job number (from time 0) of the job `local` of `task` in hyper-period `generation`.
    pub fn global_job(&self, task: usize, generation: u64, local: u64) -> u64 {
        generation * self.tasks[task].jobs_per_hyperperiod(self.hyperperiod) + local
    }

    /// Every `(task, core)` pair that appears in some table: the worker threads to create.
    pub fn worker_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = self
            .slots
            .iter()
            .flat_map(|per_core| {
                per_core
                    .iter()
                    .enumerate()
                    .flat_map(|(core, s)| s.iter().map(move |slot| (slot.task, core)))
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

/// What to overrun: explicit jobs and/or a seeded probability per job.
#[derive(Clone, Debug, PartialEq)]
pub struct OverrunRequest {
    pub jobs: Vec<OverrunSpec>,
    /// Probability that a job of a task with criticality > 0 overruns (its demand is then its
    /// WCET at a level drawn uniformly from 1 to its own, as the simulator draws it).
    pub probability: f64,
    pub seed: u64,
    /// Fraction of a job's demand its body really executes (see `TableRunConfig`).
    pub work_fraction: f64,
}

impl Default for OverrunRequest {
    /// No overrun; every job runs its whole demand.
    fn default() -> Self {
        OverrunRequest {
            jobs: Vec::new(),
            probability: 0.0,
            seed: 0,
            work_fraction: 1.0,
        }
    }
}

fn flatten(system: &McSystem) -> Vec<PlanTask> {
    system
        .task_refs()
        .map(|r| {
            let dag = &system.dags[r.dag];
            let task = system.task(r);
            PlanTask {
                name: system.qualified_name(r),
                criticality: task.criticality(),
                wcet: task.wcet.iter().map(|w| w.as_nanos()).collect(),
                period: dag.period.as_nanos(),
                deadline: dag.deadline.as_nanos(),
            }
        })
        .collect()
}

fn invalid(message: String) -> RunError {
    RunError::Invalid(message)
}

/// Levels, cores and hyper-period of the table file against the system.
fn check_header(system: &McSystem, tables: &TableSet) -> Result<u64, RunError> {
    if tables.unit != "ns" {
        return Err(invalid(format!(
            "tables are in {:?}: read them with TableSet::from_json (converts to ns)",
            tables.unit
        )));
    }
    let hyperperiod = system
        .hyperperiod()
        .ok_or_else(|| invalid("the system's hyper-period overflows 64-bit ns".into()))?
        .as_nanos();
    if tables.hyperperiod != hyperperiod {
        return Err(invalid(format!(
            "the tables' hyper-period is {} ns but the system's is {hyperperiod} ns: were they \
             synthesized for this system?",
            tables.hyperperiod
        )));
    }
    if tables.levels.len() != system.levels.len() || tables.tables.len() != tables.levels.len() {
        return Err(invalid(format!(
            "the system has {} level(s), the table file {} level name(s) and {} table(s)",
            system.levels.len(),
            tables.levels.len(),
            tables.tables.len()
        )));
    }
    if tables.levels.len() > crate::mode::MAX_LEVELS {
        return Err(invalid(format!(
            "{} levels: the mode word holds at most {}",
            tables.levels.len(),
            crate::mode::MAX_LEVELS
        )));
    }
    if tables.cores == 0 {
        return Err(invalid("the tables use 0 cores".into()));
    }
    Ok(hyperperiod)
}

/// The slots of one level per core, with every interval checked against the system.
fn level_slots(
    level: usize,
    table: &kairos_model::LevelTable,
    index: &HashMap<&str, usize>,
    tasks: &[PlanTask],
    cores: usize,
    hyperperiod: u64,
) -> Result<Vec<Vec<Slot>>, RunError> {
    let mut per_core: Vec<Vec<Slot>> = vec![Vec::new(); cores];
    let mut last_end: HashMap<(usize, u64), u64> = HashMap::new();
    for (i, interval) in table.intervals.iter().enumerate() {
        let at = || format!("table {:?}, interval {i} ({})", table.level, interval.task);
        let task = *index
            .get(interval.task.as_str())
            .ok_or_else(|| invalid(format!("{}: no such task in the system", at())))?;
        if tasks[task].criticality < level {
            return Err(invalid(format!(
                "{}: the task does not run at this level (criticality {})",
                at(),
                tasks[task].criticality
            )));
        }
        if interval.core >= cores {
            return Err(invalid(format!(
                "{}: core {} >= {cores}",
                at(),
                interval.core
            )));
        }
        if interval.start >= interval.end || interval.end > hyperperiod {
            return Err(invalid(format!(
                "{}: [{}, {}) is empty or leaves the hyper-period",
                at(),
                interval.start,
                interval.end
            )));
        }
        if interval.job >= tasks[task].jobs_per_hyperperiod(hyperperiod) {
            return Err(invalid(format!(
                "{}: job {} does not exist",
                at(),
                interval.job
            )));
        }
        let end = last_end.entry((task, interval.job)).or_insert(0);
        *end = (*end).max(interval.end);
        per_core[interval.core].push(Slot {
            start: interval.start,
            end: interval.end,
            task,
            job: interval.job,
            last: false,
        });
    }
    for (core, slots) in per_core.iter_mut().enumerate() {
        slots.sort_by_key(|s| s.start);
        if let Some(w) = slots.windows(2).find(|w| w[1].start < w[0].end) {
            return Err(invalid(format!(
                "table {:?}, core {core}: {} and {} overlap at {} ns",
                table.level, tasks[w[0].task].name, tasks[w[1].task].name, w[1].start
            )));
        }
        for slot in slots.iter_mut() {
            slot.last = last_end.get(&(slot.task, slot.job)) == Some(&slot.end);
        }
    }
    Ok(per_core)
}

fn boundaries(slots: &[Slot], hyperperiod: u64) -> Vec<u64> {
    let mut bounds: Vec<u64> = slots
        .iter()
        .flat_map(|s| [s.start, s.end])
        .chain([hyperperiod])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use kairos_model::{Dag, Duration, Interval, LevelTable, McTask};

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Two independent tasks of one DAG on 2 cores: `hi` (C = 2 ms, 4 ms) and `lo` (2 ms).
    pub(crate) fn small_system() -> McSystem {
        McSystem {
            name: None,
            cores: 2,
            levels: vec!["LO".into(), "HI".into()],
            dags: vec![Dag {
                name: "g".into(),
                period: ms(10),
                deadline: ms(10),
                tasks: vec![
                    McTask {
                        name: "hi".into(),
                        wcet: vec![ms(2), ms(4)],
                    },
                    McTask {
                        name: "lo".into(),
                        wcet: vec![ms(2)],
                    },
                ],
                edges: vec![],
            }],
        }
    }

    fn iv(task: &str, core: usize, start: u64, end: u64) -> Interval {
        Interval {
            task: task.into(),
            job: 0,
            core,
            start: start * 1_000_000,
            end: end * 1_000_000,
        }
    }

    pub(crate) fn small_tables() -> TableSet {
        TableSet {
            unit: "ns".into(),
            hyperperiod: 10_000_000,
            cores: 2,
            levels: vec!["LO".into(), "HI".into()],
            policy: None,
            tables: vec![
                LevelTable {
                    level: "LO".into(),
                    intervals: vec![
                        iv("g/hi", 0, 0, 1),
                        iv("g/hi", 1, 1, 2),
                        iv("g/lo", 1, 2, 4),
                    ],
                },
                LevelTable {
                    level: "HI".into(),
                    intervals: vec![iv("g/hi", 0, 0, 1), iv("g/hi", 1, 1, 4)],
                },
            ],
        }
    }

    fn plan() -> Plan {
        Plan::build(
            &small_system(),
            &small_tables(),
            25_000_000,
            &OverrunRequest::default(),
        )
        .unwrap()
    }

    #[test]
    fn slots_lookups_and_tags() {
        let p = plan();
        assert_eq!(p.duration, 30_000_000, "rounded up to whole hyper-periods");
        assert_eq!(p.slot_at(0, 0, 500_000).map(|s| s.task), Some(0));
        assert!(!p.slot_at(0, 0, 500_000).unwrap().last);
        assert!(p.slot_at(0, 1, 1_500_000).unwrap().last);
        assert_eq!(p.slot_at(0, 0, 1_000_000), None);
        assert_eq!(p.slot_at(1, 1, 3_999_999).map(|s| s.task), Some(0));
        assert_eq!(p.next_boundary(0, 1, 0), 1_000_000);
        assert_eq!(p.next_boundary(0, 1, 2_000_000), 4_000_000);
        assert_eq!(p.next_boundary(0, 1, 4_000_000), 10_000_000);
        assert_eq!(p.global_job(0, 2, 0), 2);
        assert_eq!(p.worker_pairs(), vec![(0, 0), (0, 1), (1, 1)]);
    }

    #[test]
    fn bad_tables_are_explained() {
        let system = small_system();
        let request = OverrunRequest::default();
        let mut t = small_tables();
        t.tables[1].intervals.push(iv("g/lo", 0, 5, 6));
        let e = Plan::build(&system, &t, 1, &request)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not run at this level"), "{e}");
        let mut t = small_tables();
        t.tables[0].intervals.push(iv("g/lo", 0, 0, 2));
        let e = Plan::build(&system, &t, 1, &request)
            .unwrap_err()
            .to_string();
        assert!(e.contains("overlap"), "{e}");
        let mut t = small_tables();
        t.hyperperiod = 20_000_000;
        let e = Plan::build(&system, &t, 1, &request)
            .unwrap_err()
            .to_string();
        assert!(e.contains("hyper-period"), "{e}");
        let mut t = small_tables();
        t.tables[0].intervals[0].task = "g/nope".into();
        let e = Plan::build(&system, &t, 1, &request)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such task"), "{e}");
    }
}
