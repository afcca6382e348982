//! Federated baseline, as the MC-DAG framework compares GMH-MC-DAG against it (seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2 cites the framework; notes `mixed-criticality.md`,
//! "The reference benchmark protocol": "against a federated baseline (heavy DAGs get dedicated
//! cores)").
//!
//! 1. A DAG is *heavy* when its utilization exceeds 1 at some level. Each heavy DAG, in file
//!    order, gets the smallest number of dedicated cores (from the ceiling of its largest
//!    utilization up) on which GMH synthesis of that DAG alone succeeds at every level.
//! 2. The *light* DAGs share the cores left: each runs sequentially (its tasks chained in
//!    topological order, which keeps every original precedence), and they are synthesized
//!    together on those cores.
//! 3. Each part's tables repeat over the system's hyper-period (a part's hyper-period divides
//!    it; job numbers continue across the repetitions) and its cores are renumbered after the
//!    previous parts', so the result is one [`TableSet`] the same validator checks.

use crate::error::SynthFailure;
use crate::grid::Grid;
use crate::{measure, synthesize, SynthOptions, Synthesis};
use kairos_model::{Dag, Duration, Interval, LevelTable, McSystem, TableSet};

/// The federated baseline's tables, or why the cores ran out.
pub fn federated(system: &McSystem, options: &SynthOptions) -> Result<Synthesis, SynthFailure> {
    let grid = Grid::of(system)?;
    let cores = options.cores.unwrap_or(system.cores);
    let (heavy, light): (Vec<&Dag>, Vec<&Dag>) = system
        .dags
        .iter()
        .partition(|dag| max_utilization(system, dag) > 1.0);
    let mut parts: Vec<(TableSet, usize)> = Vec::new();
    let mut used = 0;
    for dag in heavy {
        let (tables, count) = dedicated(system, dag, cores - used, options)?;
        parts.push((tables, used));
        used += count;
    }
    if !light.is_empty() {
        let left = cores - used;
        if left == 0 {
            return Err(SynthFailure::OutOfCores(format!(
                "the heavy DAGs took all {cores} core(s); none is left for the {} light DAG(s)",
                light.len()
            )));
        }
        let sub = McSystem {
            cores: left,
            dags: light.iter().map(|dag| chained(dag)).collect(),
            ..system.clone()
        };
        let out = synthesize(&sub, &part_options(options, left)).map_err(|e| {
            SynthFailure::OutOfCores(format!(
                "the light DAGs, each sequential, do not fit on the {left} core(s) left: {e}"
            ))
        })?;
        parts.push((out.tables, used));
    }
    let hyperperiod = grid.hyperperiod * grid.slot_ns;
    let tables = merge(system, cores, hyperperiod, options, &parts);
    let quality = measure(&tables);
    Ok(Synthesis {
        tables,
        quality,
        slot: Duration::from_nanos(grid.slot_ns),
    })
}

/// The largest utilization of `dag` over the levels.
fn max_utilization(system: &McSystem, dag: &Dag) -> f64 {
    (0..system.level_count())
        .map(|level| dag.utilization_at(level))
        .fold(0.0, f64::max)
}

fn part_options(options: &SynthOptions, cores: usize) -> SynthOptions {
    SynthOptions {
        policy: options.policy,
        cores: Some(cores),
    }
}

/// The smallest core count (at most `left`) on which `dag` alone is synthesized.
fn dedicated(
    system: &McSystem,
    dag: &Dag,
    left: usize,
    options: &SynthOptions,
) -> Result<(TableSet, usize), SynthFailure> {
    let sub = McSystem {
        cores: left.max(1),
        dags: vec![dag.clone()],
        ..system.clone()
    };
    let least = (max_utilization(system, dag).ceil() as usize).max(1);
    let mut last = None;
    for count in least..=left {
        match synthesize(&sub, &part_options(options, count)) {
            Ok(out) => return Ok((out.tables, count)),
            Err(e) if e.is_input_error() => return Err(e),
            Err(e) => last = Some((count, e)),
        }
    }
    let why = match last {
        Some((count, e)) => format!(" (on {count}: {e})"),
        None => format!(" (its utilization needs at least {least})"),
    };
    Err(SynthFailure::OutOfCores(format!(
        "heavy DAG {} cannot be scheduled on the {left} core(s) left{why}",
        dag.name
    )))
}

/// `dag` with its tasks in one chain, in topological order.
fn chained(dag: &Dag) -> Dag {
    let order = dag.topological_order().unwrap_or_default();
    Dag {
        edges: order.windows(2).map(|w| (w[0], w[1])).collect(),
        ..dag.clone()
    }
}

/// One table set over the whole hyper-period: parts repeated, cores shifted.
fn merge(
    system: &McSystem,
    cores: usize,
    hyperperiod: u64,
    options: &SynthOptions,
    parts: &[(TableSet, usize)],
) -> TableSet {
    let mut tables: Vec<LevelTable> = system
        .levels
        .iter()
        .map(|level| LevelTable {
            level: level.clone(),
            intervals: Vec::new(),
        })
        .collect();
    for (part, first_core) in parts {
        let repeats = hyperperiod / part.hyperperiod;
        for (level, table) in part.tables.iter().enumerate() {
            for iv in &table.intervals {
                let period = system
                    .find_task(&iv.task)
                    .map_or(part.hyperperiod, |t| system.dags[t.dag].period.as_nanos());
                let jobs_per_part = part.hyperperiod / period;
                for r in 0..repeats {
                    tables[level].intervals.push(Interval {
                        task: iv.task.clone(),
                        job: iv.job + r * jobs_per_part,
                        core: iv.core + first_core,
                        start: iv.start + r * part.hyperperiod,
                        end: iv.end + r * part.hyperperiod,
                    });
                }
            }
        }
    }
    for table in &mut tables {
        table.intervals.sort_by_key(|iv| (iv.start, iv.core));
    }
    TableSet {
        unit: "ns".into(),
        hyperperiod,
        cores,
        levels: system.levels.clone(),
        policy: Some(format!("federated-{}", options.policy.name())),
        tables,
    }
}
