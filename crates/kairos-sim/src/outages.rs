//! Core outages: stretches of time in which a core runs nothing of the simulated workload,
//! as when the host takes the core away (the stalls a real run recorded, replayed in its
//! simulation to see whether they alone make a job miss).
//!
//! The job placed on a core in an outage keeps its place and makes no progress: its work, its
//! switch's overhead and its execution stand still, and it completes that much later. Neither
//! the policy nor the contract is told, as a real run's dispatcher is not told the host took a
//! core; everything measured in wall time goes on (a server's budget drains while its VCPU is
//! held, as a real VMM's does). A job the policy places on a core in an outage starts when the
//! outage ends. An outage that **takes the core's job** (the host took the CPU from under the
//! job's worker, as a stall watcher sees it) holds that job: placed on the core before the
//! outage began and moved off it during the outage, it stands still wherever it is placed
//! until the outage ends, since on real cores its worker's state is on the held CPU and no
//! other CPU can run it before the host gives that one back. A job placed during the outage,
//! or an outage that took no job (a worker's late start: the worker held nothing yet), holds
//! nothing. The engine makes each outage's start and end an event instant, so between two
//! events a core is either out or not.
//!
//! A run may name a **timer core**, the one whose dispatcher alone wakes for the policy's
//! timers (kairos's user-space dispatcher sets them on one core). While it is out, a timer
//! that falls due waits for the next instant something else brings (a release, a completion,
//! another core's event, a deadline) or for the outage's end, when a pass handles it late, as
//! another core's pass does on real cores. The simulation has an instant at every release,
//! completion and part end, as a real run has a pass, and more (deadlines, other cores'
//! outages): the wait it gives a timer errs short, which errs towards the schedule.

use kairos_model::Instant;

/// One outage of `core` (numbered as the engine numbers cores) over `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub core: usize,
    pub from: Instant,
    pub to: Instant,
}

/// A merged stretch of outages of one core, and whether its first takes the core's job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    from: Instant,
    to: Instant,
    takes_job: bool,
}

/// The outages of a simulation, per core in order, those that overlap or touch merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outages {
    by_core: Vec<Vec<Span>>,
    timer_core: Option<usize>,
}

impl Outages {
    /// The outages given, in any order, each taking its core's job; empty ones are left out.
    pub fn new(outages: impl IntoIterator<Item = Outage>) -> Self {
        Outages::taking_and_not(outages, [])
    }

    /// The outages `taking` the core's job and those `not` (module doc), in any order; empty
    /// ones are left out. Merged ones take the job if the first does.
    pub fn taking_and_not(
        taking: impl IntoIterator<Item = Outage>,
        not: impl IntoIterator<Item = Outage>,
    ) -> Self {
        let mut by_core: Vec<Vec<Span>> = Vec::new();
        let marked =
            (taking.into_iter().map(|o| (o, true))).chain(not.into_iter().map(|o| (o, false)));
        for (o, takes_job) in marked.filter(|(o, _)| o.from < o.to) {
            if by_core.len() <= o.core {
                by_core.resize_with(o.core + 1, Vec::new);
            }
            by_core[o.core].push(Span {
                from: o.from,
                to: o.to,
                takes_job,
            });
        }
        by_core.iter_mut().for_each(merge);
        Outages {
            by_core,
            timer_core: None,
        }
    }

    /// The same outages, `core`'s holding the policy's timers (module doc).
    pub fn with_timer_core(self, core: usize) -> Self {
        Outages {
            timer_core: Some(core),
            ..self
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_core.iter().all(Vec::is_empty)
    }

    /// How many disjoint outages there are, over all cores.
    pub fn len(&self) -> usize {
        self.by_core.iter().map(Vec::len).sum()
    }

    /// The highest core with an outage, if any.
    pub fn last_core(&self) -> Option<usize> {
        self.by_core.iter().rposition(|spans| !spans.is_empty())
    }
}

/// Sorts `spans` and merges those that overlap or touch (at one start, one that takes the
/// job first).
fn merge(spans: &mut Vec<Span>) {
    spans.sort_unstable_by_key(|s| (s.from, !s.takes_job));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for &span in spans.iter() {
        match merged.last_mut() {
            Some(last) if span.from <= last.to => last.to = last.to.max(span.to),
            _ => merged.push(span),
        }
    }
    *spans = merged;
}

/// Where the engine stands in each core's outages: time only moves forward, so each core's
/// cursor passes each outage once.
pub(crate) struct Cursor<'o> {
    outages: &'o Outages,
    next: Vec<usize>,
}

