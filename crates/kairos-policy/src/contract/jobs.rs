//! The open jobs of a run: what the policy sees of each ([`JobView`]), what the contract keeps
//! beside it (budget stop, reported overrun, the work of its parts), what the engine keeps (its
//! own `J`: drawn work left, a slot, a record), and which job each core runs.
//!
//! Jobs are kept in one vector each, removed by `swap_remove`; a core's placement is an index
//! into them, which a removal keeps pointing at the same job. Views are in no particular
//! order, as [`crate::View`] says, but in the same order in every engine that makes the same
//! releases and removals. Past [`INDEXED_FROM`] open jobs, an index by id makes
//! [`Jobs::index_of`] O(1); below, a search of a few views costs less than hashing.
//!
//! So that the overrun check need not look at every open job at every instant, the jobs whose
//! budget or execution changed off a core since the last check are noted ([`Jobs::watched`]):
//! a job's `budget_left` moves only while it runs, or when the contract changes its part or
//! mode, or when an engine changes its execution through [`Jobs::each_mut`] (which notes
//! every job).

use crate::job::{JobId, JobView};
use crate::parts::PartWork;
use crate::view::JobIndex;
use kairos_model::{Instant, Part};

/// How many open jobs make the index by id worth keeping: from then on it is kept for the run.
pub(crate) const INDEXED_FROM: usize = 32;

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
    /// Kept once the open jobs reached [`INDEXED_FROM`].
    index: Option<JobIndex>,
    /// Room reserved for the index, for when it is built.
    index_room: usize,
    /// Jobs whose budget or execution changed since the last overrun check, maybe off a core.
    watch: Vec<JobId>,
    /// Every job may have changed since the last overrun check.
    watch_all: bool,
    /// Room for the jobs of one overrun check, kept to spare an allocation per instant.
    watched: Vec<usize>,
}

impl<J> Jobs<J> {
    pub fn new(cores: usize) -> Self {
        Jobs {
            views: Vec::new(),
            marks: Vec::new(),
            sides: Vec::new(),
            running: vec![None; cores],
            index: None,
            index_room: 0,
            watch: Vec::new(),
            watch_all: false,
            watched: Vec::new(),
        }
    }

    /// Room for `jobs` open jobs at once without growing, for an engine that must not allocate
    /// while it runs (the runtime's dispatcher).
    pub fn reserve(&mut self, jobs: usize) {
        self.views.reserve(jobs);
        self.marks.reserve(jobs);
        self.sides.reserve(jobs);
        self.index_room = jobs;
        match &mut self.index {
            Some(index) => index.reserve(jobs),
            None if jobs >= INDEXED_FROM => self.start_index(),
            None => {}
        }
        // Notes never outnumber the open jobs by more than one (`note_id`).
        self.watch.reserve(jobs + 2);
        self.watched.reserve(jobs + self.running.len() + 2);
    }

    /// Every open job's view.
    pub fn views(&self) -> &[JobView] {
        &self.views
    }

    /// Where each open job's view is in [`Jobs::views`], by id, once there were many.
    pub fn index(&self) -> Option<&JobIndex> {
        self.index.as_ref()
    }

    /// Starts the index when the open jobs reach [`INDEXED_FROM`] (an engine that reserves
    /// room for that many starts it then, so that it allocates nothing while it runs).
    fn index_if_many(&mut self) {
        if self.index.is_none() && self.views.len() >= INDEXED_FROM {
            self.start_index();
        }
    }

    fn start_index(&mut self) {
        let mut index = JobIndex::default();
        index.reserve(self.index_room.max(self.views.len()));
        for (i, view) in self.views.iter().enumerate() {
            index.set(view.id, i);
        }
        self.index = Some(index);
    }

    fn set_position(&mut self, id: JobId, i: usize) {
        if let Some(index) = &mut self.index {
            index.set(id, i);
        }
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
        self.watch_all = true;
        self.views.iter_mut().zip(&mut self.sides)
    }

    /// Job `i`'s view and side, to account the execution of a job that runs (only `executed`
    /// of its view is the engine's to change): what an engine that advances only the running
    /// jobs uses instead of [`Jobs::each_mut`].
    pub fn running_mut(&mut self, i: usize) -> (&mut JobView, &mut J) {
        if self.views[i].running_on.is_none() {
            self.note(i);
        }
        (&mut self.views[i], &mut self.sides[i])
    }

    /// Every open job's view and side.
    pub fn each(&self) -> impl Iterator<Item = (&JobView, &J)> {
        self.views.iter().zip(&self.sides)
    }

    pub fn index_of(&self, id: JobId) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(id),
            None => self.views.iter().position(|j| j.id == id),
        }
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

    /// Job `i`'s view, to change its part, budget or execution: noted for the overrun check.
    pub(crate) fn view_mut(&mut self, i: usize) -> &mut JobView {
        self.note(i);
        &mut self.views[i]
    }

    fn note(&mut self, i: usize) {
        self.note_id(self.views[i].id);
    }

    /// Past as many notes as open jobs, the next check looks at every job instead: it costs
    /// no more, and the notes of an engine that never checks (a replay) stay bounded.
    fn note_id(&mut self, id: JobId) {
        if self.watch_all {
            return;
        }
        if self.watch.len() > self.views.len() {
            self.watch_all = true;
            self.watch.clear();
            return;
        }
        self.watch.push(id);
    }

    /// Notes every job for the next overrun check (a mode change changes every budget).
    pub(crate) fn note_all(&mut self) {
        self.watch_all = true;
    }

    /// The jobs that may have used their whole budget since the last call, by index in
    /// [`Jobs::views`], ascending: the running jobs and those noted; `None` for every job.
    /// Resets the notes; hand the list back with [`Jobs::done_with`].
    pub(crate) fn watched(&mut self) -> Option<Vec<usize>> {
        // Below the index's bound, checking every job costs less than looking the noted ones
        // up, sorting and deduplicating them.
        let few = self.views.len() < INDEXED_FROM.max(self.running.len() + self.watch.len() + 1);
        if std::mem::take(&mut self.watch_all) || few {
            self.watch.clear();
            return None;
        }
        let mut out = std::mem::take(&mut self.watched);
        out.clear();
        out.extend(self.running.iter().flatten());
        out.extend(self.watch.iter().filter_map(|&id| self.index_of(id)));
        out.sort_unstable();
        out.dedup();
        self.watch.clear();
        Some(out)
    }

    /// Keeps the list [`Jobs::watched`] gave for the next check.
    pub(crate) fn done_with(&mut self, watched: Vec<usize>) {
        self.watched = watched;
    }

    /// Adds a released job; returns its index.
    pub(crate) fn push(
        &mut self,
        view: JobView,
        parts: Option<(PartWork, Instant)>,
        side: J,
    ) -> usize {
        let id = view.id;
        self.set_position(id, self.views.len());
        self.note_id(id);
        self.views.push(view);
        self.marks.push(Marks {
            stopped: false,
            exhausted: false,
            parts,
        });
        self.sides.push(side);
        self.index_if_many();
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
        if let Some(index) = &mut self.index {
            index.remove(view.id);
        }
        // The last job moved into slot `i`: its core and its index must point at it there.
        if let Some(moved) = self.views.get(i) {
            let (id, core) = (moved.id, moved.running_on);
            self.set_position(id, i);
            if let Some(core) = core {
                self.running[core] = Some(i);
            }
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
            self.set_position(self.views[i].id, i);
            if let Some(core) = self.views[i].running_on {
                self.running[core] = Some(i);
            }
        }
    }
}
