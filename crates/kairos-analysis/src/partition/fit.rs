//! The bin-packing heuristics: first, next, best and worst fit, each optionally "decreasing".
//!
//! Classic bin packing (D. S. Johnson, "Near-optimal bin packing algorithms", MIT PhD thesis,
//! 1973) applied to real-time partitioning by S. Dhall and C. L. Liu ("On a real-time
//! scheduling problem", Operations Research 26(1), 1978) and studied with exact admission by
//! J. M. Lopez, J. L. Diaz and D. F. Garcia ("Utilization bounds for EDF scheduling on
//! real-time multiprocessor systems", Real-Time Systems 28(1), 2004). Tasks are considered in
//! input order, or by decreasing utilization C_i / T_i (compared exactly; ties by lower index)
//! for the "decreasing" variants. For each task, in that order:
//!
//! - **first fit**: the lowest-numbered core that admits it;
//! - **next fit**: the current core if it admits it, else the next core (cores are never
//!   revisited); a task that an empty core does not admit fits nowhere;
//! - **best fit**: among admitting cores, the one with the least remaining capacity (largest
//!   utilization sum, compared exactly), ties to the lower core;
//! - **worst fit**: among admitting cores, the one with the most remaining capacity (smallest
//!   utilization sum), ties to the lower core;
//! - **cyclic next fit**: the first admitting core in cyclic order from the one after the
//!   previous task's core (the first task starts at core 0); evens the number of tasks per core.
//!
//! A task the workload binds to a core (`core`) is not the heuristic's to place: every bound task
//! goes on its core first, by task index, admitted there like any other, and the heuristic
//! places the rest around them; kairos's partitioned policies run bound tasks so.
//!
//! The first task that no core admits, or a bound task its core does not admit (it might fit
//! elsewhere), ends the search: `failing_task` names it (input index).
//!
//! Cost for n tasks on m cores: O(n log n) for the order, then up to m trials per task (best and
//! worst fit also sort the cores by load, O(m log m) exact comparisons per task). A trial with
//! EDF admission runs QPA on the core's tasks (pseudo-polynomial); with exact FP admission it
//! costs O(b) on a core of b tasks plus the few analyses `super::fp_bins` cannot skip.

use super::fp_bins::FpBins;
use super::{Admission, Heuristic};
use crate::uniprocessor::fp_rta;
use crate::uniprocessor::utilization::{compare_task_utilization, compare_utilization};
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;

/// Partitions `tasks` onto `cores` identical cores. When every task fits, the verdict is
/// schedulable with `mapping = Some(core of each task)` (and, for [`Admission::FpExact`], the
/// response time of each task on its core); otherwise `failing_task` is the first bound task its
/// core refused, else the first task in the heuristic's order that fit nowhere.
///
/// Exact FP admission keeps each core's response-time analysis between tasks
/// (`super::fp_bins`), so a trial costs the tasks it can delay, not a whole new analysis; its
/// verdicts are those of [`Admission::admits`] on the core's tasks.
pub fn partition(
    tasks: &[SporadicTask],
    cores: usize,
    heuristic: Heuristic,
    decreasing: bool,
    admission: Admission,
) -> Verdict {
    let mut verdict = if admission == Admission::FpExact {
        let mut bins = FpBins::new(tasks, cores);
        pack(tasks, cores, heuristic, decreasing, &mut bins)
    } else {
        partition_with(tasks, cores, heuristic, decreasing, |core_tasks| {
            admission.admits(core_tasks)
        })
    };
    if let (Some(mapping), Admission::FpExact) = (&verdict.mapping, admission) {
        verdict.response_times = response_times(tasks, mapping, cores);
    }
    verdict
}

/// [`partition`] with any admission rule: `admits(core_tasks)` (the core's tasks by increasing
/// task index) says whether a core can take its tasks. The verdict has the mapping only.
pub fn partition_with(
    tasks: &[SporadicTask],
    cores: usize,
    heuristic: Heuristic,
    decreasing: bool,
    admits: impl Fn(&[SporadicTask]) -> bool,
) -> Verdict {
    let mut bins = RuleBins {
        tasks,
        bins: vec![Bin::default(); cores],
        admits,
    };
    pack(tasks, cores, heuristic, decreasing, &mut bins)
}

/// The cores as a packing sees them.
pub(crate) trait Bins {
    /// Whether `core` can take task `task` besides its tasks.
    fn admits(&self, core: usize, task: usize) -> bool;
    fn insert(&mut self, core: usize, task: usize);
    /// The core's tasks by increasing task index.
    fn tasks(&self, core: usize) -> &[SporadicTask];
}

/// Cores whose admission is a rule on their whole task list, run afresh for every trial.
struct RuleBins<'a, F> {
    tasks: &'a [SporadicTask],
    bins: Vec<Bin>,
    admits: F,
}

impl<F: Fn(&[SporadicTask]) -> bool> Bins for RuleBins<'_, F> {
    fn admits(&self, core: usize, task: usize) -> bool {
        (self.admits)(&self.bins[core].with(self.tasks, task))
    }

    fn insert(&mut self, core: usize, task: usize) {
        self.bins[core].insert(self.tasks, task);
    }

    fn tasks(&self, core: usize) -> &[SporadicTask] {
        &self.bins[core].tasks
    }
}

