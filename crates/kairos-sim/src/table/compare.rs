//! Does a recorded run follow one table exactly? Without overruns and with every job running its
//! level-0 WCET, a G-RES run must execute table 0 interval by interval (seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 5: a table-driven schedule is replayed as is).

use std::collections::HashMap;

use kairos_model::{McSystem, TableSet};
use kairos_trace::Trace;

/// One piece of execution: `(core, task name, job since time 0, start, end)` in ns.
type Piece = (usize, String, u64, u64, u64);

/// `Ok` when the execution segments of `trace` are exactly table `level` of `tables` (times in
/// ns) repeated every hyper-period and cut at the end of the trace; otherwise the first
/// difference. Adjacent pieces of one job on one core count as one on both sides, so how
/// intervals are split does not matter.
pub fn table_matches_trace(
    system: &McSystem,
    tables: &TableSet,
    level: usize,
    trace: &Trace,
) -> Result<(), String> {
    let table = tables
        .tables
        .get(level)
        .ok_or_else(|| format!("no table for level {level}"))?;
    let jobs_per_hyperperiod: HashMap<String, u64> = system
        .task_refs()
        .map(|t| {
            let period = system.dags[t.dag].period.as_nanos().max(1);
            (system.qualified_name(t), tables.hyperperiod / period)
        })
        .collect();
    let end = trace.end.as_nanos();
    let mut expected = Vec::new();
    let repeats = (0..).map(|g: u64| g * tables.hyperperiod);
    for base in repeats.take_while(|&base| base < end && tables.hyperperiod > 0) {
        let generation = base / tables.hyperperiod;
        for interval in &table.intervals {
            let per = jobs_per_hyperperiod
                .get(&*interval.task)
                .ok_or_else(|| format!("the table names an unknown task {}", interval.task))?;
            let (start, stop) = (base + interval.start, (base + interval.end).min(end));
            if start < stop {
                let job = generation * per + interval.job;
                expected.push((interval.core, interval.task.to_string(), job, start, stop));
            }
        }
    }
    let actual = trace
        .segments()
        .map(|(core, task, job, start, end)| {
            let name = trace.task_names.get(task).cloned().unwrap_or_default();
            (core, name, job, start.as_nanos(), end.as_nanos())
        })
        .collect();
    compare(merged(expected), merged(actual))
}

/// Sorted by core then time, adjacent pieces of the same job on the same core joined.
fn merged(mut pieces: Vec<Piece>) -> Vec<Piece> {
    pieces.sort_by(|a, b| (a.0, a.3, &a.1, a.2).cmp(&(b.0, b.3, &b.1, b.2)));
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match out.last_mut() {
            Some(last)
                if (last.0, &last.1, last.2, last.4) == (piece.0, &piece.1, piece.2, piece.3) =>
            {
                last.4 = piece.4;
            }
            _ => out.push(piece),
        }
    }
    out
}

fn compare(expected: Vec<Piece>, actual: Vec<Piece>) -> Result<(), String> {
    let show = |p: &Piece| format!("{} job {} on core {} [{}, {})", p.1, p.2, p.0, p.3, p.4);
    let mut expected = expected.iter();
    let mut actual = actual.iter();
    loop {
        match (expected.next(), actual.next()) {
            (None, None) => return Ok(()),
            (Some(e), Some(a)) if e == a => continue,
            (Some(e), Some(a)) => {
                return Err(format!("the table has {}, the run {}", show(e), show(a)))
            }
            (Some(e), None) => return Err(format!("the run lacks {}", show(e))),
            (None, Some(a)) => return Err(format!("the run has an extra {}", show(a))),
        }
    }
}
