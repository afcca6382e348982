//! Per-level deadlines and per-level precedence of an MC-DAG (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2, "a second constraint ... the task deadlines are refined"; notes
//! `mixed-criticality.md`, "Offline", step 1).
//!
//! All values are in slots, relative to the DAG job's release.
//! - Level 0 (built forwards): the latest finish time on the whole DAG with level-0 WCETs:
//!   `LFT(sink) = D`, otherwise `LFT(i) = min over successors s of LFT(s) - C_0(s)`.
//! - Level `l >= 1` (built backwards): the earliest start time on the FULL DAG with weights `C_l`
//!   (0 for tasks absent at `l`): `EST(source) = 0`, otherwise `EST(i) = max over predecessors p
//!   of EST(p) + C_l(p)`. Paths through absent tasks keep constraining, because precedence at a
//!   level follows paths of the full DAG. It is the lower end of a job's window in the backwards
//!   construction, the mirror image of the level-0 deadline.

use kairos_model::Dag;

/// Latest finish times (level 0) of every task of `dag`, from its level-0 WCETs in slots.
/// Negative when the DAG cannot fit its deadline.
pub fn latest_finish_times(dag: &Dag, order: &[usize], wcet0: &[u64], deadline: u64) -> Vec<i64> {
    let succs = dag.successors();
    let mut lft = vec![deadline as i64; dag.tasks.len()];
    for &task in order.iter().rev() {
        if let Some(min) = succs[task].iter().map(|&s| lft[s] - wcet0[s] as i64).min() {
            lft[task] = min;
        }
    }
    lft
}

/// Earliest start times at one level: `weights[i]` is `C_l(i)` in slots, 0 when task `i` does
/// not run at that level.
pub fn earliest_start_times(dag: &Dag, order: &[usize], weights: &[u64]) -> Vec<u64> {
    let preds = dag.predecessors();
    let mut est = vec![0u64; dag.tasks.len()];
    for &task in order {
        est[task] = preds[task]
            .iter()
            .map(|&p| est[p] + weights[p])
            .max()
            .unwrap_or(0);
    }
    est
}

/// Precedence among the tasks present at one level: for every present task, the present tasks
/// `p` with a path `p -> ... -> task` in the full DAG whose inner vertices are all absent. Their
/// transitive closure is the level's precedence relation (any present ancestor reaches the task
/// through the last present vertex of its path), so waiting for these is enough.
pub fn level_predecessors(dag: &Dag, present: &[bool]) -> Vec<Vec<usize>> {
    let preds = dag.predecessors();
    let mut result = vec![Vec::new(); dag.tasks.len()];
    let mut seen = vec![usize::MAX; dag.tasks.len()];
    for task in (0..dag.tasks.len()).filter(|&t| present[t]) {
        // Depth-first search backwards, stopping at present vertices.
        let mut stack: Vec<usize> = preds[task].clone();
        while let Some(v) = stack.pop() {
            if seen[v] == task {
                continue;
            }
            seen[v] = task;
            if present[v] {
                result[task].push(v);
            } else {
                stack.extend(preds[v].iter().copied());
            }
        }
        result[task].sort_unstable();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{Duration, McTask};

    /// a -> b -> c, a -> c, b is LO only; d is isolated.
    fn dag() -> Dag {
        let task = |name: &str, levels: usize| McTask {
            name: name.into(),
            wcet: vec![Duration::from_millis(1); levels],
        };
        Dag {
            name: "g".into(),
            period: Duration::from_millis(10),
            deadline: Duration::from_millis(10),
            tasks: vec![task("a", 2), task("b", 1), task("c", 2), task("d", 2)],
            edges: vec![(0, 1), (1, 2), (0, 2)],
        }
    }

    #[test]
    fn lft_follows_successors() {
        let dag = dag();
        let order = dag.topological_order().unwrap();
        let lft = latest_finish_times(&dag, &order, &[2, 3, 4, 1], 10);
        // c: sink 10; b: 10 - 4 = 6; a: min(6 - 3, 10 - 4) = 3; d: 10.
        assert_eq!(lft, vec![3, 6, 10, 10]);
        let tight = latest_finish_times(&dag, &order, &[5, 5, 5, 1], 10);
        assert!(tight[0] < 5, "a cannot fit: LFT {} < C {}", tight[0], 5);
    }

    #[test]
    fn est_counts_absent_tasks_as_zero_but_keeps_their_paths() {
        let dag = dag();
        let order = dag.topological_order().unwrap();
        // Level 1: b absent (weight 0).
        let est = earliest_start_times(&dag, &order, &[2, 0, 3, 1]);
        assert_eq!(est, vec![0, 2, 2, 0]);
        let est0 = earliest_start_times(&dag, &order, &[2, 3, 3, 1]);
        assert_eq!(est0, vec![0, 2, 5, 0]);
    }

    #[test]
    fn level_precedence_goes_through_absent_tasks() {
        let mut dag = dag();
        // a -> b -> c only: at level 1 (b absent) c still waits for a.
        dag.edges = vec![(0, 1), (1, 2)];
        let preds = level_predecessors(&dag, &[true, false, true, true]);
        assert_eq!(preds, vec![vec![], vec![], vec![0], vec![]]);
        let all = level_predecessors(&dag, &[true; 4]);
        assert_eq!(all, vec![vec![], vec![0], vec![1], vec![]]);
    }
}
