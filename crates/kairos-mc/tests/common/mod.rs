//! Test helpers: a brute-force checker of the shared table semantics (written from the
//! definitions, sharing nothing with the synthesizer) and small system builders.
#![allow(dead_code)]

use kairos_model::{Dag, Duration, Interval, McSystem, McTask, TableSet};
use std::collections::HashMap;

pub fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

pub fn task(name: &str, wcet_ms: &[u64]) -> McTask {
    McTask {
        name: name.into(),
        wcet: wcet_ms.iter().map(|&w| ms(w)).collect(),
    }
}

pub fn dag(
    name: &str,
    period: u64,
    deadline: u64,
    tasks: Vec<McTask>,
    edges: &[(usize, usize)],
) -> Dag {
    Dag {
        name: name.into(),
        period: ms(period),
        deadline: ms(deadline),
        tasks,
        edges: edges.to_vec(),
    }
}

pub fn system(cores: usize, levels: usize, dags: Vec<Dag>) -> McSystem {
    McSystem {
        name: None,
        cores,
        levels: (0..levels).map(|l| format!("L{l}")).collect(),
        dags,
    }
}

/// Every violation of the shared semantics in `tables` for `system`; empty when valid.
pub fn violations(system: &McSystem, tables: &TableSet) -> Vec<String> {
    let mut out = Vec::new();
    let h = system.hyperperiod().unwrap().as_nanos();
    if tables.hyperperiod != h || tables.tables.len() != system.levels.len() {
        out.push("wrong hyper-period or level count".into());
        return out;
    }
    for (level, table) in tables.tables.iter().enumerate() {
        check_level(system, tables.cores, level, &table.intervals, &mut out);
    }
    for level in 0..tables.tables.len().saturating_sub(1) {
        check_transition(system, level, tables, &mut out);
    }
    out
}

/// Intervals of each `(task, job)`, sorted by start.
fn by_job(intervals: &[Interval]) -> HashMap<(String, u64), Vec<&Interval>> {
    let mut map: HashMap<(String, u64), Vec<&Interval>> = HashMap::new();
    for iv in intervals {
        map.entry((iv.task.to_string(), iv.job))
            .or_default()
            .push(iv);
    }
    for list in map.values_mut() {
        list.sort_by_key(|iv| iv.start);
    }
    map
}

fn check_level(
    system: &McSystem,
    cores: usize,
    level: usize,
    intervals: &[Interval],
    out: &mut Vec<String>,
) {
    let h = system.hyperperiod().unwrap().as_nanos();
    let jobs = by_job(intervals);
    let mut expected = 0;
    for (g, d) in system.dags.iter().enumerate() {
        let reach = reachability(d);
        for k in 0..h / d.period.as_nanos() {
            let release = k * d.period.as_nanos();
            let deadline = release + d.deadline.as_nanos();
            for (i, t) in d.tasks.iter().enumerate() {
                let Some(c) = t.wcet_at(level) else { continue };
                expected += 1;
                let name = format!("{}/{}", d.name, t.name);
                let list = jobs.get(&(name.clone(), k)).cloned().unwrap_or_default();
                let total: u64 = list.iter().map(|iv| iv.end - iv.start).sum();
                if total != c.as_nanos() {
                    out.push(format!(
                        "L{level} {name}#{k}: {total} ns instead of {}",
                        c.as_nanos()
                    ));
                }
                if list
                    .iter()
                    .any(|iv| iv.start < release || iv.end > deadline)
                {
                    out.push(format!("L{level} {name}#{k}: outside its window"));
                }
                let _ = g;
                for (j, succ) in d.tasks.iter().enumerate() {
                    if !reach[i][j] || !succ.runs_at(level) {
                        continue;
                    }
                    let sname = format!("{}/{}", d.name, succ.name);
                    let end = list.iter().map(|iv| iv.end).max().unwrap_or(0);
                    let start = jobs
                        .get(&(sname.clone(), k))
                        .and_then(|l| l.first())
                        .map(|iv| iv.start);
                    if start.is_some_and(|s| s < end) {
                        out.push(format!("L{level} precedence {name}#{k} -> {sname}#{k}"));
                    }
                }
            }
        }
    }
    if jobs.len() != expected {
        out.push(format!(
            "L{level}: {} jobs in the table, {expected} expected",
            jobs.len()
        ));
    }
    for iv in intervals {
        if iv.core >= cores || iv.start >= iv.end {
            out.push(format!("L{level}: bad interval {iv:?}"));
        }
    }
    overlaps(intervals, |iv| iv.core.to_string(), "core", level, out);
    overlaps(intervals, |iv| iv.task.to_string(), "task", level, out);
}

fn overlaps(
    intervals: &[Interval],
    key: impl Fn(&Interval) -> String,
    what: &str,
    level: usize,
    out: &mut Vec<String>,
) {
    let mut groups: HashMap<String, Vec<&Interval>> = HashMap::new();
    for iv in intervals {
        groups.entry(key(iv)).or_default().push(iv);
    }
    for (k, mut list) in groups {
        list.sort_by_key(|iv| iv.start);
        for pair in list.windows(2) {
            if pair[1].start < pair[0].end {
                out.push(format!(
                    "L{level}: {what} {k} runs two intervals at once at {}",
                    pair[1].start
                ));
            }
        }
    }
}

/// `reach[a][b]`: a path a -> ... -> b exists (a != b).
fn reachability(d: &Dag) -> Vec<Vec<bool>> {
    let n = d.tasks.len();
    let mut reach = vec![vec![false; n]; n];
    for (a, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![a];
        while let Some(v) = stack.pop() {
            for &(from, to) in &d.edges {
                if from == v && !row[to] {
                    row[to] = true;
                    stack.push(to);
                }
            }
        }
    }
    reach
}

/// Execution received before `t`.
fn received(list: &[&Interval], t: u64) -> u64 {
    list.iter()
        .map(|iv| iv.end.min(t).saturating_sub(iv.start))
        .sum()
}

fn check_transition(system: &McSystem, level: usize, tables: &TableSet, out: &mut Vec<String>) {
    let low = by_job(&tables.tables[level].intervals);
    let high = by_job(&tables.tables[level + 1].intervals);
    for (key, hi) in &high {
        let lo = low.get(key).cloned().unwrap_or_default();
        let f = lo.iter().map(|iv| iv.end).max().unwrap_or(0);
        let mut points: Vec<u64> = lo
            .iter()
            .chain(hi.iter())
            .flat_map(|iv| [iv.start, iv.end])
            .collect();
        points.push(f);
        for t in points.into_iter().filter(|&t| t <= f) {
            if received(&lo, t) < received(hi, t) {
                out.push(format!(
                    "unsafe L{level}->L{} for {}#{} at {t}",
                    level + 1,
                    key.0,
                    key.1
                ));
                break;
            }
        }
    }
    let _ = system;
}
