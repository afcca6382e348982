//! Servers' budgets ([`crate::server`]), accounted by the contract for every engine in
//! nominal time: the simulated and the measured run of one policy charge the same placements
//! alike.
//!
//! Every server is replenished at each multiple of its period from 0 (before the releases of
//! that instant) while the run lasts, and charged while placed up to each instant the engine
//! visits: a deferrable server while its core runs a job (overheads included: the core works
//! for it), a periodic one all the time it is placed. Between two instants a core's placement
//! does not change, so charging at each instant is exact. A placed server whose budget runs
//! out is reported once per period; the decision at that instant must take it off its core.
//! The time a server is placed is its **supply**; a **back-to-back** occurrence (Xi et al.,
//! "Real-Time Multi-Core Virtual Machine Scheduling in Xen", EMSOFT 2014, Table I) is a
//! replenishment that finds the server placed and a decision at that instant that keeps it
//! placed: two periods' budgets in one executing window.

use super::{Host, Jobs};
use crate::policy::Policy;
use crate::server::{ServerId, ServerKind, ServerSpec, ServerView};
use kairos_model::{Duration, Instant};
use kairos_trace::{ServerMetrics, TraceEvent};

/// The servers of a run; empty for a policy without them.
#[derive(Clone, Debug, Default)]
pub struct Servers {
    specs: Vec<ServerSpec>,
    views: Vec<ServerView>,
    /// Per core, the server placed there (empty without servers).
    on_core: Vec<Option<usize>>,
    /// Per server: charged up to; placed since; next replenishment (none past the end).
    charged_until: Vec<Instant>,
    since: Vec<Instant>,
    next_replenish: Vec<Option<Instant>>,
    /// The exhaustion of the current period was reported.
    reported: Vec<bool>,
    /// Replenished this instant while placed: back-to-back if the decision keeps them.
    replenished_placed: Vec<usize>,
    metrics: Vec<ServerMetrics>,
    end: Instant,
}

impl Servers {
    pub(crate) fn new(specs: Vec<ServerSpec>, cores: usize, end: Instant) -> Servers {
        let n = specs.len();
        let views = (0..n)
            .map(|s| ServerView {
                id: ServerId(s),
                replenished_at: Instant::ZERO,
                deadline: Instant::ZERO,
                budget_left: Duration::ZERO,
                running_on: None,
                last_core: None,
            })
            .collect();
        Servers {
            views,
            metrics: (specs.iter())
                .map(|s| ServerMetrics::named(&s.name))
                .collect(),
            specs,
            on_core: if n == 0 {
                Vec::new()
            } else {
                vec![None; cores]
            },
            charged_until: vec![Instant::ZERO; n],
            since: vec![Instant::ZERO; n],
            next_replenish: vec![Some(Instant::ZERO); n],
            reported: vec![false; n],
            replenished_placed: Vec::new(),
            end,
        }
    }

    pub fn specs(&self) -> &[ServerSpec] {
        &self.specs
    }

    pub fn views(&self) -> &[ServerView] {
        &self.views
    }

    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Each server's figures so far.
    pub fn metrics(&self) -> &[ServerMetrics] {
        &self.metrics
    }

    /// The server placed on `core`.
    pub fn on_core(&self, core: usize) -> Option<usize> {
        self.on_core.get(core).copied().flatten()
    }

    /// Whether server `s`, placed, is charged (`core_busy`: its core runs a job).
    fn charged(&self, s: usize, core_busy: bool) -> bool {
        match self.specs[s].kind {
            ServerKind::Periodic => true,
            ServerKind::Deferrable => core_busy,
        }
    }

    /// Charges the placed servers up to `now`; `running[c]` is core `c`'s job.
    pub(crate) fn charge(&mut self, now: Instant, running: &[Option<usize>]) {
        for (core, job) in running.iter().enumerate().take(self.on_core.len()) {
            let Some(s) = self.on_core[core] else {
                continue;
            };
            let elapsed = now.saturating_since(self.charged_until[s]);
            self.charged_until[s] = now;
            let used = match self.charged(s, job.is_some()) {
                true => elapsed.min(self.views[s].budget_left),
                false => Duration::ZERO,
            };
            self.views[s].budget_left -= used;
            self.metrics[s].budget_used_ns += used.as_nanos();
            self.metrics[s].supply_ns += elapsed.as_nanos();
        }
    }

    /// The earliest instant a placed, charged server runs out of budget, with its core.
    pub fn next_exhaustion(&self, running: &[Option<usize>]) -> Option<(Instant, usize)> {
        (self.on_core.iter().enumerate())
            .filter_map(|(core, s)| Some((core, (*s)?)))
            .filter(|&(core, s)| self.charged(s, running[core].is_some()))
            .filter(|&(_, s)| !self.views[s].budget_left.is_zero())
            .map(|(core, s)| (self.charged_until[s] + self.views[s].budget_left, core))
            .min()
    }

