//! Mixed-criticality DAG systems (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.1).
//!
//! A system runs on `cores` identical cores with criticality levels `levels[0] < levels[1] <
//! ...`; it starts in the lowest level. Each [`Dag`] is released every `period` and all its tasks
//! must finish within `deadline` of the release. A [`McTask`] has one WCET per level up to its
//! own criticality level and does not run above it (the discard model). Job `k` of a DAG is
//! released at `k * period`; the hyper-period is the least common multiple of the periods.
//!
//! Task names are unique within a DAG; a task is named `dag/task` across the system
//! ([`McSystem::qualified_name`]), which is also how table files refer to it.

use crate::time::{checked_lcm, Duration};
use serde::Serialize;

/// The most slots per hyper-period a scheduling table may have: beyond it the grid is too fine
/// to be a table anyone can store or run (and synthesis time grows with it).
pub const MAX_TABLE_SLOTS: u64 = 100_000_000;

/// A whole mixed-criticality system after decoding and validation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McSystem {
    pub name: Option<String>,
    /// Number of identical cores.
    pub cores: usize,
    /// Level names, lowest (the start mode) first.
    pub levels: Vec<String>,
    pub dags: Vec<Dag>,
}

/// One MC-DAG: a program released periodically.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dag {
    pub name: String,
    pub period: Duration,
    /// Relative deadline of every task of the DAG (constrained: `deadline <= period`).
    pub deadline: Duration,
    pub tasks: Vec<McTask>,
    /// Precedence edges `(from, to)` as indices into `tasks`.
    pub edges: Vec<(usize, usize)>,
}

/// A vertex of an MC-DAG.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McTask {
    pub name: String,
    /// WCET at levels `0..=criticality`, non-decreasing and non-zero. Its length is the task's
    /// criticality level plus one: the task is discarded at every higher level.
    pub wcet: Vec<Duration>,
}

impl McTask {
    /// The task's own criticality level (index into [`McSystem::levels`]).
    pub fn criticality(&self) -> usize {
        self.wcet.len().saturating_sub(1)
    }

    /// The WCET at `level`, or `None` when the task does not run at that level.
    pub fn wcet_at(&self, level: usize) -> Option<Duration> {
        self.wcet.get(level).copied()
    }

    /// Whether the task runs at `level`.
    pub fn runs_at(&self, level: usize) -> bool {
        level < self.wcet.len()
    }
}

/// Identifies a task across the system: DAG index and task index within the DAG.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TaskRef {
    pub dag: usize,
    pub task: usize,
}

impl Dag {
    /// Predecessors of each task (indices), in edge order.
    pub fn predecessors(&self) -> Vec<Vec<usize>> {
        let mut preds = vec![Vec::new(); self.tasks.len()];
        for &(from, to) in &self.edges {
            preds[to].push(from);
        }
        preds
    }

    /// Successors of each task (indices), in edge order.
    pub fn successors(&self) -> Vec<Vec<usize>> {
        let mut succs = vec![Vec::new(); self.tasks.len()];
        for &(from, to) in &self.edges {
            succs[from].push(to);
        }
        succs
    }

    /// Tasks in a topological order, or `None` if the edges contain a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let succs = self.successors();
        let mut in_degree = vec![0usize; self.tasks.len()];
        for &(_, to) in &self.edges {
            in_degree[to] += 1;
        }
        let mut ready: Vec<usize> = (0..self.tasks.len())
            .filter(|&t| in_degree[t] == 0)
            .rev()
            .collect();
        let mut order = Vec::with_capacity(self.tasks.len());
        while let Some(task) = ready.pop() {
            order.push(task);
            for &next in &succs[task] {
                in_degree[next] -= 1;
                if in_degree[next] == 0 {
                    ready.push(next);
                }
            }
        }
        (order.len() == self.tasks.len()).then_some(order)
    }

    /// Number of jobs of this DAG in one hyper-period.
    pub fn jobs_in(&self, hyperperiod: Duration) -> u64 {
        hyperperiod.as_nanos() / self.period.as_nanos()
    }

    /// Utilization at `level`: the sum of `C(level) / T` over the tasks that run there.
    pub fn utilization_at(&self, level: usize) -> f64 {
        let work: u64 = self
            .tasks
            .iter()
            .filter_map(|t| t.wcet_at(level))
            .map(Duration::as_nanos)
            .sum();
        work as f64 / self.period.as_nanos() as f64
    }
}

impl McSystem {
    /// Number of criticality levels.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// The hyper-period (lcm of the DAG periods), `None` on overflow of `u64` nanoseconds.
    pub fn hyperperiod(&self) -> Option<Duration> {
        self.dags
            .iter()
            .try_fold(1u64, |acc, dag| checked_lcm(acc, dag.period.as_nanos()))
            .map(Duration::from_nanos)
    }

