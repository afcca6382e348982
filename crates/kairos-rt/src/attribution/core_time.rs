//! What the host took from a job's core while the job waited there: a way of the rule's first
//! case for a job whose group is one core.
//!
//! On one core, from its release (or its optional deadline, for a job that had reached its
//! optional part by then) to its completion, a job with real-time work pending lets only work
//! of a higher priority run before it: what the host took inside the real-time segments that
//! ran in that stretch (the stalls inside them, or what a slowed core took from them), whichever
//! job's, delayed its completion by as much. Uniprocessor fixed-priority and EDF scheduling are
//! sustainable in execution times (Baruah and Burns, "Sustainable scheduling analysis", RTSS
//! 2006, section 3): with less execution, no job completes later. So when that time reaches
//! the job's lateness, the job would have met its deadline without it, as in the own-time way
//! of [`super::own`], which counts only the job's own segments and misses the slowed work
//! ahead of it (a P-EDF job 1.1 ms late whose CPU ran at half speed for milliseconds under the
//! jobs before it). On several cores a stall of one delays a job of another only when no other
//! core could take its work: the backlog's case weighs that, not this one.

use super::slowed::Slowed;
use super::{longest_in, lost_in, Segment, StallIndex};
use crate::measure::JobRecord;
use crate::stalls::Stall;
use kairos_model::{Duration, Instant};
use std::collections::HashMap;

/// What the host took from the real-time segments that ran on `core` in `[from, to)`,
/// whichever job's, and how much of it stalls: in each segment begun there, the larger of the
/// stalls inside it (cut to `to`) and what a slowed core took from it before `to`, as for a
/// job's own segments ([`super::own`]). Only time inside segments counts: a hole where the
/// core ran nothing may be time the schedule left it idle.
pub fn host_on_core(
    (from, to): (Instant, Instant),
    core: usize,
    (segments, slowed): (&HashMap<(usize, u64), Vec<Segment>>, &Slowed),
    index: &StallIndex,
) -> (Duration, Duration) {
    let (mut host, mut stalled) = (Duration::ZERO, Duration::ZERO);
    for (key, segs) in segments {
        let ran_there = |&&(c, start, _): &&Segment| c == core && from <= start && start < to;
        for &(_, start, end) in segs.iter().filter(ran_there) {
            let inside = lost_in((start, end.min(to)), &[core], index);
            let slow = (slowed.get(key)).map_or(Duration::ZERO, |s| {
                s.of_segment(start.as_nanos(), to.as_nanos())
            });
            stalled += inside;
            host += inside.max(slow);
        }
    }
    (host, stalled)
}

/// Whether the host took from the one core of the job's group, over `[from, completion)`
/// ([`host_on_core`]), at least the job's lateness and more than its slack `s_j`, and the host's time there
/// (zero when the group has several cores or the job never completed). The stall to name:
/// the longest there when the stalls took at least as much as the slowing.
pub fn took_its_lateness(
    job: &JobRecord,
    (from, group): (Instant, &[usize]),
    s_j: Duration,
    runs: (&HashMap<(usize, u64), Vec<Segment>>, &Slowed),
    index: &StallIndex,
) -> (Option<Option<Stall>>, Duration) {
    let (&[core], Some(done)) = (group, job.completion) else {
        return (None, Duration::ZERO);
    };
    let Some(late) = done.checked_sub(job.deadline) else {
        return (None, Duration::ZERO);
    };
    let stretch = (from, Instant::from_nanos(done));
    let (host, stalled) = host_on_core(stretch, core, runs, index);
    if host < Duration::from_nanos(late) || host <= s_j {
        return (None, host);
    }
    let slowed = host.saturating_sub(stalled);
    let named = longest_in(stretch, &[core], index).filter(|_| stalled >= slowed);
    (Some(named), host)
}
