//! The open jobs' deadlines the engine has yet to observe: the next one to stop at, the jobs
//! due at an instant. Past [`KEPT_FROM`] open jobs they are kept in an ordered set (O(log n)
//! per job, the next one read first); below [`SCANNED_BELOW`] the open jobs are scanned
//! instead, which costs less for a few of them than keeping the set. Between the two bounds the
//! form in use stays, so that a count hovering around one does not rebuild the set at every
//! instant. Both forms find the same jobs in the same order.

use super::side::Side;
use crate::job::JobWork;
use kairos_model::Instant;
use kairos_policy::contract::Contract;
use kairos_policy::ordered::Ordered;
use kairos_policy::JobId;
use std::ops::Bound::{Excluded, Unbounded};

type C = Contract<JobWork>;

/// Open jobs from which the set is kept.
const KEPT_FROM: usize = 32;
/// Open jobs below which the set is dropped and the jobs scanned.
const SCANNED_BELOW: usize = 16;

/// By deadline, then task index, then job number: the open jobs whose deadline comes after
/// the last instant observed (and, with `--abort-on-miss`, those due that `late_jobs` is to
/// remove), while the set is kept.
#[derive(Default)]
pub(super) struct Deadlines {
    set: Ordered<(Instant, usize, u64), ()>,
    kept: bool,
    /// While the jobs are scanned: an instant and the earliest deadline after it, found by
    /// the scan of [`Deadlines::due`] then, until a job comes or goes.
    next: Option<(Instant, Option<Instant>)>,
}

impl Deadlines {
    /// A job is released: kept if the set is.
    pub fn released(&mut self, deadline: Instant, id: JobId) {
        match self.kept {
            true => _ = self.set.insert((deadline, id.task, id.number), ()),
            false => self.next = None,
        }
    }

    /// A job left the open jobs.
    pub fn left(&mut self, deadline: Instant, id: JobId) {
        match self.kept {
            true => _ = self.set.remove(&(deadline, id.task, id.number)),
            false => self.next = None,
        }
    }

    /// The earliest deadline of an open job after `now`.
    pub fn next_after(&self, c: &C, now: Instant) -> Option<Instant> {
        if !self.kept {
            return match self.next {
                Some((at, next)) if at == now => next,
                _ => next_by_scan(c, now),
            };
        }
        match self.set.first() {
            Some(((at, _, _), ())) if at <= now => {
                let after = (Excluded((now, usize::MAX, u64::MAX)), Unbounded);
                self.set.range(after).next().map(|((at, _, _), ())| at)
            }
            first => first.map(|((at, _, _), ())| at),
        }
    }

    /// Into `due`, the open jobs whose deadline is `now` (or by `now`, with `by`), by task
    /// index, then job number.
    pub fn due(&mut self, c: &C, now: Instant, by: bool, due: &mut Vec<JobId>) {
        let hits = |at: Instant| at == now || (by && at < now);
        if self.kept {
            let head = self.set.iter().take_while(|((at, _, _), ())| *at <= now);
            due.extend(
                (head.filter(|((at, _, _), ())| hits(*at)))
                    .map(|((_, task, number), ())| JobId { task, number }),
            );
        } else {
            // One scan finds the next deadline too: the engine asks for it next.
            let mut next = None::<Instant>;
            for v in c.jobs.views() {
                let at = v.absolute_deadline;
                if hits(at) {
                    due.push(v.id);
                } else if at > now && next.is_none_or(|next| at < next) {
                    next = Some(at);
                }
            }
            self.next = Some((now, next));
        }
        if due.len() > 1 {
            due.sort_unstable_by_key(|id| (id.task, id.number));
        }
    }

    /// The deadlines of `now` are observed: the set forgets them (but with `keep_due`), and
    /// is dropped or rebuilt from the open jobs when their count crossed a bound.
    pub fn observed(&mut self, c: &C, now: Instant, keep_due: bool) {
        let open = c.jobs.len();
        if self.kept && open < SCANNED_BELOW {
            self.set.clear();
            self.kept = false;
            self.next = None;
        } else if !self.kept && open >= KEPT_FROM {
            self.kept = true;
            let views = c.jobs.views().iter();
            for v in views.filter(|v| keep_due || v.absolute_deadline > now) {
                self.released(v.absolute_deadline, v.id);
            }
        }
        while !keep_due && (self.set.first()).is_some_and(|((at, _, _), ())| at <= now) {
            self.set.pop_first();
        }
    }
}

fn next_by_scan(c: &C, now: Instant) -> Option<Instant> {
    let deadlines = c.jobs.views().iter().map(|v| v.absolute_deadline);
    deadlines.filter(|&at| at > now).min()
}

impl Side<'_> {
    /// The earliest deadline of an open job after `now`.
    pub fn next_deadline(&self, c: &C, now: Instant) -> Option<Instant> {
        self.deadlines.next_after(c, now)
    }
}
