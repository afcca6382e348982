//! The run's stalls by core, and what they took from an interval.

use crate::stalls::Stall;
use kairos_model::{Duration, Instant};
use std::collections::BTreeMap;

/// The stalls of a run by core, each core's in order of start (they are disjoint per core).
pub struct StallIndex(BTreeMap<usize, Vec<Stall>>);

impl StallIndex {
    pub fn new(stalls: &[Stall]) -> Self {
        let mut by_core: BTreeMap<usize, Vec<Stall>> = BTreeMap::new();
        for s in stalls {
            by_core.entry(s.core).or_default().push(*s);
        }
        by_core
            .values_mut()
            .for_each(|v| v.sort_by_key(|s| s.start));
        StallIndex(by_core)
    }

    /// The stalls of `core` overlapping `[from, to)`.
    pub fn overlapping(&self, core: usize, from: Instant, to: Instant) -> &[Stall] {
        let Some(stalls) = self.0.get(&core) else {
            return &[];
        };
        // Disjoint and ordered by start: ends are ordered too.
        let first = stalls.partition_point(|s| s.end() <= from);
        let past = stalls.partition_point(|s| s.start < to);
        &stalls[first..past.max(first)]
    }
}

/// The longest stall on `cores` overlapping `[from, to)` (the earliest of equals).
pub(super) fn longest_in(
    (from, to): (Instant, Instant),
    cores: &[usize],
    stalls: &StallIndex,
) -> Option<Stall> {
    (cores.iter())
        .flat_map(|&core| stalls.overlapping(core, from, to))
        .max_by_key(|s| (s.length, std::cmp::Reverse(s.start)))
        .copied()
}

/// The time the stalls on `cores` took from `[from, to)`: each cut to the interval, summed.
pub fn lost_in((from, to): (Instant, Instant), cores: &[usize], stalls: &StallIndex) -> Duration {
    (cores.iter())
        .flat_map(|&core| stalls.overlapping(core, from, to))
        .map(|s| s.end().min(to).saturating_since(s.start.max(from)))
        .fold(Duration::ZERO, |a, b| a + b)
}