    /// The earliest replenishment still to come, with its server.
    pub fn next_replenishment(&self) -> Option<(Instant, usize)> {
        (self.next_replenish.iter().enumerate())
            .filter_map(|(s, at)| Some(((*at)?, s)))
            .min()
    }

    /// The core whose events server `s` belongs to: where it runs, else where it last ran,
    /// else its first allowed core.
    pub fn home(&self, s: usize) -> usize {
        let view = &self.views[s];
        (view.running_on.or(view.last_core)).unwrap_or(self.specs[s].cpus[0])
    }

    /// Reports every placed server whose budget ran out by `now`; returns whether any did.
    pub(crate) fn report_exhaustion<J, H: Host<J>>(
        &mut self,
        now: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> bool {
        let mut any = false;
        for s in 0..self.views.len() {
            let view = &self.views[s];
            if view.running_on.is_none() || !view.budget_left.is_zero() || self.reported[s] {
                continue;
            }
            any = true;
            self.reported[s] = true;
            self.metrics[s].exhaustions += 1;
            host.record(TraceEvent::ServerExhausted { server: s, at: now });
            policy.server_exhausted(now, &self.views[s]);
        }
        any
    }

    /// Starts the period of every server due by `now` (by server index); returns whether any
    /// was.
    pub(crate) fn replenish_due<J, H: Host<J>>(
        &mut self,
        now: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> bool {
        let mut any = false;
        for s in 0..self.specs.len() {
            let Some(due) = self.next_replenish[s].filter(|&due| due <= now) else {
                continue;
            };
            any = true;
            let next = due + self.specs[s].period;
            self.next_replenish[s] = Some(next).filter(|&next| next < self.end);
            let view = &mut self.views[s];
            view.budget_left = self.specs[s].budget;
            view.replenished_at = due;
            view.deadline = next;
            self.reported[s] = false;
            self.metrics[s].replenishments += 1;
            if view.running_on.is_some() {
                self.replenished_placed.push(s);
            }
            host.record(TraceEvent::Replenish { server: s, at: due });
            policy.server_replenished(due, &self.views[s]);
        }
        any
    }

    /// Places a decision's servers at `now`: a server leaving its core ends its segment there
    /// (and the job on that core its own, [`Host::server_left`]); a server replenished at this
    /// instant while placed that stays placed ran back to back.
    pub(crate) fn place<J, H: Host<J>>(
        &mut self,
        now: Instant,
        wanted: &[Option<ServerId>],
        jobs: &mut Jobs<J>,
        host: &mut H,
    ) {
        if self.is_empty() {
            return;
        }
        for (core, want) in wanted.iter().enumerate() {
            let current = self.on_core[core];
            if current == want.map(|id| id.0) {
                continue;
            }
            if let Some(s) = current {
                if let Some(segment) = self.unplace(s, core, now) {
                    host.record(segment);
                }
                let job = jobs.running()[core].map(|i| jobs.parts_mut(i));
                host.server_left(now, core, job);
            }
        }
        for (core, want) in wanted.iter().enumerate() {
            let Some(ServerId(s)) = *want else { continue };
            if self.on_core[core] == Some(s) {
                continue;
            }
            self.on_core[core] = Some(s);
            self.views[s].running_on = Some(core);
            self.views[s].last_core = Some(core);
            self.since[s] = now;
            self.charged_until[s] = now;
        }
        for s in std::mem::take(&mut self.replenished_placed) {
            if self.views[s].running_on.is_some() {
                self.metrics[s].back_to_back += 1;
            }
        }
    }

    /// Takes server `s` off `core` at `now`; returns its segment there, if not empty.
    fn unplace(&mut self, s: usize, core: usize, now: Instant) -> Option<TraceEvent> {
        self.on_core[core] = None;
        self.views[s].running_on = None;
        let start = self.since[s];
        (now > start).then_some(TraceEvent::ServerSegment {
            core,
            server: s,
            start,
            end: now,
        })
    }

    /// Charges every placed server up to the end and ends its placement there (`record`
    /// takes each segment); returns the servers' figures.
    pub fn close(
        &mut self,
        running: &[Option<usize>],
        record: &mut dyn FnMut(TraceEvent),
    ) -> Vec<ServerMetrics> {
        let end = self.end;
        self.charge(end, running);
        for core in 0..self.on_core.len() {
            if let Some(segment) = self.on_core[core].and_then(|s| self.unplace(s, core, end)) {
                record(segment);
            }
        }
        std::mem::take(&mut self.metrics)
    }
}
