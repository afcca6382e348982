//! Global scheduling: one queue for all cores; at every scheduling point the `m` most important
//! jobs by the job order run (G-EDF, G-FP, G-EDZL). Work-conserving: no core idles while a job
//! waits. With many open jobs, a static order (EDF, FP) keeps them in a ready queue as they
//! come and go (`super::ready`); with few, a static order keeps the best `m` of one pass over
//! the open jobs, and an order that changes with time (EDZL) ranks every open job at each
//! decision. When the open jobs are no more than the cores, every one runs, and only those
//! that start are ranked (their order decides who takes which free core).

use super::order::{JobOrder, Precedence};
use super::placement::place_on_cores_into;
use super::ready::{Ready, QUEUED_FROM};
use super::ReorderTimer;
use crate::decision::{Decision, TimerId};
use crate::job::{JobId, JobView};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Instant, Workload};

pub struct Global<O: JobOrder> {
    name: &'static str,
    order: O,
    /// Reused between calls to avoid an allocation per scheduling point.
    keyed: Vec<(Precedence, usize)>,
    /// The view's precedences, by position, for [`Global::best_of_view`].
    precedences: Vec<Precedence>,
    chosen: Vec<usize>,
    ends: Vec<usize>,
    /// The cores of the last decision, given back by the engine ([`Policy::recycle`]).
    placed: Vec<Option<JobId>>,
    /// The open jobs in order, for a static order.
    ready: Option<Ready>,
    reorder: ReorderTimer,
}

impl<O: JobOrder> Global<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        let ready = order.is_static().then(|| Ready::new(1));
        Global {
            name,
            order,
            keyed: Vec::new(),
            precedences: Vec::new(),
            chosen: Vec::new(),
            ends: Vec::new(),
            placed: Vec::new(),
            ready,
            reorder: ReorderTimer::default(),
        }
    }

    /// The positions of the `m` most important jobs of `view`, and the earliest instant the
    /// order may change with no job event. Those not running come in order of importance;
    /// the running ones may come anywhere among them, since a running job keeps its core
    /// whatever its rank and the others take the cores left in order
    /// ([`place_on_cores_into`]): the placement of ranking them all.
    fn choose(&mut self, view: &View<'_>) -> Option<Instant> {
        // Past the ready queues' threshold the queues check themselves against the view at
        // each decision; below it every job of a view that fits the cores runs.
        if view.jobs.len() <= view.cores && view.jobs.len() < QUEUED_FROM {
            if let Some(ready) = &mut self.ready {
                ready.rest();
            }
            self.every_job(view);
            return self.order.reorder_at(view.now, &mut std::iter::empty());
        }
        if let Some(ready) = &mut self.ready {
            let (chosen, ends) = (&mut self.chosen, &mut self.ends);
            if view.jobs.len() < QUEUED_FROM {
                ready.rest();
                self.best_of_view(view);
                return None;
            } else if ready.heads_of_lanes(view, &self.order, |_| 0, view.cores, chosen, ends) {
                return None;
            }
        }
        self.keyed.clear();
        self.keyed.extend(
            (view.jobs.iter().enumerate())
                .map(|(i, job)| (self.order.precedence(job, view.now), i)),
        );
        let running = view.cores.min(self.keyed.len());
        if running < self.keyed.len() && running > 0 {
            self.keyed.select_nth_unstable(running - 1);
        }
        self.keyed[..running].sort_unstable();
        self.chosen.clear();
        self.chosen
            .extend(self.keyed[..running].iter().map(|&(_, i)| i));
        let mut waiting = self.keyed[running..].iter().map(|&(_, i)| &view.jobs[i]);
        self.order.reorder_at(view.now, &mut waiting)
    }

    /// For a static order (which never reorders jobs by itself), the positions of the `m`
    /// most important jobs of the view, most important first, in one pass that keeps the best
    /// seen so far in order: an insertion sort cut at `m`, at most about `n m` comparisons and
    /// about `n` when the jobs met first are the best (a few dozen jobs at most: past them the
    /// ready queues answer), and no order kept among those that wait. The
    /// precedences are computed once into their own vector and the pass moves positions only:
    /// moving the 40-byte keys themselves, just written, stalled the loads that compare them.
    /// Precedences are distinct for distinct jobs ([`JobOrder`]); of equal ones, the earlier
    /// position comes first.
    fn best_of_view(&mut self, view: &View<'_>) {
        let keys = &mut self.precedences;
        keys.clear();
        keys.extend(
            view.jobs
                .iter()
                .map(|job| self.order.precedence(job, view.now)),
        );
        let best = &mut self.chosen;
        best.clear();
        for (i, key) in keys.iter().enumerate() {
            if best.len() == view.cores {
                match best.last() {
                    Some(&worst) if *key < keys[worst] => _ = best.pop(),
                    _ => continue,
                }
            }
            // Into place from the end: the kept jobs are at most `m`, so a few swaps cost
            // less than a search and a call to move the tail.
            best.push(i);
            let mut at = best.len() - 1;
            while at > 0 && *key < keys[best[at - 1]] {
                best.swap(at, at - 1);
                at -= 1;
            }
        }
    }

    /// Every job of the view, when they are no more than the cores (on the SimSo workload,
    /// most decisions): each runs, so only those that start are ranked ([`Global::choose`]).
    /// The running ones come first, in view order, then the others by precedence.
    fn every_job(&mut self, view: &View<'_>) {
        self.keyed.clear();
        self.chosen.clear();
        for (i, job) in view.jobs.iter().enumerate() {
            match job.running_on {
                Some(_) => self.chosen.push(i),
                None => self.keyed.push((self.order.precedence(job, view.now), i)),
            }
        }
        self.keyed.sort_unstable();
        self.chosen.extend(self.keyed.iter().map(|&(_, i)| i));
    }

    fn queued(&mut self, job: &JobView, now: Instant, released: bool) {
        if let Some(ready) = self.ready.as_mut().filter(|ready| ready.follows()) {
            let precedence = self.order.precedence(job, now);
            match released {
                true => ready.insert(0, precedence, job.id),
                false => ready.remove(0, precedence),
            }
        }
    }
}

impl<O: JobOrder> Policy for Global<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.order.prepare(workload);
        Ok(())
    }

    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, true);
    }

    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, false);
    }

    fn job_removed(&mut self, now: Instant, job: &JobView) {
        self.queued(job, now, false);
    }

    fn timer_fired(&mut self, _now: Instant, timer: TimerId) {
        self.reorder.fired(timer);
    }

    fn recycle(&mut self, decision: Decision) {
        self.placed = decision.cores;
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let reorder = self.choose(view);
        let chosen = self.chosen.iter().map(|&i| &view.jobs[i]);
        let mut cores = std::mem::take(&mut self.placed);
        place_on_cores_into(view.cores, chosen, &mut cores);
        Decision {
            servers: Vec::new(),
            cores,
            actions: self.reorder.update(reorder),
            ahead: None,
        }
    }
}
