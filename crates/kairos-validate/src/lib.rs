//! # kairos-validate
//!
//! An independent checker of mixed-criticality scheduling tables: it shares no code with the
//! synthesizer (`kairos-mc`) beyond the model types, so a table both accept is right twice.
//!
//! It checks one table per criticality level against an MC-DAG system (seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 4.1-4.2; notes/mixed-criticality.md, "What an independent
//! table validator checks"), in continuous nanosecond time on intervals, with no slot grid:
//!
//! | module | condition |
//! |---|---|
//! | `resolve` | levels, hyper-period, cores; each interval: known task running at that level, job in `0..H/T`, non-empty, core `< cores` |
//! | `budget` | each job receives exactly `C(l)` inside `[kT, kT + D]` |
//! | `overlap` | no task on two cores (or two of its jobs) at once; one interval per core at a time |
//! | `precedence` | job `k` of `b` starts after job `k` of every ancestor `a` (full-DAG paths) ends |
//! | `transition` | `A_l(j, t) >= A_{l+1}(j, t)` for `t <= f_l(j)`, every job, every consecutive pair |
//!
//! Every check sorts intervals once and sweeps: O(n log n) in the number of intervals (plus the
//! DAG size per job for precedence). The exact semantics are in docs/validate-tables.md.
//!
//! ```
//! use kairos_model::{Dag, Duration, Interval, LevelTable, McSystem, McTask, TableSet};
//! let ms = Duration::from_millis;
//! let system = McSystem {
//!     name: None,
//!     cores: 1,
//!     levels: vec!["LO".into()],
//!     dags: vec![Dag {
//!         name: "g".into(), period: ms(10), deadline: ms(10), edges: vec![],
//!         tasks: vec![McTask { name: "a".into(), wcet: vec![ms(2)] }],
//!     }],
//! };
//! let interval = Interval { task: "g/a".into(), job: 0, core: 0, start: 0, end: 2_000_000 };
//! let tables = TableSet {
//!     unit: "ns".into(), hyperperiod: 10_000_000, cores: 1, levels: vec!["LO".into()],
//!     policy: None, tables: vec![LevelTable { level: "LO".into(), intervals: vec![interval] }],
//! };
//! assert!(kairos_validate::validate(&system, &tables).is_valid());
//! ```
#![forbid(unsafe_code)]

mod budget;
mod jobs;
mod overlap;
mod precedence;
mod report;
mod resolve;
mod system;
mod transition;

pub use report::{Report, Violation, ViolationKind};

use jobs::Jobs;
use kairos_model::{McSystem, TableSet};
use resolve::Level;
use system::Flat;

/// Checks `tables` against `system` and returns every violation found.
///
/// Times in `tables` must be nanoseconds (`TableSet::from_json` converts files); a table set in
/// another unit gets one [`ViolationKind::Unit`] violation and nothing else is checked.
pub fn validate(system: &McSystem, tables: &TableSet) -> Report {
    let mut report = Report {
        intervals: tables.interval_count(),
        ..Report::default()
    };
    let out = &mut report.violations;
    if tables.unit != "ns" {
        out.push(Violation::new(
            ViolationKind::Unit,
            format!(
                "times are in {:?}; convert them to ns first (TableSet::from_json does)",
                tables.unit
            ),
        ));
        return report;
    }
    let Some(hyperperiod) = system.hyperperiod().map(|h| h.as_nanos()) else {
        out.push(Violation::new(
            ViolationKind::System,
            "the hyper-period (lcm of the periods) overflows 64-bit nanoseconds",
        ));
        return report;
    };
    check_acyclic(system, out);
    let flat = Flat::new(system, hyperperiod);
    let matched = resolve::match_tables(&flat, tables, hyperperiod, out);
    let mut levels: Vec<(Level, Jobs)> = Vec::with_capacity(matched.len());
    for (level, table) in matched {
        let resolved = resolve::resolve(&flat, level, table, out);
        let jobs = Jobs::new(&resolved);
        report.jobs += check_level(&flat, &resolved, &jobs, out);
        levels.push((resolved, jobs));
    }
    report.levels = levels.len();
    for pair in levels.windows(2) {
        let [(low, low_jobs), (high, high_jobs)] = pair else {
            continue;
        };
        if high.level == low.level + 1 {
            let pair = transition::Pair {
                low,
                low_jobs,
                high,
                high_jobs,
            };
            transition::check(&flat, &pair, out);
        }
    }
    report
}

/// Every per-level check; returns the number of jobs expected at that level.
fn check_level(flat: &Flat, level: &Level, jobs: &Jobs, out: &mut Vec<Violation>) -> u64 {
    budget::check_windows(flat, level, out);
    let expected = budget::check_budgets(flat, level, jobs, out);
    overlap::check_tasks(flat, level, out);
    overlap::check_cores(flat, level, out);
    precedence::check(flat, level, jobs, out);
    expected
}

/// A cyclic DAG has no precedence order to check against.
fn check_acyclic(system: &McSystem, out: &mut Vec<Violation>) {
    for dag in &system.dags {
        if dag.topological_order().is_none() {
            out.push(Violation::new(
                ViolationKind::System,
                format!(
                    "DAG {} has a cycle; its precedence is not checked",
                    dag.name
                ),
            ));
        }
    }
}
