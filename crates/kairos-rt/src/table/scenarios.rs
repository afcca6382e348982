//! Systems and tables built by hand for the runtime tests and the section 7 experiments of
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems" (7.1 mode change vs number of tasks, 7.3 the worst case
//! where every task migrates to the next core at every window). Each table set satisfies the
//! shared validity rules: exact budgets inside release and deadline and no overlap per core
//! (checked by this module's tests), no task on two cores at once, and safe transitions
//! between consecutive levels (by construction: a task's intervals start at the same instants
//! at every level, so the higher level never gets ahead of the lower one).

use kairos_model::{Dag, Duration, Interval, LevelTable, McSystem, McTask, TableSet};

fn ns(v: u64) -> Duration {
    Duration::from_nanos(v)
}

fn interval(task: String, job: u64, core: usize, start: u64, end: u64) -> Interval {
    Interval {
        task: task.into(),
        job,
        core,
        start,
        end,
    }
}

fn table_set(
    hyperperiod: u64,
    cores: usize,
    levels: &[&str],
    tables: Vec<Vec<Interval>>,
) -> TableSet {
    TableSet {
        unit: "ns".into(),
        hyperperiod,
        cores,
        levels: levels.iter().map(|l| l.to_string()).collect(),
        policy: Some("hand-built".into()),
        tables: levels
            .iter()
            .zip(tables)
            .map(|(l, intervals)| LevelTable {
                level: l.to_string(),
                intervals,
            })
            .collect(),
    }
}

/// Section 7.3: `tasks` tasks on `cores` cores (`tasks <= cores`); the hyper-period has
/// `windows` windows of `window_ns`, and at every window boundary each task moves to the next
/// core (task `i` runs on core `(i + w) mod cores` in window `w`). With `tasks == cores` every
/// boundary is a cyclic instantaneous migration of every task; with one task on two cores it is
/// the single slot-boundary migration of `kairos bench migration`. One level; each task's
/// single job per hyper-period owns all its windows.
pub fn cyclic(tasks: usize, cores: usize, window_ns: u64, windows: u64) -> (McSystem, TableSet) {
    let (cores, tasks) = (cores.max(1), tasks.clamp(1, cores.max(1)));
    let period = window_ns * windows;
    let mc_tasks: Vec<McTask> = (0..tasks)
        .map(|i| McTask {
            name: format!("t{i}"),
            wcet: vec![ns(period)],
        })
        .collect();
    let system = McSystem {
        name: Some(format!("cyclic-{tasks}-on-{cores}")),
        cores,
        levels: vec!["LO".into()],
        dags: vec![Dag {
            name: "cyc".into(),
            period: ns(period),
            deadline: ns(period),
            tasks: mc_tasks,
            edges: vec![],
        }],
    };
    let intervals = (0..windows)
        .flat_map(|w| {
            (0..tasks).map(move |i| {
                let core = (i + w as usize) % cores;
                interval(
                    format!("cyc/t{i}"),
                    0,
                    core,
                    w * window_ns,
                    (w + 1) * window_ns,
                )
            })
        })
        .collect();
    (system, table_set(period, cores, &["LO"], vec![intervals]))
}

