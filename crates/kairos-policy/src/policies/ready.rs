//! Ready queues kept in a static job order ([`JobOrder::is_static`]: EDF, fixed priority) as
//! jobs are released and leave, so that a decision reads the most important jobs of each queue
//! (a lane: one for a global policy, one per core for a partitioned one) in O(m log n) instead
//! of ordering every open job: the classic ready queue of a real-time kernel (Liu, "Real-Time
//! Systems", 2000, section 12.2), here an ordered map keyed by precedence ([`crate::ordered`]:
//! a sorted vector while a lane holds a few dozen jobs, a B-tree past them).
//!
//! The queues follow the policy's callbacks, but the view is the truth: a decision first checks
//! that the queues hold as many jobs as the view and that each job it reads is in the view,
//! and rebuilds them from the view otherwise (a policy asked from a hand-made view, or wrapped
//! by one that does not pass on every callback), so that it decides exactly what ordering the
//! view's jobs would.
//!
//! Below [`QUEUED_FROM`] open jobs a policy orders the view itself, as cheap as reading a
//! queue then, and the queues rest ([`Ready::rest`]): they follow no callback, and are rebuilt
//! from the view when the jobs are many again. Keeping them costs nothing while jobs are few.

use super::order::{JobOrder, Precedence};
use crate::job::{JobId, JobView};
use crate::ordered::Ordered;
use crate::view::View;

/// Open jobs from which a policy reads its ready queues instead of ordering the view.
pub(super) const QUEUED_FROM: usize = 32;

/// The open jobs, lane by lane, most important first.
#[derive(Clone, Debug, Default)]
pub(super) struct Ready {
    lanes: Vec<Ordered<Precedence, JobId>>,
    len: usize,
    /// Whether the queues follow the callbacks (else they are empty until rebuilt).
    following: bool,
}

impl Ready {
    pub(super) fn new(lanes: usize) -> Ready {
        Ready {
            lanes: vec![Ordered::default(); lanes],
            len: 0,
            following: false,
        }
    }

    /// Whether the queues follow the callbacks: a policy tells them about jobs only then.
    pub(super) fn follows(&self) -> bool {
        self.following
    }

    /// Stops following the callbacks, for a decision from the view of fewer than
    /// [`QUEUED_FROM`] jobs; [`Ready::heads_of_lanes`] rebuilds the queues.
    pub(super) fn rest(&mut self) {
        if self.following {
            self.lanes.iter_mut().for_each(Ordered::clear);
            self.len = 0;
            self.following = false;
        }
    }

    pub(super) fn insert(&mut self, lane: usize, precedence: Precedence, id: JobId) {
        let Some(queue) = self.lanes.get_mut(lane) else {
            return;
        };
        if queue.insert(precedence, id) {
            self.len += 1;
        }
    }

    pub(super) fn remove(&mut self, lane: usize, precedence: Precedence) {
        let Some(queue) = self.lanes.get_mut(lane) else {
            return;
        };
        if queue.remove(&precedence) {
            self.len -= 1;
        }
    }

    /// The positions in `view.jobs` of the (up to) `n` most important jobs of `lane`, most
    /// important first, into `out`; false if a queue does not match the view.
    fn heads(&self, view: &View<'_>, lane: usize, n: usize, out: &mut Vec<usize>) -> bool {
        for (_, id) in self.lanes[lane].iter().take(n) {
            match view.position(id) {
                Some(i) => out.push(i),
                None => return false,
            }
        }
        true
    }

    /// Like [`Ready::heads`] for each lane in turn, after making the queues the view's jobs
    /// (`lane_of` says each job's lane) if they are not; lane `l`'s positions end at
    /// `ends[l]`. False if even rebuilt they do not match the view (a lane out of range, one
    /// id twice): the policy then orders the view itself.
    pub(super) fn heads_of_lanes<O: JobOrder>(
        &mut self,
        view: &View<'_>,
        order: &O,
        lane_of: impl Fn(&JobView) -> usize,
        n: usize,
        out: &mut Vec<usize>,
        ends: &mut Vec<usize>,
    ) -> bool {
        let read = |ready: &Ready, out: &mut Vec<usize>, ends: &mut Vec<usize>| {
            out.clear();
            ends.clear();
            ready.len == view.jobs.len()
                && (0..ready.lanes.len()).all(|lane| {
                    let ok = ready.heads(view, lane, n, out);
                    ends.push(out.len());
                    ok
                })
        };
        if self.following && read(self, out, ends) {
            return true;
        }
        self.rebuild(view, order, &lane_of);
        read(self, out, ends)
    }

    fn rebuild<O: JobOrder>(
        &mut self,
        view: &View<'_>,
        order: &O,
        lane_of: &impl Fn(&JobView) -> usize,
    ) {
        self.lanes.iter_mut().for_each(Ordered::clear);
        self.len = 0;
        self.following = true;
        for job in view.jobs {
            self.insert(lane_of(job), order.precedence(job, view.now), job.id);
        }
    }
}
