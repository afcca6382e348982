//! The VMM level of RT-Xen 2.0 (Xi, Xu, Lu, Phan, Gill, Sokolsky, Lee, "Real-Time
//! Multi-Core Virtual Machine Scheduling in Xen", EMSOFT 2014, section III, Algorithm 1):
//! VCPUs with budget left ranked by EDF (current period end) or DM (period), ties by index,
//! placed greedily on the cores they allow.
//!
//! rt-global and rt-partition differ only in the VCPUs' cores: under rt-partition each VCPU
//! allows one core, so the greedy pass is one queue per core. A VCPU keeps its core if it can
//! ([`Placement::core_for`]): RT-Xen re-queues a descheduled VCPU and prefers, among idle
//! cores, the one it last ran on.
//!
//! With a quantum (RT-Xen 2.0 decides every 1 ms) the VMM reorders VCPUs only at quantum
//! boundaries: between them a placed VCPU keeps its core while it has budget and work, and a
//! core it leaves (idle, out of budget) is refilled at once, in priority order. This is kairos'
//! reading of the quantum: RT-Xen 2.0's `do_schedule` runs at each tick and when a VCPU blocks
//! or wakes an idle core; it also accounts budgets in whole microseconds and zeroes a remainder
//! under 500 us, which kairos does not (budgets are exact nanoseconds here).

use crate::server::{ServerSpec, ServerView};
use kairos_model::{Duration, Instant, ServerPriority};

/// How the VMM ranks VCPUs: a key compared with `lt`, never a bare integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerRank {
    key: (u64, usize),
}

impl ServerRank {
    /// The rank of `server` now under `priority`.
    pub fn of(priority: ServerPriority, spec: &ServerSpec, server: &ServerView) -> ServerRank {
        let first = match priority {
            ServerPriority::Edf => server.deadline.as_nanos(),
            ServerPriority::Dm => spec.period.as_nanos(),
        };
        ServerRank {
            key: (first, server.id.0),
        }
    }

    pub fn is_more_important_than(&self, other: &ServerRank) -> bool {
        self.key < other.key
    }
}

/// The VCPUs with budget left, most important first.
pub fn ranked(priority: ServerPriority, specs: &[ServerSpec], views: &[ServerView]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..views.len())
        .filter(|&s| !views[s].budget_left.is_zero())
        .collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (
            ServerRank::of(priority, &specs[a], &views[a]),
            ServerRank::of(priority, &specs[b], &views[b]),
        );
        match (
            ra.is_more_important_than(&rb),
            rb.is_more_important_than(&ra),
        ) {
            (true, _) => std::cmp::Ordering::Less,
            (_, true) => std::cmp::Ordering::Greater,
            _ => std::cmp::Ordering::Equal,
        }
    });
    order
}

/// Cores being filled in one decision.
pub struct Placement {
    /// Per core, the server placed there so far.
    pub cores: Vec<Option<usize>>,
}

impl Placement {
    pub fn new(cores: usize) -> Placement {
        Placement {
            cores: vec![None; cores],
        }
    }

    /// The core `server` takes, if any is free among those it allows: the one it runs on, then
    /// a core no server runs on now (its last one first), then any (its last one first), so a
    /// VCPU does not push another off its core while a core is idle.
    pub fn core_for(
        &self,
        spec: &ServerSpec,
        server: &ServerView,
        now_on: &[bool],
    ) -> Option<usize> {
        let free = |c: usize| spec.allows(c) && self.cores[c].is_none();
        if let Some(c) = server.running_on.filter(|&c| free(c)) {
            return Some(c);
        }
        let last = server.last_core.filter(|&c| free(c));
        let idle_now = |c: usize| free(c) && !now_on[c];
        (last.filter(|&c| idle_now(c)))
            .or_else(|| spec.cpus.iter().copied().find(|&c| idle_now(c)))
            .or(last)
            .or_else(|| spec.cpus.iter().copied().find(|&c| free(c)))
    }
}

/// Quantum boundaries: the next one after `now`.
pub fn next_tick(now: Instant, quantum: Duration) -> Instant {
    let q = quantum.as_nanos();
    Instant::from_nanos((now.as_nanos() / q + 1) * q)
}

/// Whether `now` is a quantum boundary.
pub fn is_tick(now: Instant, quantum: Duration) -> bool {
    now.as_nanos().is_multiple_of(quantum.as_nanos())
}