/// Section 7.1: `tasks` independent tasks on `cores` cores, two levels. Tasks are dealt to
/// cores in turn; on each core the first half are HI (C = `unit`, 2 `unit`), the rest LO
/// (C = `unit`). The HI table runs each core's HI tasks back to back with their HI budgets;
/// the LO table starts each HI task at the same instant with its LO budget (so every
/// transition is safe) and runs the LO tasks after the HI part; cores other than 0 start half
/// a unit late. The first HI task of core 0 (`"mc/t0"`) is the one to overrun.
pub fn mode_change(tasks: usize, cores: usize, unit: u64) -> (McSystem, TableSet) {
    let cores = cores.max(1);
    let per_core: Vec<Vec<usize>> = (0..cores)
        .map(|c| (0..tasks).filter(|i| i % cores == c).collect())
        .collect();
    let is_hi = |i: usize| {
        let mine = &per_core[i % cores];
        mine.iter().position(|&x| x == i).unwrap_or(0) < mine.len().div_ceil(2)
    };
    let busiest = per_core
        .iter()
        .map(|m| m.len().div_ceil(2) * 2 + m.len() / 2)
        .max()
        .unwrap_or(1) as u64;
    let period = unit * (busiest + 1);
    let mc_tasks = (0..tasks)
        .map(|i| McTask {
            name: format!("t{i}"),
            wcet: if is_hi(i) {
                vec![ns(unit), ns(2 * unit)]
            } else {
                vec![ns(unit)]
            },
        })
        .collect();
    let system = McSystem {
        name: Some(format!("mode-change-{tasks}")),
        cores,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "mc".into(),
            period: ns(period),
            deadline: ns(period),
            tasks: mc_tasks,
            edges: vec![],
        }],
    };
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    for (core, mine) in per_core.iter().enumerate() {
        // Cores other than 0 start half a unit later, so no boundary of theirs coincides with
        // the overrun: the mode change reaches them through the rescheduling request alone.
        let mut at = if core == 0 { 0 } else { unit / 2 };
        for &i in mine.iter().filter(|&&i| is_hi(i)) {
            lo.push(interval(format!("mc/t{i}"), 0, core, at, at + unit));
            hi.push(interval(format!("mc/t{i}"), 0, core, at, at + 2 * unit));
            at += 2 * unit;
        }
        for &i in mine.iter().filter(|&&i| !is_hi(i)) {
            lo.push(interval(format!("mc/t{i}"), 0, core, at, at + unit));
            at += unit;
        }
    }
    (
        system,
        table_set(period, cores, &["LO", "HI"], vec![lo, hi]),
    )
}

/// Two HI tasks, one per core, whose level-0 budgets end at the same instant, in a
/// three-level system: overrunning both with their MID budget makes two simultaneous
/// overrun detections, which must raise the mode once (to MID, not HI).
pub fn twin_overruns(unit: u64) -> (McSystem, TableSet) {
    let period = 8 * unit;
    let task = |name: &str| McTask {
        name: name.into(),
        wcet: vec![ns(unit), ns(2 * unit), ns(3 * unit)],
    };
    let system = McSystem {
        name: Some("twin".into()),
        cores: 2,
        levels: vec!["LO".into(), "MID".into(), "HI".into()],
        dags: vec![Dag {
            name: "tw".into(),
            period: ns(period),
            deadline: ns(period),
            tasks: vec![task("x"), task("y")],
            edges: vec![],
        }],
    };
    let tables = (1..=3)
        .map(|c| {
            vec![
                interval("tw/x".into(), 0, 0, 0, c * unit),
                interval("tw/y".into(), 0, 1, 0, c * unit),
            ]
        })
        .collect();
    (system, table_set(period, 2, &["LO", "MID", "HI"], tables))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Budgets per (level, task, job) and per-core overlap: the rules the runtime relies on.
    fn check(system: &McSystem, tables: &TableSet) {
        for (level, table) in tables.tables.iter().enumerate() {
            for r in system.task_refs() {
                let task = system.task(r);
                let name = system.qualified_name(r);
                let got: u64 = table
                    .intervals
                    .iter()
                    .filter(|i| *i.task == *name)
                    .map(|i| i.end - i.start)
                    .sum();
                let want = task.wcet_at(level).map_or(0, |w| w.as_nanos());
                assert_eq!(got, want, "{name} at level {level}");
            }
            for core in 0..tables.cores {
                let mut mine: Vec<_> = table.intervals.iter().filter(|i| i.core == core).collect();
                mine.sort_by_key(|i| i.start);
                assert!(mine.windows(2).all(|w| w[0].end <= w[1].start));
            }
        }
    }

    #[test]
    fn scenarios_are_valid() {
        let (s, t) = cyclic(3, 3, 1_000, 4);
        check(&s, &t);
        let (s, t) = cyclic(1, 2, 1_000, 4);
        check(&s, &t);
        for n in [4, 8, 12, 16] {
            let (s, t) = mode_change(n, 2, 1_000);
            check(&s, &t);
        }
        let (s, t) = twin_overruns(1_000);
        check(&s, &t);
    }

    #[test]
    fn cyclic_moves_every_task_at_every_window() {
        let (_, t) = cyclic(2, 2, 10, 4);
        let t0: Vec<usize> = t.tables[0]
            .intervals
            .iter()
            .filter(|i| &*i.task == "cyc/t0")
            .map(|i| i.core)
            .collect();
        assert_eq!(t0, vec![0, 1, 0, 1]);
    }
}