impl<'o> Cursor<'o> {
    pub(crate) fn new(outages: &'o Outages) -> Self {
        let next = vec![0; outages.by_core.len()];
        Cursor { outages, next }
    }

    /// Moves every core's cursor past the outages ended by `now`.
    pub(crate) fn pass(&mut self, now: Instant) {
        for (core, spans) in self.outages.by_core.iter().enumerate() {
            let i = &mut self.next[core];
            while spans.get(*i).is_some_and(|s| s.to <= now) {
                *i += 1;
            }
        }
    }

    /// Whether `core` is out at `now` (after [`Cursor::pass`] of `now`).
    pub(crate) fn out(&self, core: usize, now: Instant) -> bool {
        self.current(core).is_some_and(|s| s.from <= now)
    }

    /// Until when a job placed on `core` at `placed` and taken off it at `now` stands still:
    /// the end of the outage `core` is in, if that outage takes the core's job and began after
    /// `placed` (after [`Cursor::pass`] of `now`).
    pub(crate) fn holds_job_until(
        &self,
        core: usize,
        placed: Instant,
        now: Instant,
    ) -> Option<Instant> {
        let span = self.current(core)?;
        (span.takes_job && placed < span.from && span.from <= now).then_some(span.to)
    }

    /// Whether a timer due at `at` waits: the timer core is out at `now` until after `at`
    /// (after [`Cursor::pass`] of `now`; a later outage's start is an event instant, where
    /// this is asked again). Every instant's pass fires the timers due by then.
    pub(crate) fn holds_timer(&self, now: Instant, at: Instant) -> bool {
        let Some(core) = self.outages.timer_core else {
            return false;
        };
        (self.current(core)).is_some_and(|s| s.from <= now && at < s.to)
    }

    /// The next instant after `now` at which some core goes out or comes back (after
    /// [`Cursor::pass`] of `now`).
    pub(crate) fn next_change(&self, now: Instant) -> Option<Instant> {
        (0..self.next.len())
            .filter_map(|core| self.current(core))
            .map(|s| if s.from > now { s.from } else { s.to })
            .min()
    }

    fn current(&self, core: usize) -> Option<Span> {
        let i = *self.next.get(core)?;
        self.outages.by_core[core].get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    fn outage(core: usize, from: u64, to: u64) -> Outage {
        Outage {
            core,
            from: at(from),
            to: at(to),
        }
    }

    #[test]
    fn overlapping_and_touching_outages_merge_and_empty_ones_drop() {
        let o = Outages::new([
            outage(1, 5, 7),
            outage(1, 1, 3),
            outage(1, 2, 4),
            outage(1, 4, 5),
            outage(1, 9, 9),
            outage(0, 8, 10),
        ]);
        assert_eq!(o.len(), 2);
        let span = |from, to, takes_job| Span {
            from: at(from),
            to: at(to),
            takes_job,
        };
        assert_eq!(o.by_core[1], vec![span(1, 7, true)]);
        assert_eq!(o.last_core(), Some(1));
        assert!(Outages::new([outage(0, 3, 3)]).is_empty());
        assert_eq!(Outages::new([outage(2, 3, 3)]).last_core(), None);
        // Merged, they take the job if the first does; at one start, the one that takes it.
        let mixed = Outages::taking_and_not(
            [outage(0, 2, 4), outage(1, 5, 6)],
            [outage(0, 1, 3), outage(1, 5, 8)],
        );
        assert_eq!(mixed.by_core[0], vec![span(1, 4, false)]);
        assert_eq!(mixed.by_core[1], vec![span(5, 8, true)]);
    }

    #[test]
    fn the_cursor_reports_each_change_once_and_in_order() {
        let o = Outages::new([outage(0, 2, 4), outage(1, 3, 6), outage(0, 5, 7)]);
        let mut c = Cursor::new(&o);
        let mut now = at(0);
        let mut seen = Vec::new();
        while let Some(next) = c.next_change(now) {
            now = next;
            c.pass(now);
            seen.push((now, c.out(0, now), c.out(1, now)));
        }
        let ms = |(t, a, b): (Instant, bool, bool)| (t.as_nanos() / 1_000_000, a, b);
        let seen: Vec<_> = seen.into_iter().map(ms).collect();
        assert_eq!(
            seen,
            vec![
                (2, true, false),
                (3, true, true),
                (4, false, true),
                (5, true, true),
                (6, true, false),
                (7, false, false)
            ]
        );
    }
}
