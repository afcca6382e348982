//! Systems and tables that are valid by construction, for the validator's tests.
//!
//! The layout: DAG `g` owns core `g`; within each DAG job, tasks run one after the other in
//! topological order, each in a window as long as its WCET at its own criticality, starting at
//! the same instant in every table. Table `l` runs the task for `C(l)` from the window's start.
//! Budgets, windows, exclusivity and precedence hold because the windows are disjoint and ordered;
//! transitions are safe because both tables run a job from the same instant, so up to the end of
//! its level-`l` run the two tables have given it the same amount.
#![allow(dead_code)]

use kairos_model::{Dag, Duration, Interval, LevelTable, McSystem, McTask, TableSet};

/// A DAG from WCET vectors (ns) and edges; the deadline is the period.
pub fn dag(name: &str, period: u64, wcets: &[&[u64]], edges: &[(usize, usize)]) -> Dag {
    Dag {
        name: name.into(),
        period: Duration::from_nanos(period),
        deadline: Duration::from_nanos(period),
        tasks: wcets
            .iter()
            .enumerate()
            .map(|(i, w)| McTask {
                name: format!("t{i}"),
                wcet: w.iter().map(|&c| Duration::from_nanos(c)).collect(),
            })
            .collect(),
        edges: edges.to_vec(),
    }
}

/// A system with one core per DAG.
pub fn system(levels: usize, dags: Vec<Dag>) -> McSystem {
    McSystem {
        name: None,
        cores: dags.len(),
        levels: (0..levels).map(|l| format!("L{l}")).collect(),
        dags,
    }
}

/// The tables of the layout above; every DAG's sum of top WCETs must fit its deadline.
pub fn sequential_tables(system: &McSystem) -> TableSet {
    let h = system.hyperperiod().unwrap().as_nanos();
    let tables = (0..system.levels.len())
        .map(|level| LevelTable {
            level: system.levels[level].clone(),
            intervals: level_intervals(system, level, h),
        })
        .collect();
    TableSet {
        unit: "ns".into(),
        hyperperiod: h,
        cores: system.cores,
        levels: system.levels.clone(),
        policy: None,
        tables,
    }
}

fn level_intervals(system: &McSystem, level: usize, h: u64) -> Vec<Interval> {
    let mut out = Vec::new();
    for (core, dag) in system.dags.iter().enumerate() {
        let period = dag.period.as_nanos();
        let order = dag.topological_order().unwrap();
        for job in 0..h / period {
            let mut at = job * period;
            for &t in &order {
                let task = &dag.tasks[t];
                if let Some(c) = task.wcet_at(level) {
                    out.push(Interval {
                        task: format!("{}/{}", dag.name, task.name).into(),
                        job,
                        core,
                        start: at,
                        end: at + c.as_nanos(),
                    });
                }
                at += task.wcet.last().unwrap().as_nanos();
            }
        }
    }
    out
}

/// Two levels; DAG `g` (period 10): t0 HI [2, 4] -> t1 LO [2] -> t2 HI [1, 2], so the HI path
/// t0 -> t2 passes through a LO task; DAG `h` (period 20): t0 HI [3, 5]. Hyper-period 20.
pub fn small() -> McSystem {
    system(
        2,
        vec![
            dag("g", 10, &[&[2, 4], &[2], &[1, 2]], &[(0, 1), (1, 2)]),
            dag("h", 20, &[&[3, 5]], &[]),
        ],
    )
}

/// Index of the interval of `task` job `job` in table `level`.
pub fn find(tables: &TableSet, level: usize, task: &str, job: u64) -> usize {
    tables.tables[level]
        .intervals
        .iter()
        .position(|i| *i.task == *task && i.job == job)
        .unwrap()
}