    /// The slot of the system's scheduling tables: the greatest common divisor of every
    /// period, deadline and WCET, so that every time of the system is a whole number of slots
    /// and a table loses nothing (none for a system without a nonzero time).
    pub fn slot(&self) -> Option<Duration> {
        let times = self.dags.iter().flat_map(|dag| {
            let wcets = dag.tasks.iter().flat_map(|t| t.wcet.iter().copied());
            [dag.period, dag.deadline].into_iter().chain(wcets)
        });
        let slot = times.map(Duration::as_nanos).fold(0, crate::time::gcd);
        (slot > 0).then_some(Duration::from_nanos(slot))
    }

    /// Slots per hyper-period of the system's tables, if the hyper-period fits 64-bit
    /// nanoseconds.
    pub fn table_slots(&self) -> Option<u64> {
        Some(self.hyperperiod()?.as_nanos() / self.slot()?.as_nanos())
    }

    /// Why no scheduling table can be made for the system at its slot: more than
    /// [`MAX_TABLE_SLOTS`] slots per hyper-period.
    pub fn table_grid_problem(&self) -> Option<String> {
        let (slot, hyperperiod) = (self.slot()?, self.hyperperiod()?);
        let slots = hyperperiod.as_nanos() / slot.as_nanos();
        (slots > MAX_TABLE_SLOTS).then(|| {
            format!(
                "the slot grid is too fine: one slot is {slot} (the gcd of every period, \
                 deadline and WCET), so the hyper-period {hyperperiod} has {slots} slots, more \
                 than {MAX_TABLE_SLOTS}; round the WCETs to a coarser unit"
            )
        })
    }

    /// `dag/task`, the name tables and traces use.
    pub fn qualified_name(&self, task: TaskRef) -> String {
        let dag = &self.dags[task.dag];
        format!("{}/{}", dag.name, dag.tasks[task.task].name)
    }

    /// Resolves a `dag/task` name.
    pub fn find_task(&self, qualified: &str) -> Option<TaskRef> {
        let (dag_name, task_name) = qualified.split_once('/')?;
        let dag = self.dags.iter().position(|d| d.name == dag_name)?;
        let task = self.dags[dag]
            .tasks
            .iter()
            .position(|t| t.name == task_name)?;
        Some(TaskRef { dag, task })
    }

    /// Every task of the system, DAG by DAG.
    pub fn task_refs(&self) -> impl Iterator<Item = TaskRef> + '_ {
        self.dags
            .iter()
            .enumerate()
            .flat_map(|(dag, d)| (0..d.tasks.len()).map(move |task| TaskRef { dag, task }))
    }

    pub fn task(&self, task: TaskRef) -> &McTask {
        &self.dags[task.dag].tasks[task.task]
    }

    /// Utilization at `level`: the sum of `C(level) / T` over the tasks that run there.
    pub fn utilization_at(&self, level: usize) -> f64 {
        self.dags.iter().map(|dag| dag.utilization_at(level)).sum()
    }

    /// The system utilization: the largest utilization over the levels.
    pub fn utilization(&self) -> f64 {
        (0..self.level_count())
            .map(|level| self.utilization_at(level))
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn diamond() -> Dag {
        let task = |name: &str, wcet: &[u64]| McTask {
            name: name.into(),
            wcet: wcet.iter().map(|&w| ms(w)).collect(),
        };
        Dag {
            name: "g".into(),
            period: ms(10),
            deadline: ms(10),
            tasks: vec![
                task("a", &[1, 2]),
                task("b", &[1]),
                task("c", &[2, 3]),
                task("d", &[1, 1]),
            ],
            edges: vec![(0, 1), (0, 2), (1, 3), (2, 3)],
        }
    }

    #[test]
    fn topological_order_respects_edges() {
        let dag = diamond();
        let order = dag.topological_order().unwrap();
        let pos = |t: usize| order.iter().position(|&x| x == t).unwrap();
        for &(from, to) in &dag.edges {
            assert!(pos(from) < pos(to));
        }
    }

    #[test]
    fn cycle_has_no_order() {
        let mut dag = diamond();
        dag.edges.push((3, 0));
        assert_eq!(dag.topological_order(), None);
    }

    #[test]
    fn levels_and_names() {
        let mut other = diamond();
        other.name = "h".into();
        other.period = ms(15);
        let system = McSystem {
            name: None,
            cores: 2,
            levels: vec!["LO".into(), "HI".into()],
            dags: vec![diamond(), other],
        };
        assert_eq!(system.hyperperiod(), Some(ms(30)));
        let c = system.find_task("h/c").unwrap();
        assert_eq!(c, TaskRef { dag: 1, task: 2 });
        assert_eq!(system.qualified_name(c), "h/c");
        assert_eq!(system.task(c).criticality(), 1);
        assert!(!system.task(TaskRef { dag: 0, task: 1 }).runs_at(1));
        assert!((system.utilization_at(0) - (0.5 + 5.0 / 15.0)).abs() < 1e-12);
        assert!((system.utilization_at(1) - (0.6 + 6.0 / 15.0)).abs() < 1e-12);
    }
}
