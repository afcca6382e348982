//! The tables of one system resolved for execution: task names to indices, one job key per
//! (task, job of the hyper-period), intervals sorted per core, and each job's last interval end
//! per level (where G-MCRES detects budget overruns, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6.1).
//!
//! Only what the simulator cannot execute is refused here (unknown tasks, intervals outside the
//! hyper-period or on missing cores, overlaps on a core or of one task): budgets, windows,
//! precedence and safe transitions are the validator's business, and their violations show in
//! the run as misses and counted precedence violations instead.

use std::collections::HashMap;

use kairos_model::{Dag, McSystem, TableSet, TaskRef};

use super::TableSimError;

/// One interval of a level table, with its job resolved to a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub start: u64,
    pub end: u64,
    pub key: usize,
}

/// The table of one level, ready for lookups.
#[derive(Debug)]
pub(crate) struct LevelPlan {
    /// Per core, intervals sorted by start (disjoint).
    pub by_core: Vec<Vec<Slot>>,
    /// Per job key, the end of its last interval in this table (`f_l(j)`), if it has one.
    pub last_end: Vec<Option<u64>>,
    /// `(last_end, key)` sorted, to find the jobs whose last interval ends at an instant.
    pub ends: Vec<(u64, usize)>,
}

impl LevelPlan {
    /// The job whose interval on `core` covers `[at, at + ε)`, if any.
    pub fn active(&self, core: usize, at: u64) -> Option<usize> {
        let slots = &self.by_core[core];
        let after = slots.partition_point(|s| s.start <= at);
        let slot = slots.get(after.checked_sub(1)?)?;
        (at < slot.end).then_some(slot.key)
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

/// A task of the system, flattened.
#[derive(Debug)]
pub(crate) struct TaskPlan {
    pub name: String,
    pub dag: usize,
    /// WCET per level in ns, `criticality + 1` entries.
    pub wcet: Vec<u64>,
    /// First job key of this task; job `k` of the hyper-period has key `first_key + k`.
    pub first_key: usize,
    /// Flat indices of every task with a path to this one in the DAG.
    pub ancestors: Vec<usize>,
}

impl TaskPlan {
    pub fn criticality(&self) -> usize {
        self.wcet.len() - 1
    }
}

/// Timing of one DAG in ns.
#[derive(Debug)]
pub(crate) struct DagPlan {
    pub period: u64,
    pub deadline: u64,
    pub jobs_per_hyperperiod: u64,
    /// Flat indices of its tasks.
    pub tasks: Vec<usize>,
}

/// Everything the run needs, in integer nanoseconds relative to the start of a hyper-period.
#[derive(Debug)]
pub(crate) struct Plan {
    pub hyperperiod: u64,
    pub cores: usize,
    pub levels: Vec<String>,
    pub tasks: Vec<TaskPlan>,
    pub dags: Vec<DagPlan>,
    /// Task (flat index) and job of the hyper-period of each key.
    pub key_job: Vec<(usize, u64)>,
    pub tables: Vec<LevelPlan>,
    /// Every instant of a hyper-period where something may happen: interval bounds of every
    /// level, releases, deadlines and the hyper-period end. Sorted, no duplicates.
    pub instants: Vec<u64>,
}

impl Plan {
    pub fn new(system: &McSystem, tables: &TableSet) -> Result<Plan, TableSimError> {
        let hyperperiod = system_hyperperiod(system, tables)?;
        let (tasks, dags, key_job) = flatten(system, hyperperiod)?;
        let names: HashMap<String, usize> = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        let mut plan = Plan {
            hyperperiod,
            cores: system.cores,
            levels: system.levels.clone(),
            tasks,
            dags,
            key_job,
            tables: Vec::new(),
            instants: Vec::new(),
        };
        plan.tables = (0..system.levels.len())
            .map(|level| plan.level_plan(tables, level, &names))
            .collect::<Result<_, _>>()?;
        plan.instants = plan.collect_instants();
        Ok(plan)
    }

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

    fn level_plan(
        &self,
        tables: &TableSet,
        level: usize,
        names: &HashMap<String, usize>,
    ) -> Result<LevelPlan, TableSimError> {
        let level_name = &self.levels[level];
        let table = &tables.tables[level];
        let bad = |what: String| TableSimError::Tables(format!("level {level_name}: {what}"));
        let mut by_core = vec![Vec::new(); self.cores];
        let mut last_end = vec![None; self.key_count()];
        for interval in &table.intervals {
            let task = *names
                .get(&interval.task)
                .ok_or_else(|| bad(format!("unknown task {:?}", interval.task)))?;
            let plan = &self.tasks[task];
            let at = format!(
                "{} job {} [{}, {}) on core {}",
                interval.task, interval.job, interval.start, interval.end, interval.core
            );
            if plan.criticality() < level {
                return Err(bad(format!(
                    "{at}: the task does not run at this level (criticality {})",
                    self.levels[plan.criticality()]
                )));
            }
            if interval.job >= self.dags[plan.dag].jobs_per_hyperperiod {
                return Err(bad(format!("{at}: no such job in one hyper-period")));
            }
            if interval.start >= interval.end || interval.end > self.hyperperiod {
                return Err(bad(format!(
                    "{at}: an interval must be non-empty and inside [0, {})",
                    self.hyperperiod
                )));
            }
            if interval.core >= self.cores {
                return Err(bad(format!("{at}: the system has {} cores", self.cores)));
            }
            let key = plan.first_key + interval.job as usize;
            let end: &mut Option<u64> = &mut last_end[key];
            *end = Some(end.map_or(interval.end, |e: u64| e.max(interval.end)));
            by_core[interval.core].push(Slot {
                start: interval.start,
                end: interval.end,
                key,
            });
        }
        for slots in &mut by_core {
            slots.sort_by_key(|s| s.start);
        }
        self.check_overlaps(&by_core).map_err(bad)?;
        let mut ends: Vec<(u64, usize)> = last_end
            .iter()
            .enumerate()
            .filter_map(|(key, end)| end.map(|e| (e, key)))
            .collect();
        ends.sort_unstable();
        Ok(LevelPlan {
            by_core,
            last_end,
            ends,
        })
    }

    /// A core runs one job at a time and a task runs on one core at a time: the simulator cannot
    /// execute a table that breaks either.
    fn check_overlaps(&self, by_core: &[Vec<Slot>]) -> Result<(), String> {
        for (core, slots) in by_core.iter().enumerate() {
            if let Some(pair) = slots.windows(2).find(|p| p[0].end > p[1].start) {
                return Err(format!(
                    "intervals [{}, {}) and [{}, {}) overlap on core {core} \
                     (check the file with `kairos validate-tables`)",
                    pair[0].start, pair[0].end, pair[1].start, pair[1].end
                ));
            }
        }
        let mut by_task = vec![Vec::new(); self.tasks.len()];
        for slot in by_core.iter().flatten() {
            by_task[self.key_job[slot.key].0].push((slot.start, slot.end));
        }
        for (task, spans) in by_task.iter_mut().enumerate() {
            spans.sort_unstable();
            if let Some(pair) = spans.windows(2).find(|p| p[0].1 > p[1].0) {
                return Err(format!(
                    "{} has intervals [{}, {}) and [{}, {}) at the same time \
                     (check the file with `kairos validate-tables`)",
                    self.tasks[task].name, pair[0].0, pair[0].1, pair[1].0, pair[1].1
                ));
            }
        }
        Ok(())
    }

    fn collect_instants(&self) -> Vec<u64> {
        let bounds = self
            .tables
            .iter()
            .flat_map(|t| t.by_core.iter().flatten())
            .flat_map(|s| [s.start, s.end]);
        let jobs = self.dags.iter().enumerate().flat_map(|(d, dag)| {
            (0..dag.jobs_per_hyperperiod).flat_map(move |k| [(d, k, false), (d, k, true)])
        });
        let timing = jobs.map(|(d, k, deadline)| {
            if deadline {
                self.deadline(d, k)
            } else {
                self.release(d, k)
            }
        });
        let mut instants: Vec<u64> = bounds.chain(timing).chain([self.hyperperiod]).collect();
        instants.sort_unstable();
        instants.dedup();
        instants
    }
}

/// The system's hyper-period, which the tables must have been built for.
fn system_hyperperiod(system: &McSystem, tables: &TableSet) -> Result<u64, TableSimError> {
    let bad = |what: String| Err(TableSimError::Tables(what));
    if system.levels.is_empty() {
        return Err(TableSimError::System("no criticality levels".into()));
    }
    let hyperperiod = system
        .hyperperiod()
        .ok_or_else(|| {
            TableSimError::System("the hyper-period overflows 64-bit nanoseconds".into())
        })?
        .as_nanos();
    if tables.unit != "ns" {
        return bad(format!(
            "times must be in ns (read the file with TableSet::from_json), not {:?}",
            tables.unit
        ));
    }
    if tables.hyperperiod != hyperperiod {
        return bad(format!(
            "the tables cover a hyper-period of {} ns, the system's is {hyperperiod} ns",
            tables.hyperperiod
        ));
    }
    if tables.cores != system.cores {
        return bad(format!(
            "the tables use {} cores, the system has {}",
            tables.cores, system.cores
        ));
    }
    if tables.levels != system.levels || tables.tables.len() != system.levels.len() {
        return bad(format!(
            "the tables have levels {:?} ({} tables), the system has {:?}",
            tables.levels,
            tables.tables.len(),
            system.levels
        ));
    }
    if let Some((level, table)) = tables
        .tables
        .iter()
        .enumerate()
        .find(|(level, table)| table.level != system.levels[*level])
    {
        return bad(format!(
            "table {level} is for level {:?}, expected {:?} (tables come in level order)",
            table.level, system.levels[level]
        ));
    }
    Ok(hyperperiod)
}

type Flattened = (Vec<TaskPlan>, Vec<DagPlan>, Vec<(usize, u64)>);

/// Flat task list (DAG by DAG), DAG timings and the job keys of one hyper-period.
fn flatten(system: &McSystem, hyperperiod: u64) -> Result<Flattened, TableSimError> {
    let mut tasks = Vec::new();
    let mut dags = Vec::new();
    let mut key_job = Vec::new();
    for (d, dag) in system.dags.iter().enumerate() {
        let (period, deadline) = (dag.period.as_nanos(), dag.deadline.as_nanos());
        if period == 0 || deadline == 0 || deadline > period {
            return Err(TableSimError::System(format!(
                "DAG {}: the table policy needs 0 < deadline <= period",
                dag.name
            )));
        }
        let jobs_per_hyperperiod = hyperperiod / period;
        let first_flat = tasks.len();
        let ancestors = ancestors(dag).ok_or_else(|| {
            TableSimError::System(format!("DAG {}: the edges do not form a DAG", dag.name))
        })?;
        for (t, task) in dag.tasks.iter().enumerate() {
            let task_ref = TaskRef { dag: d, task: t };
            if task.wcet.is_empty() || task.wcet.len() > system.levels.len() {
                return Err(TableSimError::System(format!(
                    "{} has {} WCETs for {} levels",
                    system.qualified_name(task_ref),
                    task.wcet.len(),
                    system.levels.len()
                )));
            }
            tasks.push(TaskPlan {
                name: system.qualified_name(task_ref),
                dag: d,
                wcet: task.wcet.iter().map(|w| w.as_nanos()).collect(),
                first_key: key_job.len(),
                ancestors: ancestors[t].iter().map(|a| first_flat + a).collect(),
            });
            key_job.extend((0..jobs_per_hyperperiod).map(|k| (first_flat + t, k)));
        }
        dags.push(DagPlan {
            period,
            deadline,
            jobs_per_hyperperiod,
            tasks: (first_flat..tasks.len()).collect(),
        });
    }
    Ok((tasks, dags, key_job))
}

/// For every task of `dag`, the tasks with a path to it (transitive predecessors); `None` on a
/// cycle or an edge to a missing task.
fn ancestors(dag: &Dag) -> Option<Vec<Vec<usize>>> {
    let count = dag.tasks.len();
    if dag
        .edges
        .iter()
        .any(|&(from, to)| from >= count || to >= count)
    {
        return None;
    }
    let preds = dag.predecessors();
    let mut reach = vec![vec![false; count]; count];
    for task in dag.topological_order()? {
        for &p in &preds[task] {
            let inherited = reach[p].clone();
            let row = &mut reach[task];
            row[p] = true;
            for (a, r) in inherited.into_iter().enumerate() {
                row[a] |= r;
            }
        }
    }
    Some(
        reach
            .iter()
            .map(|row| (0..count).filter(|&a| row[a]).collect())
            .collect(),
    )
}
