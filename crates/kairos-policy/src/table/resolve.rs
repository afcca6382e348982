//! Building a [`TablePlan`]: the header of the table file against the system, the tasks
//! flattened into job keys, each level's intervals resolved, sorted, tagged and checked.

use std::collections::HashMap;

use kairos_model::{Dag, McSystem, TableSet, TaskRef};

use super::plan::{DagPlan, LevelPlan, Slot, TablePlan, TaskPlan};
use super::TableError;

impl TablePlan {
    /// Resolves `tables` (times in ns, as [`TableSet::from_json`] gives them) for `system`.
    pub fn new(system: &McSystem, tables: &TableSet) -> Result<TablePlan, TableError> {
        let hyperperiod = system_hyperperiod(system, tables)?;
        let (tasks, dags, key_job) = flatten(system, hyperperiod)?;
        let names: HashMap<&str, usize> = tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        let context = Context {
            system,
            hyperperiod,
            tasks: &tasks,
            dags: &dags,
            key_count: key_job.len(),
            names: &names,
        };
        let levels = (0..system.levels.len())
            .map(|level| context.level_plan(tables, level))
            .collect::<Result<Vec<_>, _>>()?;
        let mut plan = TablePlan {
            hyperperiod,
            cores: system.cores,
            levels: system.levels.clone(),
            tasks,
            dags,
            key_job,
            tables: levels,
            instants: Vec::new(),
        };
        plan.check_task_overlaps()?;
        plan.instants = plan.collect_instants();
        Ok(plan)
    }

