//! The open jobs of a run: what the policy sees of each ([`JobView`]), what the contract keeps
//! beside it (budget stop, reported overrun, the work of its parts), what the engine keeps (its
//! own `J`: drawn work left, a slot, a record), and which job each core runs.
//!
//! Jobs are kept in one vector each, removed by `swap_remove`; a core's placement is an index
//! into them, which a removal keeps pointing at the same job. Views are in no particular
//! order, as [`crate::View`] says, but in the same order in every engine that makes the same
//! releases and removals.

use crate::job::{JobId, JobView};
use crate::parts::PartWork;
use kairos_model::{Instant, Part};

/// What the contract keeps of a job besides its view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Marks {
    /// The policy stopped it ([`crate::Action::Stop`]): no decision may place it again.
    pub stopped: bool,
    /// Its overrun of the current budget was reported ([`crate::Policy::budget_exhausted`]).
    pub exhausted: bool,
    /// The work of each part, for an imprecise job run by parts, and when its current part
    /// began.
    pub parts: Option<(PartWork, Instant)>,
}

/// The open jobs, with the engine's own `J` beside each.
#[derive(Clone, Debug)]
pub struct Jobs<J> {
    views: Vec<JobView>,
    marks: Vec<Marks>,
    sides: Vec<J>,
    /// Per core, the index of the job it runs.
    running: Vec<Option<usize>>,
}

impl<J> Jobs<J> {
    pub fn new(cores: usize) -> Self {
        Jobs {
            views: Vec::new(),
            marks: Vec::new(),
            sides: Vec::new(),
            running: vec![None; cores],
        }
    }

    /// Room for `jobs` open jobs at once without growing, for an engine that must not allocate
    /// while it runs (the runtime's dispatcher).
    pub fn reserve(&mut self, jobs: usize) {
        self.views.reserve(jobs);
        self.marks.reserve(jobs);
        self.sides.reserve(jobs);
    }

    /// Every open job's view.
    pub fn views(&self) -> &[JobView] {
        &self.views
    }

    pub fn len(&self) -> usize {
        self.views.len()
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    pub fn view(&self, i: usize) -> &JobView {
        &self.views[i]
    }

    /// The engine's side of job `i`.
    pub fn side(&self, i: usize) -> &J {
        &self.sides[i]
    }

    pub fn side_mut(&mut self, i: usize) -> &mut J {
        &mut self.sides[i]
    }

    /// The view and the engine's side of job `i`, to change the side while reading the view.
    pub fn parts_mut(&mut self, i: usize) -> (&JobView, &mut J) {
        (&self.views[i], &mut self.sides[i])
    }

    /// Every open job's view and side, to account execution: only `executed` of a view is the
    /// engine's to change.
    pub fn each_mut(&mut self) -> impl Iterator<Item = (&mut JobView, &mut J)> {
        self.views.iter_mut().zip(&mut self.sides)
    }

    /// Every open job's view and side.
    pub fn each(&self) -> impl Iterator<Item = (&JobView, &J)> {
        self.views.iter().zip(&self.sides)
    }

    pub fn index_of(&self, id: JobId) -> Option<usize> {
        self.views.iter().position(|j| j.id == id)
    }

    /// Per core, the index of the job it runs.
    pub fn running(&self) -> &[Option<usize>] {
        &self.running
    }

    /// Whether the policy stopped job `i`.
    pub fn is_stopped(&self, i: usize) -> bool {
        self.marks[i].stopped
    }

    /// Whether job `i`'s overrun of its current budget was reported.
    pub fn is_exhausted(&self, i: usize) -> bool {
        self.marks[i].exhausted
    }

    /// Whether job `i` runs by parts.
    pub fn runs_by_parts(&self, i: usize) -> bool {
        self.marks[i].parts.is_some()
    }

    /// The work of each of job `i`'s parts, if it runs by parts.
    pub fn part_work(&self, i: usize) -> Option<PartWork> {
        self.marks[i].parts.map(|(work, _)| work)
    }

    /// Whether job `i`'s current part is its last: its end completes the job.
    pub fn in_last_part(&self, i: usize) -> bool {
        self.marks[i].parts.is_none() || self.views[i].part == Part::Windup
    }

    pub(crate) fn marks_mut(&mut self, i: usize) -> &mut Marks {
        &mut self.marks[i]
    }

    pub(crate) fn view_mut(&mut self, i: usize) -> &mut JobView {
        &mut self.views[i]
    }

    /// Adds a released job; returns its index.
    pub(crate) fn push(
        &mut self,
        view: JobView,
        parts: Option<(PartWork, Instant)>,
        side: J,
    ) -> usize {
        self.views.push(view);
        self.marks.push(Marks {
            stopped: false,
            exhausted: false,
            parts,
        });
        self.sides.push(side);
        self.views.len() - 1
    }

    /// Removes job `i` (off its core, if it runs) and returns its view as it was and its side.
    pub(crate) fn remove(&mut self, i: usize) -> (JobView, J) {
        if let Some(core) = self.views[i].running_on {
            self.running[core] = None;
        }
        let view = self.views.swap_remove(i);
        self.marks.swap_remove(i);
        let side = self.sides.swap_remove(i);
        // The last job moved into slot `i`: its core must point at its new index.
        if let Some(core) = self.views.get(i).and_then(|moved| moved.running_on) {
            self.running[core] = Some(i);
        }
        (view, side)
    }

    /// Takes job `i` off its core.
    pub(crate) fn unplace(&mut self, i: usize) {
        if let Some(core) = self.views[i].running_on.take() {
            self.running[core] = None;
        }
    }

    /// Puts job `i` on `core` (free).
    pub(crate) fn place(&mut self, i: usize, core: usize) {
        let view = &mut self.views[i];
        view.running_on = Some(core);
        view.last_core = Some(core);
        self.running[core] = Some(i);
    }

    /// Sets the views' order to `order` (the same jobs): what a replay does to ask from the
    /// view as it was recorded.
    pub(crate) fn reorder(&mut self, order: &[JobId]) {
        for (want, id) in order.iter().enumerate() {
            let at = (self.views[want..].iter().position(|v| v.id == *id)).map(|p| p + want);
            if let Some(from) = at.filter(|&from| from != want) {
                self.swap(want, from);
            }
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.views.swap(a, b);
        self.marks.swap(a, b);
        self.sides.swap(a, b);
        for i in [a, b] {
            if let Some(core) = self.views[i].running_on {
                self.running[core] = Some(i);
            }
        }
    }
}
