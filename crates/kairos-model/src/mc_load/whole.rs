//! Rules over a whole DAG or system: cycles (named by their shortest loop), work and critical
//! paths per level, the hyper-period and the utilization per level.

use super::*;

/// Reports one cycle per strongly connected component; whether the DAG is acyclic.
pub(super) fn cycles(dag: &Dag, edges_loc: &Loc, dag_loc: &Loc, out: &mut Diagnostics) -> bool {
    if dag.topological_order().is_some() {
        return true;
    }
    let loc = if edges_loc.path.is_empty() {
        dag_loc
    } else {
        edges_loc
    };
    let succs = dag.successors();
    for component in strongly_connected(&succs) {
        if component.len() < 2 {
            continue;
        }
        let start = *component.iter().min().expect("non-empty");
        let cycle = shortest_cycle(start, &succs, &component);
        let names: Vec<&str> = cycle.iter().map(|&t| dag.tasks[t].name.as_str()).collect();
        out.push(
            loc.put(
                Diagnostic::error(format!("cycle {}", names.join(" -> ")))
                    .with_hint("precedence edges must form a DAG: remove one edge of the cycle"),
            ),
        );
    }
    false
}

/// Tarjan's algorithm, iterative; components in no particular order, each sorted.
pub(super) fn strongly_connected(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (vertex, next successor to visit)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = succs[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort_unstable();
                components.push(component);
            }
        }
    }
    components.sort();
    components
}

/// The shortest cycle through `start` within `component`: `start, ..., start`.
pub(super) fn shortest_cycle(
    start: usize,
    succs: &[Vec<usize>],
    component: &[usize],
) -> Vec<usize> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &succs[v] {
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    at = parent[&at];
                    path.push(at);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if component.binary_search(&w).is_ok() && !parent.contains_key(&w) && w != start {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}

/// The work of the DAG at each level must fit 64-bit nanoseconds (so utilizations can be
/// computed), and its critical path at each level must fit within the deadline.
pub(super) fn work_and_critical_paths(
    dag: &Dag,
    level_count: usize,
    levels: &LevelNames<'_>,
    loc: &Loc,
    out: &mut Diagnostics,
) {
    let order = dag.topological_order().expect("acyclic");
    let preds = dag.predecessors();
    for level in 0..level_count {
        let weight =
            |t: usize| u128::from(dag.tasks[t].wcet_at(level).map_or(0, Duration::as_nanos));
        let work: u128 = (0..dag.tasks.len()).map(weight).sum();
        if work > u128::from(MAX_DURATION.as_nanos()) {
            out.push(loc.put(
                Diagnostic::error(format!(
                    "the DAG's total wcet at {} exceeds the supported maximum of 2^60 ns (about 36.5 years)",
                    levels.name(level)
                ))
                .with_hint("real-time budgets are far shorter; check the units"),
            ));
            continue;
        }
        // Longest path ending at each task; ties keep the first predecessor in edge order.
        let mut finish = vec![0u128; dag.tasks.len()];
        let mut via: Vec<Option<usize>> = vec![None; dag.tasks.len()];
        for &t in &order {
            let mut best: Option<usize> = None;
            for &p in &preds[t] {
                if best.is_none_or(|b| finish[p] > finish[b]) {
                    best = Some(p);
                }
            }
            finish[t] = best.map_or(0, |b| finish[b]) + weight(t);
            via[t] = best;
        }
        let Some(end) = (0..dag.tasks.len()).max_by_key(|&t| (finish[t], std::cmp::Reverse(t)))
        else {
            continue;
        };
        let length = finish[end];
        if length <= u128::from(dag.deadline.as_nanos()) {
            continue;
        }
        let mut path = vec![end];
        while let Some(p) = via[*path.last().expect("non-empty")] {
            path.push(p);
        }
        path.reverse();
        // Tasks that do not run at this level weigh nothing: leave them off both ends.
        let runs = |t: &usize| dag.tasks[*t].runs_at(level);
        let first = path.iter().position(runs).unwrap_or(0);
        let last = path.iter().rposition(runs).unwrap_or(path.len() - 1);
        let names: Vec<&str> = path[first..=last]
            .iter()
            .map(|&t| dag.tasks[t].name.as_str())
            .collect();
        out.push(loc.put(
            Diagnostic::error(format!(
                "critical path at {} is {}, longer than the deadline {}: {}",
                levels.name(level),
                Duration::from_nanos(length as u64),
                dag.deadline,
                names.join(" -> ")
            ))
            .with_hint("no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline"),
        ));
    }
}

/// The hyper-period must not exceed the longest supported duration; whether it does not.
pub(super) fn hyperperiod(dags: &[Dag], loc: &Loc, out: &mut Diagnostics) -> bool {
    let h = dags
        .iter()
        .try_fold(1u64, |acc, dag| checked_lcm(acc, dag.period.as_nanos()));
    if h.is_some_and(|h| h <= MAX_DURATION.as_nanos()) {
        return true;
    }
    out.push(loc.put(
        Diagnostic::error(
            "the hyper-period (lcm of the DAG periods) exceeds the supported maximum of 2^60 ns (about 36.5 years)",
        )
        .with_hint("tables cover one hyper-period: choose periods on a common grid (e.g. whole milliseconds from a small set)"),
    ));
    false
}

pub(super) fn utilization(system: &McSystem, loc: &Loc, out: &mut Diagnostics) {
    for level in 0..system.level_count() {
        let u = system.utilization_at(level);
        if u > system.cores as f64 {
            out.push(loc.put(
                Diagnostic::warning(format!(
                    "utilization at {} is {u:.3}, above the {} core(s)",
                    system.levels[level], system.cores
                ))
                .with_hint("deadlines will be missed at that level under any scheduler: add cores or lower the wcets"),
            ));
        }
    }
}

// ---- writing ----------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_cycle_through_the_smallest_task() {
        // 0 -> 1 -> 2 -> 0, and 1 -> 3 -> 1
        let succs = vec![vec![1], vec![2, 3], vec![0], vec![1]];
        let components = strongly_connected(&succs);
        assert_eq!(components, vec![vec![0, 1, 2, 3]]);
        assert_eq!(shortest_cycle(0, &succs, &components[0]), vec![0, 1, 2, 0]);
        assert_eq!(shortest_cycle(3, &succs, &components[0]), vec![3, 1, 3]);
    }

    #[test]
    fn separate_components() {
        let succs = vec![vec![1], vec![0], vec![3], vec![2], vec![]];
        assert_eq!(
            strongly_connected(&succs),
            vec![vec![0, 1], vec![2, 3], vec![4]]
        );
    }
}