    /// A task runs on one core at a time: no engine can execute a table that breaks this.
    fn check_task_overlaps(&self) -> Result<(), TableError> {
        for (level, table) in self.tables.iter().enumerate() {
            let mut by_task = vec![Vec::new(); self.tasks.len()];
            for slot in table.by_core.iter().flatten() {
                by_task[slot.task].push((slot.start, slot.end));
            }
            for (task, spans) in by_task.iter_mut().enumerate() {
                spans.sort_unstable();
                if let Some(pair) = spans.windows(2).find(|p| p[0].1 > p[1].0) {
                    return Err(TableError::Tables(format!(
                        "level {}: {} has intervals [{}, {}) and [{}, {}) at the same time \
                         (check the file with `kairos validate-tables`)",
                        self.levels[level],
                        self.tasks[task].name,
                        pair[0].0,
                        pair[0].1,
                        pair[1].0,
                        pair[1].1
                    )));
                }
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

/// What resolving one level's table needs to know about the system.
struct Context<'a> {
    system: &'a McSystem,
    hyperperiod: u64,
    tasks: &'a [TaskPlan],
    dags: &'a [DagPlan],
    key_count: usize,
    names: &'a HashMap<&'a str, usize>,
}

impl Context<'_> {
    fn level_plan(&self, tables: &TableSet, level: usize) -> Result<LevelPlan, TableError> {
        let level_name = &self.system.levels[level];
        let bad = |what: String| TableError::Tables(format!("level {level_name}: {what}"));
        let mut by_core = vec![Vec::new(); self.system.cores];
        let mut last_end = vec![None; self.key_count];
        for interval in &tables.tables[level].intervals {
            let at = format!(
                "{} job {} [{}, {}) on core {}",
                interval.task, interval.job, interval.start, interval.end, interval.core
            );
            let task = *self
                .names
                .get(&*interval.task)
                .ok_or_else(|| bad(format!("unknown task {:?}", interval.task)))?;
            self.check_interval(interval, task, level)
                .map_err(|what| bad(format!("{at}: {what}")))?;
            let key = self.tasks[task].first_key + interval.job as usize;
            let end: &mut Option<u64> = &mut last_end[key];
            *end = Some(end.map_or(interval.end, |e: u64| e.max(interval.end)));
            by_core[interval.core].push(Slot {
                start: interval.start,
                end: interval.end,
                task,
                job: interval.job,
                key,
                last: false,
            });
        }
        for (core, slots) in by_core.iter_mut().enumerate() {
            slots.sort_by_key(|s| s.start);
            if let Some(pair) = slots.windows(2).find(|p| p[0].end > p[1].start) {
                return Err(bad(format!(
                    "intervals [{}, {}) and [{}, {}) overlap on core {core} \
                     (check the file with `kairos validate-tables`)",
                    pair[0].start, pair[0].end, pair[1].start, pair[1].end
                )));
            }
            for slot in slots.iter_mut() {
                slot.last = last_end[slot.key] == Some(slot.end);
            }
        }
        let bounds = by_core
            .iter()
            .map(|slots| bounds_of(slots, self.hyperperiod))
            .collect();
        let mut ends: Vec<(u64, usize)> = last_end
            .iter()
            .enumerate()
            .filter_map(|(key, end)| end.map(|e| (e, key)))
            .collect();
        ends.sort_unstable();
        Ok(LevelPlan {
            by_core,
            bounds,
            last_end,
            ends,
        })
    }

    fn check_interval(
        &self,
        interval: &kairos_model::Interval,
        task: usize,
        level: usize,
    ) -> Result<(), String> {
        let plan = &self.tasks[task];
        if plan.criticality() < level {
            return Err(format!(
                "the task does not run at this level (criticality {})",
                self.system.levels[plan.criticality()]
            ));
        }
        if interval.job >= self.dags[plan.dag].jobs_per_hyperperiod {
            return Err("no such job in one hyper-period".into());
        }
        if interval.start >= interval.end || interval.end > self.hyperperiod {
            return Err(format!(
                "an interval must be non-empty and inside [0, {})",
                self.hyperperiod
            ));
        }
        if interval.core >= self.system.cores {
            return Err(format!("the system has {} cores", self.system.cores));
        }
        Ok(())
    }
}

/// Interval starts and ends of one core plus the hyper-period, sorted, distinct.
fn bounds_of(slots: &[Slot], hyperperiod: u64) -> Vec<u64> {
    let mut bounds: Vec<u64> = slots
        .iter()
        .flat_map(|s| [s.start, s.end])
        .chain([hyperperiod])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

/// The system's hyper-period, which the tables must have been built for.
fn system_hyperperiod(system: &McSystem, tables: &TableSet) -> Result<u64, TableError> {
    let bad = |what: String| Err(TableError::Tables(what));
    if system.levels.is_empty() {
        return Err(TableError::System("no criticality levels".into()));
    }
    if system.cores == 0 {
        return Err(TableError::System("no cores".into()));
    }
    let hyperperiod = system
        .hyperperiod()
        .ok_or_else(|| TableError::System("the hyper-period overflows 64-bit nanoseconds".into()))?
        .as_nanos();
    if tables.unit != "ns" {
        return bad(format!(
            "times must be in ns (read the file with TableSet::from_json), not {:?}",
            tables.unit
        ));
    }
    if tables.hyperperiod != hyperperiod {
        return bad(format!(
            "the tables cover a hyper-period of {} ns, the system's is {hyperperiod} ns: \
             were they synthesized for this system?",
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
    if let Some((level, table)) = (tables.tables.iter().enumerate())
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
fn flatten(system: &McSystem, hyperperiod: u64) -> Result<Flattened, TableError> {
    let (mut tasks, mut dags, mut key_job) = (Vec::new(), Vec::new(), Vec::new());
    for (d, dag) in system.dags.iter().enumerate() {
        let (period, deadline) = (dag.period.as_nanos(), dag.deadline.as_nanos());
        if period == 0 || deadline == 0 || deadline > period {
            return Err(TableError::System(format!(
                "DAG {}: the table policy needs 0 < deadline <= period",
                dag.name
            )));
        }
        let jobs_per_hyperperiod = hyperperiod / period;
        let first_flat = tasks.len();
        let ancestors = ancestors(dag).ok_or_else(|| {
            TableError::System(format!("DAG {}: the edges do not form a DAG", dag.name))
        })?;
        for (t, task) in dag.tasks.iter().enumerate() {
            let name = system.qualified_name(TaskRef { dag: d, task: t });
            if task.wcet.is_empty() || task.wcet.len() > system.levels.len() {
                return Err(TableError::System(format!(
                    "{name} has {} WCETs for {} levels",
                    task.wcet.len(),
                    system.levels.len()
                )));
            }
            tasks.push(TaskPlan {
                name,
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
    if (dag.edges.iter()).any(|&(from, to)| from >= count || to >= count) {
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
    let reached = |row: &Vec<bool>| (0..count).filter(|&a| row[a]).collect();
    Some(reach.iter().map(reached).collect())
}
