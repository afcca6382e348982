//! Servers in the engine ([`kairos_policy::server`]): the budgets the engine owns for a policy
//! that schedules through servers (the VCPUs of hierarchical scheduling).
//!
//! Every server is replenished at each multiple of its period from 0 (a queued event, applied
//! before the releases of its instant) and charged while placed: a deferrable server while its
//! core runs a job (overheads included: the core works for it), a periodic one all the time it
//! is placed. A placed server whose budget runs out is reported once; the decision at that
//! instant must take it off its core. The time a server is placed is its **supply**; a
//! **back-to-back** occurrence (Xi et al., EMSOFT 2014, Table I) is a replenishment that finds
//! the server placed (it ran up to its period's end) and the decision at that instant keeps it
//! placed: two periods' budgets in one executing window.

use super::Engine;
use crate::metrics::ServerMetrics;
use kairos_model::{Duration, Instant, ServerKind};
use kairos_policy::{Policy, ServerId, ServerSpec, ServerView};
use kairos_trace::TraceEvent;

/// The engine's servers; empty for a policy without them.
#[derive(Default)]
pub(crate) struct Servers {
    pub specs: Vec<ServerSpec>,
    pub views: Vec<ServerView>,
    /// Per core, the server placed there.
    pub on_core: Vec<Option<usize>>,
    /// The exhaustion of the current period was reported.
    reported: Vec<bool>,
    /// When the current placement began (valid while placed).
    placed_since: Vec<Instant>,
    /// Replenished this instant while placed: back-to-back if the decision keeps them.
    replenished_placed: Vec<usize>,
    pub metrics: Vec<ServerMetrics>,
}

impl Servers {
    pub(crate) fn new(specs: Vec<ServerSpec>, cores: usize) -> Servers {
        let n = specs.len();
        let views = (0..n)
            .map(|i| ServerView {
                id: ServerId(i),
                replenished_at: Instant::ZERO,
                deadline: Instant::ZERO,
                budget_left: Duration::ZERO,
                running_on: None,
                last_core: None,
            })
            .collect();
        let metrics = (specs.iter())
            .map(|s| ServerMetrics::named(&s.name))
            .collect();
        Servers {
            on_core: match n {
                0 => Vec::new(),
                _ => vec![None; cores],
            },
            specs,
            views,
            reported: vec![false; n],
            placed_since: vec![Instant::ZERO; n],
            replenished_placed: Vec::new(),
            metrics,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Whether server `s`, placed, is charged now (`core_busy`: its core runs a job).
    fn charged(&self, s: usize, core_busy: bool) -> bool {
        match self.specs[s].kind {
            ServerKind::Periodic => true,
            ServerKind::Deferrable => core_busy,
        }
    }
}

impl Engine<'_> {
    /// Declares the policy's servers and queues their first replenishments (at 0).
    pub(super) fn declare_servers(&mut self, specs: Vec<ServerSpec>) {
        for s in 0..specs.len() {
            self.queue.replenish(Instant::ZERO, s);
        }
        self.servers = Servers::new(specs, self.workload.cores);
    }

    /// The earliest instant a placed, charged server runs out of budget.
    pub(super) fn next_server_exhaustion(&self) -> Option<Instant> {
        let servers = &self.servers;
        (servers.on_core.iter().enumerate())
            .filter_map(|(core, s)| Some((core, (*s)?)))
            .filter(|&(core, s)| servers.charged(s, self.running[core].is_some()))
            .map(|(_, s)| servers.views[s].budget_left)
            .filter(|left| !left.is_zero())
            .map(|left| self.now + left)
            .min()
    }

    /// Charges the placed servers for `elapsed` (before the jobs' clocks move).
    pub(super) fn charge_servers(&mut self, elapsed: Duration) {
        for core in 0..self.servers.on_core.len() {
            let Some(s) = self.servers.on_core[core] else {
                continue;
            };
            let used = match self.servers.charged(s, self.running[core].is_some()) {
                true => elapsed.min(self.servers.views[s].budget_left),
                false => Duration::ZERO,
            };
            self.servers.views[s].budget_left -= used;
            let m = &mut self.servers.metrics[s];
            m.budget_used_ns += used.as_nanos();
            m.supply_ns += elapsed.as_nanos();
        }
    }

    /// Reports every placed server whose budget just ran out; returns whether any did.
    pub(super) fn report_server_exhaustion(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        for s in 0..self.servers.views.len() {
            let view = &self.servers.views[s];
            if view.running_on.is_none() || !view.budget_left.is_zero() || self.servers.reported[s]
            {
                continue;
            }
            any = true;
            self.servers.reported[s] = true;
            self.servers.metrics[s].exhaustions += 1;
            let at = self.now;
            self.record(|| TraceEvent::ServerExhausted { server: s, at });
            policy.server_exhausted(at, &self.servers.views[s]);
        }
        any
    }

    /// Starts server `s`'s next period now and queues the one after.
    pub(super) fn replenish(&mut self, s: usize, policy: &mut dyn Policy) {
        let (now, spec) = (self.now, &self.servers.specs[s]);
        let next = now + spec.period;
        let view = &mut self.servers.views[s];
        view.budget_left = spec.budget;
        view.replenished_at = now;
        view.deadline = next;
        self.servers.reported[s] = false;
        self.servers.metrics[s].replenishments += 1;
        if view.running_on.is_some() {
            self.servers.replenished_placed.push(s);
        }
        if next < self.end {
            self.queue.replenish(next, s);
        }
        self.record(|| TraceEvent::Replenish { server: s, at: now });
        policy.server_replenished(now, &self.servers.views[s]);
    }

    /// After the decision of an instant: the servers replenished while placed that are still
    /// placed ran back to back.
    pub(super) fn count_back_to_back(&mut self) {
        for s in std::mem::take(&mut self.servers.replenished_placed) {
            if self.servers.views[s].running_on.is_some() {
                self.servers.metrics[s].back_to_back += 1;
            }
        }
    }

    /// Places the decision's servers: a server leaving its core ends its segment there (and so
    /// does the job on that core: a job's segments never straddle two servers).
    pub(super) fn place_servers(&mut self, servers: &[Option<ServerId>]) {
        if self.servers.is_empty() {
            return;
        }
        for (core, want) in servers.iter().enumerate() {
            let current = self.servers.on_core[core];
            if current == want.map(|id| id.0) {
                continue;
            }
            if let Some(s) = current {
                self.unplace_server(s, core);
                if let Some(i) = self.running[core] {
                    self.record_segment(i, core);
                }
            }
        }
        for (core, want) in servers.iter().enumerate() {
            let Some(ServerId(s)) = *want else { continue };
            if self.servers.on_core[core] == Some(s) {
                continue;
            }
            self.servers.on_core[core] = Some(s);
            let view = &mut self.servers.views[s];
            view.running_on = Some(core);
            view.last_core = Some(core);
            self.servers.placed_since[s] = self.now;
        }
    }

    fn unplace_server(&mut self, s: usize, core: usize) {
        self.servers.on_core[core] = None;
        self.servers.views[s].running_on = None;
        let (start, end) = (self.servers.placed_since[s], self.now);
        if end > start {
            self.record(|| TraceEvent::ServerSegment {
                core,
                server: s,
                start,
                end,
            });
        }
    }

    /// Ends every server's placement at the end of the run.
    pub(super) fn close_server_segments(&mut self) {
        for core in 0..self.servers.on_core.len() {
            if let Some(s) = self.servers.on_core[core] {
                self.unplace_server(s, core);
            }
        }
    }
}
