//! Cores that keep their fixed-priority response-time analysis between tasks: exact FP
//! admission ([`super::Admission::FpExact`]) without analysing a whole core per trial.
//!
//! Admission asks whether a core's tasks plus task j pass response-time analysis under
//! deadline-monotonic priorities ([`crate::uniprocessor::fp_rta`]: M. Joseph and P. Pandya,
//! "Finding response times in a real-time system", The Computer Journal 29(5), 1986; the
//! busy-period form of K. Tindell, A. Burns and A. Wellings, Real-Time Systems 6(2), 1994).
//! Run afresh, a trial costs the whole core's analysis, and first fit tries up to every core for
//! every task. Each core here keeps its tasks in DM order (deadline, then task index, as the
//! full analysis orders a core's tasks) and, for each task k, a lower bound `b_k` of w_k(0), the
//! first job's completion (the least fixed point of w = C_k + I_k(w), I_k the interference of
//! hp(k)), and the demand at its deadline `F_k = C_k + I_k(D_k)`. A trial of task j:
//!
//! 1. rejects if U > 1 with j: the full analysis fails then (its whole set is an overloaded
//!    prefix); otherwise no prefix is overloaded and every task's analysis terminates;
//! 2. leaves the tasks above j alone: their higher-priority sets, so their analyses, are
//!    unchanged, and they passed when they were admitted;
//! 3. for each task k below j, `b'_k = b_k + ceil(b_k / T_j) C_j` is a lower bound of the new
//!    w_k(0) (below a least fixed point C_k + I_k(b_k) >= b_k, and the new function adds j's
//!    term; iterating from below stays below), so `b'_k > D_k` rejects, in constant time;
//! 4. analyses j from scratch;
//! 5. passes a task k below j with `D_k <= T_k` whose new `F'_k = F_k + ceil(D_k / T_j) C_j` is
//!    at most D_k (then w_k(0) <= D_k <= T_k: its busy period ends with its first job, on time),
//!    and analyses each other one from `b'_k` (a valid start, see [`fp_rta::response_time`]),
//!    the ones with the least room first so that a failing trial stops early.
//!
//! Each step decides as the full analysis does, so the verdicts are equal (the tests compare
//! both on random sets). Cost of a trial on a core of n tasks: O(n) for steps 1, 3 and 5's
//! checks, plus O(n) per iteration of the analyses of j and of the tasks step 5 cannot pass
//! at once (for implicit deadlines, those whose demand at the deadline exceeds it).

use super::fit::{Bin, Bins};
use crate::uniprocessor::fp_rta;
use crate::uniprocessor::utilization::utilization_at_most_one;
use crate::SporadicTask;
use std::cell::RefCell;

/// What a trial leaves: `b` and `F` of the new task and of the tasks below it, in DM order.
type Analysis = Vec<(u128, u128)>;

/// Every core's tasks with their analysis.
pub(super) struct FpBins<'a> {
    tasks: &'a [SporadicTask],
    cores: Vec<FpCore>,
    /// The last admitting trial (core, task, analysis): the packing inserts what it admitted
    /// last, so the insertion need not analyse it again.
    admitted: RefCell<Option<(usize, usize, Analysis)>>,
}

#[derive(Clone, Default)]
struct FpCore {
    /// The tasks by increasing index (what [`Bins::tasks`] lists).
    bin: Bin,
    /// Task indices in DM order.
    order: Vec<usize>,
    /// `b_k` and `F_k` of each task, in DM order.
    bounds: Vec<(u128, u128)>,
    /// The utilization as a float sum, to reject clear overloads without the exact sum.
    load: f64,
}

impl<'a> FpBins<'a> {
    pub(super) fn new(tasks: &'a [SporadicTask], cores: usize) -> Self {
        FpBins {
            tasks,
            cores: vec![FpCore::default(); cores],
            admitted: RefCell::new(None),
        }
    }