/// The heuristic's placement of every task on `bins`: first each task the workload binds to a
/// core ([`SporadicTask::core`]), by task index, on that core; then the others in the
/// heuristic's order. A bound task its core does not admit (or a core out of range) fails the
/// set as a task that fits nowhere does.
fn pack(
    tasks: &[SporadicTask],
    cores: usize,
    heuristic: Heuristic,
    decreasing: bool,
    bins: &mut impl Bins,
) -> Verdict {
    let mut mapping = vec![0usize; tasks.len()];
    // Next fit's open core; cyclic next fit's previous core (so the first task tries core 0).
    let mut current = match heuristic {
        Heuristic::CyclicNextFit => cores.saturating_sub(1),
        _ => 0,
    };
    for task in (0..tasks.len()).filter(|&t| tasks[t].core.is_some()) {
        let core = tasks[task].core.filter(|&c| c < cores);
        let Some(core) = core.filter(|&c| bins.admits(c, task)) else {
            return Verdict::no(Some(task));
        };
        bins.insert(core, task);
        mapping[task] = core;
    }
    let free = consideration_order(tasks, decreasing).into_iter();
    for task in free.filter(|&t| tasks[t].core.is_none()) {
        let chosen = choose(&*bins, cores, heuristic, &mut current, task);
        let Some(core) = chosen else {
            return Verdict::no(Some(task));
        };
        bins.insert(core, task);
        mapping[task] = core;
    }
    let mut verdict = Verdict::yes();
    verdict.mapping = Some(mapping);
    verdict
}

/// The core the heuristic puts `task` on, `None` if none admits it.
fn choose(
    bins: &impl Bins,
    cores: usize,
    heuristic: Heuristic,
    current: &mut usize,
    task: usize,
) -> Option<usize> {
    let fits = |core: usize| bins.admits(core, task);
    match heuristic {
        Heuristic::FirstFit => (0..cores).find(|&c| fits(c)),
        Heuristic::NextFit => next_fit(bins, cores, current, fits),
        Heuristic::CyclicNextFit => {
            let found = (1..=cores)
                .map(|k| (*current + k) % cores)
                .find(|&c| fits(c));
            *current = found.unwrap_or(*current);
            found
        }
        Heuristic::BestFit | Heuristic::WorstFit => {
            let mut by_load: Vec<usize> = (0..cores).collect();
            // Stable sort: equal loads keep the lower core first.
            by_load.sort_by(|&a, &b| {
                let ord = compare_utilization(bins.tasks(a), bins.tasks(b));
                if heuristic == Heuristic::BestFit {
                    ord.reverse()
                } else {
                    ord
                }
            });
            by_load.into_iter().find(|&c| fits(c))
        }
    }
}

/// Next fit: the open core, else the following one (empty but for bound tasks); never goes
/// back.
fn next_fit(
    bins: &impl Bins,
    cores: usize,
    current: &mut usize,
    admits: impl Fn(usize) -> bool,
) -> Option<usize> {
    while *current < cores {
        if admits(*current) {
            return Some(*current);
        }
        if bins.tasks(*current).is_empty() {
            // Every admission here only gets stricter as tasks are added: a task an empty
            // core refuses, every core refuses.
            return None;
        }
        *current += 1;
    }
    None
}

/// Task indices in the order the heuristic considers them.
fn consideration_order(tasks: &[SporadicTask], decreasing: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    if decreasing {
        order.sort_by(|&a, &b| compare_task_utilization(&tasks[b], &tasks[a]).then(a.cmp(&b)));
    }
    order
}

/// R_i of every task under DM on its core, in input order (each core passed RTA on admission).
fn response_times(
    tasks: &[SporadicTask],
    mapping: &[usize],
    cores: usize,
) -> Option<Vec<Duration>> {
    let mut r = vec![Duration::ZERO; tasks.len()];
    for core in 0..cores {
        let indices: Vec<usize> = (0..tasks.len()).filter(|&i| mapping[i] == core).collect();
        let on_core: Vec<SporadicTask> = indices.iter().map(|&i| tasks[i]).collect();
        let per_core = fp_rta::deadline_monotonic(&on_core).response_times?;
        for (&task, r_task) in indices.iter().zip(per_core) {
            r[task] = r_task;
        }
    }
    Some(r)
}

/// The tasks on one core, by increasing task index (so DM ties match the simulator's).
#[derive(Clone, Debug, Default)]
pub(super) struct Bin {
    pub(super) indices: Vec<usize>,
    pub(super) tasks: Vec<SporadicTask>,
}

impl Bin {
    /// Where task `index` goes in this bin's order.
    fn position(&self, index: usize) -> usize {
        self.indices.partition_point(|&i| i < index)
    }

    /// The bin's tasks with task `index` added.
    pub(super) fn with(&self, tasks: &[SporadicTask], index: usize) -> Vec<SporadicTask> {
        let mut out = self.tasks.clone();
        out.insert(self.position(index), tasks[index]);
        out
    }

    pub(super) fn insert(&mut self, tasks: &[SporadicTask], index: usize) {
        let at = self.position(index);
        self.indices.insert(at, index);
        self.tasks.insert(at, tasks[index]);
    }
}
