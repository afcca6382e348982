//! Each job's segments, real-time segments, execution, cores and completion, as the rule of
//! [`super`] reads them from a run and its simulation.

use super::{lost_in, Segment, SlowedSegments, StallIndex};
use crate::measure::{JobRecord, SegmentRecord};
use kairos_model::{Duration, Instant};
use kairos_trace::{Trace, TraceEvent};
use std::collections::{HashMap, HashSet};

pub fn window(job: &JobRecord) -> (Instant, Instant) {
    (
        Instant::from_nanos(job.release),
        Instant::from_nanos(job.deadline),
    )
}

/// The measured segments of every job.
pub fn segments_of(measured: &Trace) -> HashMap<(usize, u64), Vec<Segment>> {
    let mut segments: HashMap<(usize, u64), Vec<Segment>> = HashMap::new();
    for (core, task, job, start, end) in measured.segments() {
        segments
            .entry((task, job))
            .or_default()
            .push((core, start, end));
    }
    segments
}

/// The cores a job ran on, or every core of its group if it never ran.
pub fn cores_of(job: &JobRecord, segments: &[Segment], group: &[usize]) -> Vec<usize> {
    let mut cores: Vec<usize> = segments.iter().map(|s| s.0).chain(job.cpu).collect();
    cores.sort_unstable();
    cores.dedup();
    if cores.is_empty() {
        group.to_vec()
    } else {
        cores
    }
}

/// Each job's real-time segments of `segments`: all but those its worker ran as an optional
/// part (`worker`'s best-effort ones), which no real-time work ever waits behind.
pub fn real_time_of(
    segments: &HashMap<(usize, u64), Vec<Segment>>,
    worker: &[SegmentRecord],
) -> HashMap<(usize, u64), Vec<Segment>> {
    let best_effort: HashSet<(usize, u64, u64)> = (worker.iter())
        .filter(|s| s.is_optional())
        .map(|s| (s.task, s.job, s.start))
        .collect();
    (segments.iter())
        .map(|(&(task, job), segs)| {
            let rt = (segs.iter())
                .filter(|s| !best_effort.contains(&(task, job, s.1.as_nanos())))
                .copied()
                .collect();
            ((task, job), rt)
        })
        .collect()
}

/// Each job's completion in a trace.
pub fn completions_of(trace: &Trace) -> HashMap<(usize, u64), Instant> {
    (trace.events.iter())
        .filter_map(|e| match *e {
            TraceEvent::Completion { task, job, at } => Some(((task, job), at)),
            _ => None,
        })
        .collect()
}

/// A job's own execution: its segments `(core, start, end)` less what the host took in each,
/// the larger of the stall time inside it and what a slowed core took from it (`slowed`, the
/// job's: both see a hole its worker sat out).
pub fn own_execution(
    segments: &[Segment],
    slowed: Option<&SlowedSegments>,
    stalls: &StallIndex,
) -> Duration {
    segments
        .iter()
        .map(|&(core, start, end)| {
            let stalled = lost_in((start, end), &[core], stalls);
            let (from, to) = (start.as_nanos(), end.as_nanos());
            let slowed = slowed.map_or(Duration::ZERO, |s| s.begun_in(from, to));
            end.saturating_since(start)
                .saturating_sub(stalled.max(slowed))
        })
        .fold(Duration::ZERO, |a, b| a + b)
}