    /// Where task `j` goes in the DM order of `core`.
    fn place(&self, core: usize, j: usize) -> usize {
        let key = |i: usize| (self.tasks[i].deadline, i);
        self.cores[core].order.partition_point(|&i| key(i) < key(j))
    }

    /// The DM order of `core` with task `j` at `at`.
    fn order_with(&self, core: usize, j: usize, at: usize) -> Vec<usize> {
        let order = &self.cores[core].order;
        let mut with = Vec::with_capacity(order.len() + 1);
        with.extend_from_slice(&order[..at]);
        with.push(j);
        with.extend_from_slice(&order[at..]);
        with
    }

    /// The analysis of `core` with `j`, `None` if a task misses its deadline.
    fn analyse(&self, core: usize, j: usize) -> Option<Analysis> {
        let state = &self.cores[core];
        // The float sum of n terms is within (n + 1.5) eps of the exact sum (see
        // `utilization::compare_sums_f64`): 10^-6 over 1 is an overload for any n below 10^9.
        if state.load + self.tasks[j].utilization() > 1.0 + 1e-6
            || !utilization_at_most_one(&state.bin.with(self.tasks, j))
        {
            return None;
        }
        let at = self.place(core, j);
        let (c_j, t_j) = (self.tasks[j].wcet_ns(), self.tasks[j].period_ns());
        // j's term ceil(w / T_j) C_j, w below a 64-bit deadline here.
        let term = |w: u128| u128::from((w as u64).div_ceil(t_j)) * u128::from(c_j);
        // Steps 3 and 5: (task, b'_k, F'_k), and the room of the ones to analyse.
        let mut below = Vec::with_capacity(state.order.len() - at);
        let mut to_analyse = Vec::new();
        for (&k, &(b, f)) in state.order[at..].iter().zip(&state.bounds[at..]) {
            let task = &self.tasks[k];
            let deadline = u128::from(task.deadline_ns());
            let b = b + term(b);
            let room = deadline.checked_sub(b)?;
            let f = f.saturating_add(term(deadline));
            if task.deadline > task.period || f > deadline {
                to_analyse.push((room, below.len()));
            }
            below.push((b, f));
        }
        let order = self.order_with(core, j, at);
        let task = &self.tasks[j];
        let (_, b_j) = fp_rta::response_time(self.tasks, &order[..at], j, 0)?;
        let f_j = fp_rta::interference(self.tasks, &order[..at], u128::from(task.deadline_ns()))
            .map_or(u128::MAX, |i| i.saturating_add(u128::from(task.wcet_ns())));
        to_analyse.sort_unstable();
        for (_, i) in to_analyse {
            let (k, hp) = (order[at + 1 + i], &order[..at + 1 + i]);
            (_, below[i].0) = fp_rta::response_time(self.tasks, hp, k, below[i].0)?;
        }
        below.insert(0, (b_j, f_j));
        Some(below)
    }
}

impl Bins for FpBins<'_> {
    fn admits(&self, core: usize, task: usize) -> bool {
        let Some(analysis) = self.analyse(core, task) else {
            return false;
        };
        *self.admitted.borrow_mut() = Some((core, task, analysis));
        true
    }

    fn insert(&mut self, core: usize, task: usize) {
        // The packing inserts only what `admits` accepted, so the analysis passes.
        let updated = match self.admitted.take() {
            Some((c, t, analysis)) if (c, t) == (core, task) => analysis,
            _ => (self.analyse(core, task)).expect("the packing inserts only admitted tasks"),
        };
        let at = self.place(core, task);
        let state = &mut self.cores[core];
        state.order.insert(at, task);
        state.bin.insert(self.tasks, task);
        state.load += self.tasks[task].utilization();
        state.bounds.truncate(at);
        state.bounds.extend(updated);
    }

    fn tasks(&self, core: usize) -> &[SporadicTask] {
        &self.cores[core].bin.tasks
    }
}
