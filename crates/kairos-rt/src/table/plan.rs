//! The dispatch plan of a table-driven run: the shared table plan
//! ([`kairos_policy::table::TablePlan`], the same one the simulator runs: per level and core the
//! intervals sorted by start with each job's last interval tagged, Pautet, Robert, Tardieu,
//! "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5.1
//! and 6.1), the CPU work each job really asks for, fixed before the run from the overrun
//! requests so a run is reproducible, and the run's length. Dispatchers and workers read it
//! without any lock.

use super::overrun::{demands, OverrunSpec};
use crate::periodic::RunError;
use kairos_model::{McSystem, TableSet};
use kairos_policy::table::{Slot, TableExecModel, TablePlan};

/// Everything the dispatchers and workers read.
#[derive(Clone, Debug)]
pub struct Plan {
    pub table: TablePlan,
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
        let table = TablePlan::new(system, tables).map_err(|e| RunError::Invalid(e.to_string()))?;
        if table.levels.len() > crate::mode::MAX_LEVELS {
            return Err(RunError::Invalid(format!(
                "{} levels: the mode word holds at most {}",
                table.levels.len(),
                crate::mode::MAX_LEVELS
            )));
        }
        let periods = duration.div_ceil(table.hyperperiod).max(1);
        let duration = periods
            .checked_mul(table.hyperperiod)
            .ok_or_else(|| RunError::Invalid("the run length overflows 64-bit ns".into()))?;
        let demand = demands(&table, duration, overruns)?;
        Ok(Plan {
            table,
            demand,
            duration,
        })
    }

    /// The slot of `core` covering `t` (inside the hyper-period) at `level`.
    pub fn slot_at(&self, level: usize, core: usize, t: u64) -> Option<&Slot> {
        self.table.tables[level].slot_at(core, t)
    }

    /// The first boundary of `core` at `level` strictly after `t` (at most the hyper-period).
    pub fn next_boundary(&self, level: usize, core: usize, t: u64) -> u64 {
        self.table.tables[level].next_bound(core, t, self.table.hyperperiod)
    }

    /// Every `(task, core)` pair that appears in some table: the worker threads to create.
    pub fn worker_pairs(&self) -> Vec<(usize, usize)> {
        self.table.task_core_pairs()
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
    /// Work of a job that does not overrun: its level-0 WCET, or drawn as the simulator draws
    /// it.
    pub execution_times: TableExecModel,
}

impl Default for OverrunRequest {
    /// No overrun; every job runs its whole demand.
    fn default() -> Self {
        OverrunRequest {
            jobs: Vec::new(),
            probability: 0.0,
            seed: 0,
            work_fraction: 1.0,
            execution_times: TableExecModel::Wcet,
        }
    }
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
        assert_eq!(p.table.global_job(0, 2, 0), 2);
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
        assert!(e.contains("unknown task"), "{e}");
    }
}
