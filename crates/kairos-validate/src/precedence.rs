//! Precedence at one level (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.1: "a task is ready to be
//! executed as soon as all of its predecessors have completed"; section 4.2: precedence holds in
//! every mode). For tasks `a`, `b` both running at level `l` with a path `a -> ... -> b` in the
//! FULL DAG (through tasks absent at `l` too), job `k` of `b` starts no earlier than job `k` of
//! `a` ends.
//!
//! Instead of a transitive closure, one pass in topological order carries, for each task, the
//! latest end among its ancestors' jobs at this level: O(n + e) per DAG job present.

use crate::jobs::Jobs;
use crate::report::{Violation, ViolationKind};
use crate::resolve::Level;
use crate::system::Flat;
use kairos_model::Instant;
use std::collections::BTreeSet;

/// The latest-ending ancestor seen so far: (end, flat task index).
type Latest = Option<(u64, usize)>;

/// Reports every job that starts before an ancestor's job of the same DAG job has ended.
pub(crate) fn check(flat: &Flat, level: &Level, jobs: &Jobs, out: &mut Vec<Violation>) {
    let mut present: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); flat.system.dags.len()];
    for run in &jobs.runs {
        present[flat.tasks[run.task].dag].insert(run.job);
    }
    for (d, dag) in flat.system.dags.iter().enumerate() {
        let Some(order) = dag.topological_order() else {
            continue; // reported once by `lib::validate`
        };
        let base = flat.dag_start[d];
        let preds = dag.predecessors();
        for &k in &present[d] {
            let mut latest: Vec<Latest> = vec![None; dag.tasks.len()];
            for &v in &order {
                let mut before: Latest = None;
                for &u in &preds[v] {
                    let own = jobs.get(base + u, k).map(|r| (r.finish, base + u));
                    before = before.max(own).max(latest[u]);
                }
                latest[v] = before;
                if let (Some(run), Some((end, ancestor))) = (jobs.get(base + v, k), before) {
                    if run.start < end {
                        out.push(
                            Violation::new(
                                ViolationKind::Precedence,
                                format!(
                                    "its ancestor {} (job {k}) ends at {} but it starts",
                                    flat.tasks[ancestor].name,
                                    Instant::from_nanos(end)
                                ),
                            )
                            .level(flat.level_name(level.level))
                            .job(&flat.tasks[base + v].name, k)
                            .at(run.start),
                        );
                    }
                }
            }
        }
    }
}
