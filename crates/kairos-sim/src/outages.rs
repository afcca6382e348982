//! Core outages: stretches of time in which a core runs nothing of the simulated workload,
//! as when the host takes the core away (the stalls a real run recorded, replayed in its
//! simulation to see whether they alone make a job miss).
//!
//! The job placed on a core in an outage keeps its place and makes no progress: its work, its
//! switch's overhead and its execution stand still, and it completes that much later. Neither
//! the policy nor the contract is told, as a real run's dispatcher is not told the host took a
//! core; everything measured in wall time goes on (a server's budget drains while its VCPU is
//! held, as a real VMM's does). A job the policy places on a core in an outage starts when the
//! outage ends. A job the policy moves off a core in an outage stands still wherever it is
//! placed until the outage ends: on real cores its worker's state is on the held CPU, and no
//! other CPU can run it before the host gives that one back. The engine makes each outage's
//! start and end an event instant, so between two events a core is either out or not.
//!
//! A run may name a **timer core**, the one whose dispatcher alone wakes for the policy's
//! timers (kairos's user-space dispatcher sets them on one core). While it is out, a timer
//! that falls due waits for the next instant something else brings (a release, a completion,
//! another core's event, a deadline) or for the outage's end, when a pass handles it late, as
//! another core's pass does on real cores. The simulation's instants are at least as many as a
//! real run's passes, so the wait it gives a timer is never longer than a real one's.

use kairos_model::Instant;

/// One outage of `core` (numbered as the engine numbers cores) over `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub core: usize,
    pub from: Instant,
    pub to: Instant,
}

/// The outages of a simulation, per core in order, those that overlap or touch merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outages {
    by_core: Vec<Vec<(Instant, Instant)>>,
    timer_core: Option<usize>,
}

impl Outages {
    /// The outages given, in any order; empty ones are left out.
    pub fn new(outages: impl IntoIterator<Item = Outage>) -> Self {
        let mut by_core: Vec<Vec<(Instant, Instant)>> = Vec::new();
        for o in outages.into_iter().filter(|o| o.from < o.to) {
            if by_core.len() <= o.core {
                by_core.resize_with(o.core + 1, Vec::new);
            }
            by_core[o.core].push((o.from, o.to));
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

/// Sorts `spans` and merges those that overlap or touch.
fn merge(spans: &mut Vec<(Instant, Instant)>) {
    spans.sort_unstable();
    let mut merged: Vec<(Instant, Instant)> = Vec::with_capacity(spans.len());
    for &(from, to) in spans.iter() {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
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
            while spans.get(*i).is_some_and(|&(_, to)| to <= now) {
                *i += 1;
            }
        }
    }

    /// Whether `core` is out at `now` (after [`Cursor::pass`] of `now`).
    pub(crate) fn out(&self, core: usize, now: Instant) -> bool {
        self.out_until(core, now).is_some()
    }

    /// When the outage `core` is in at `now` ends, if it is in one (after [`Cursor::pass`] of
    /// `now`).
    pub(crate) fn out_until(&self, core: usize, now: Instant) -> Option<Instant> {
        (self.current(core)).and_then(|(from, to)| (from <= now).then_some(to))
    }

    /// Whether a timer due at `at` waits: the timer core is out at `now` until after `at`
    /// (after [`Cursor::pass`] of `now`; a later outage's start is an event instant, where
    /// this is asked again). Every instant's pass fires the timers due by then.
    pub(crate) fn holds_timer(&self, now: Instant, at: Instant) -> bool {
        let Some(core) = self.outages.timer_core else {
            return false;
        };
        (self.current(core)).is_some_and(|(from, to)| from <= now && at < to)
    }

    /// The next instant after `now` at which some core goes out or comes back (after
    /// [`Cursor::pass`] of `now`).
    pub(crate) fn next_change(&self, now: Instant) -> Option<Instant> {
        (0..self.next.len())
            .filter_map(|core| self.current(core))
            .map(|(from, to)| if from > now { from } else { to })
            .min()
    }

    fn current(&self, core: usize) -> Option<(Instant, Instant)> {
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
        assert_eq!(o.by_core[1], vec![(at(1), at(7))]);
        assert_eq!(o.last_core(), Some(1));
        assert!(Outages::new([outage(0, 3, 3)]).is_empty());
        assert_eq!(Outages::new([outage(2, 3, 3)]).last_core(), None);
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
