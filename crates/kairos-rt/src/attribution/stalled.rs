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
//! The pair it compares is the run's simulation charging every cost of the profile at its
//! largest (the quantile the analysis charged), so that nothing is drawn: once as it is (the
//! calm twin), once with every recorded stall as an outage of its core (the stalled twin).
//! The twin that gives `s_j` draws each switch's cost in event order, and a stall moves every
//! event after it, so two drawn simulations would differ by their draws too; these two differ
//! only by the stalls. A job the calm twin and the twin complete by its deadline and the
//! stalled twin does not was made to miss by the stalls. The stalls are lower bounds of the
//! holes they report, so a stalled twin that meets the job proves nothing, and the rule stays
//! with `schedule`.
//!
//! In the stalled twin a job the policy moves off a core a watcher saw taken stands still
//! until the stall ends, as its worker on the held CPU must hand it over first, and the policy's
//! timers wait while the timer core is out (`kairos_sim::outages` says how); the policy is
//! still not told, and may place work the held core's dispatcher would only decide after the
//! stall. Each stall is the host's all the same.

use super::{longest_in, StallIndex};
use crate::stalls::Stall;
use kairos_model::Instant;
use std::collections::HashMap;

/// Each job's completion in one simulation.
pub type Completions = HashMap<(usize, u64), Instant>;

/// The completions of the calm and the stalled twin.
pub struct Pair {
    pub calm: Completions,
    pub stalled: Completions,
}

/// What the third case found for a job due at `deadline` whose backlog began at
/// `backlog_from` on its group's `cores` (`all`: the run's): `None` when the calm twin misses it or the
/// stalled twin meets it (or there is no pair); otherwise its completion in the stalled twin
/// and the stall to name ([`to_name`]).
pub fn missed_in_stalled_twin(
    pair: Option<&Pair>,
    job: (usize, u64),
    (backlog_from, deadline): (Instant, Instant),
    (cores, all): (&[usize], &[usize]),
    stalls: &StallIndex,
) -> Option<(Option<Instant>, Option<Stall>)> {
    let pair = pair?;
    let by_deadline = |done: Option<&Instant>| done.is_some_and(|&f| f <= deadline);
    if !by_deadline(pair.calm.get(&job)) || by_deadline(pair.stalled.get(&job)) {
        return None;
    }
    let stall = to_name((backlog_from, deadline), cores, stalls)
        .or_else(|| to_name((backlog_from, deadline), all, stalls));
    Some((pair.stalled.get(&job).copied(), stall))
}

/// The stall the report names for such a miss, on `cores`: the longest in its backlog, else
/// the last one begun before its deadline (a VCPU's budget a stall burnt in an earlier
/// period). Its group's cores first, then every core: a job that never shared a core with
/// another is its own group, though a global policy could have moved it.
fn to_name(
    (from, deadline): (Instant, Instant),
    cores: &[usize],
    stalls: &StallIndex,
) -> Option<Stall> {
    longest_in((from, deadline), cores, stalls).or_else(|| {
        (cores.iter())
            .flat_map(|&core| stalls.overlapping(core, Instant::ZERO, deadline))
            .max_by_key(|s| s.start)
            .copied()
    })
}
