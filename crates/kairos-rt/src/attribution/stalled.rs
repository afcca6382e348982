//! The rule's third case: the stalled twin. The first two cases weigh the host's recorded time
//! against a slack, one job or one backlog at a time. They cannot see what a stall does
//! through the schedule: under a global policy, a stall of one core keeps a job there while
//! the policy, not told, places the next ones around it, and a later job of another core
//! misses; a VCPU whose core is held burns its budget without running, and its tasks miss in
//! the VCPU's next period. The stalled twin replays them: the run's simulation, with every
//! recorded stall as an outage of its core (kairos-sim's `outages`: the job on the core stands
//! still, the policy decides as it did and every wall-time budget drains), is the schedule the
//! policy made of those stalls.
//!
//! A job its twin without stalls completes by its deadline (`s_j` exists) and its stalled twin
//! does not is missed because of the stalls: the one simulation differs from the other only
//! by them. The twin charges the same profile the analysis charged, cut at the same quantile,
//! so what an overhead of the profile could do is in both. The stalls are lower bounds of the
//! holes they report, so a stalled twin that meets the job proves nothing, and the rule stays
//! with `schedule`.

use super::{longest_in, StallIndex};
use crate::stalls::Stall;
use kairos_model::Instant;
use std::collections::HashMap;

/// A job's completion in the stalled twin, `None` if it has none there.
pub type Completions = HashMap<(usize, u64), Instant>;

/// What the third case found for a job with window `[release, deadline)` whose backlog began
/// at `backlog_from`: `None` when its stalled twin meets it (or there is none); otherwise its
/// completion there and the longest stall on any of `cores` in its backlog.
pub fn missed_in_stalled_twin(
    stalled: Option<&Completions>,
    job: (usize, u64),
    (backlog_from, deadline): (Instant, Instant),
    cores: &[usize],
    stalls: &StallIndex,
) -> Option<(Option<Instant>, Option<Stall>)> {
    let completion = stalled?.get(&job).copied();
    if completion.is_some_and(|f| f <= deadline) {
        return None;
    }
    Some((
        completion,
        longest_in((backlog_from, deadline), cores, stalls),
    ))
}
