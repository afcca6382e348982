//! Servers in a user-dispatched run ([`kairos_policy::server`]): the runtime's side of the
//! budgets the contract gives the engine, accounted as the simulator accounts them, in nominal
//! time (the instants the passes decide at), so a run and its simulation charge the same
//! placements alike.
//!
//! Every server is replenished at each multiple of its period (before the releases of that
//! instant), charged while placed (deferrable: while its core was given a job by the last
//! decision; periodic: all the time), and its exhaustion is an event instant like a release:
//! the dispatcher of the server's core wakes for it, and the decision at that instant must
//! take the server off its core, which stops the job's worker. Between two passes a core's
//! placement does not change (every completion is a pass), so charging at each pass is exact
//! in nominal time; the real switch lags it by the dispatch latency the run measures.

use super::scheduler::Scheduler;
use kairos_model::{Duration, Instant, ServerKind};
use kairos_policy::{ServerId, ServerSpec, ServerView};
use kairos_trace::{ServerMetrics, TraceEvent};

/// The run's servers; empty for a policy without them.
#[derive(Default)]
pub(super) struct RunServers {
    pub specs: Vec<ServerSpec>,
    pub views: Vec<ServerView>,
    /// Per core, the server placed there.
    on_core: Vec<Option<usize>>,
    /// Per server: charged up to this instant; placed since; next replenishment.
    charged_until: Vec<u64>,
    since: Vec<u64>,
    next_replenish: Vec<u64>,
    /// The exhaustion of the current period was reported.
    reported: Vec<bool>,
    /// Replenished this instant while placed: back-to-back if the decision keeps them.
    replenished_placed: Vec<usize>,
    pub metrics: Vec<ServerMetrics>,
    pub events: Vec<TraceEvent>,
}

impl RunServers {
    pub(super) fn new(specs: Vec<ServerSpec>, cores: usize) -> RunServers {
        let n = specs.len();
        RunServers {
            views: (0..n)
                .map(|s| ServerView {
                    id: ServerId(s),
                    replenished_at: Instant::ZERO,
                    deadline: Instant::ZERO,
                    budget_left: Duration::ZERO,
                    running_on: None,
                    last_core: None,
                })
                .collect(),
            metrics: specs
                .iter()
                .map(|s| ServerMetrics::named(&s.name))
                .collect(),
            specs,
            on_core: if n == 0 {
                Vec::new()
            } else {
                vec![None; cores]
            },
            charged_until: vec![0; n],
            since: vec![0; n],
            next_replenish: vec![0; n],
            reported: vec![false; n],
            replenished_placed: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Whether placed server `s` on `core` is charged, given the cores' jobs.
    fn charged(&self, s: usize, core_has_job: bool) -> bool {
        self.specs[s].kind == ServerKind::Periodic || core_has_job
    }

    /// The core whose dispatcher wakes for server `s`'s events.
    fn home(&self, s: usize) -> usize {
        let view = &self.views[s];
        (view.running_on.or(view.last_core)).unwrap_or(self.specs[s].cpus[0])
    }
}

impl Scheduler {
    /// Charges the placed servers up to `at`.
    pub(super) fn charge_servers(&mut self, at: u64) {
        let servers = &mut self.servers;
        for core in 0..servers.on_core.len() {
            let Some(s) = servers.on_core[core] else {
                continue;
            };
            let elapsed = at.saturating_sub(servers.charged_until[s]);
            servers.charged_until[s] = at;
            let used = match servers.charged(s, self.placed[core].is_some()) {
                true => Duration::from_nanos(elapsed).min(servers.views[s].budget_left),
                false => Duration::ZERO,
            };
            servers.views[s].budget_left -= used;
            servers.metrics[s].budget_used_ns += used.as_nanos();
            servers.metrics[s].supply_ns += elapsed;
        }
    }

    /// The earliest instant a placed, charged server runs out, with its core.
    pub(super) fn next_server_exhaustion(&self) -> Option<(u64, usize)> {
        let servers = &self.servers;
        (servers.on_core.iter().enumerate())
            .filter_map(|(core, s)| Some((core, (*s)?)))
            .filter(|&(core, s)| servers.charged(s, self.placed[core].is_some()))
            .filter(|&(_, s)| !servers.views[s].budget_left.is_zero())
            .map(|(core, s)| {
                (
                    servers.charged_until[s] + servers.views[s].budget_left.as_nanos(),
                    core,
                )
            })
            .min()
    }

    /// The earliest replenishment still to come, with the core that wakes for it.
    pub(super) fn next_replenishment(&self) -> Option<(u64, usize)> {
        let servers = &self.servers;
        (servers.next_replenish.iter().enumerate())
            .filter(|&(_, &at)| at != u64::MAX)
            .map(|(s, &at)| (at, servers.home(s)))
            .min()
    }

    /// Reports every placed server whose budget ran out by `at`.
    pub(super) fn report_server_exhaustion(&mut self, at: u64) {
        let now = Instant::from_nanos(at);
        for s in 0..self.servers.views.len() {
            let view = &self.servers.views[s];
            if view.running_on.is_none() || !view.budget_left.is_zero() || self.servers.reported[s]
            {
                continue;
            }
            self.servers.reported[s] = true;
            self.servers.metrics[s].exhaustions += 1;
            self.servers
                .events
                .push(TraceEvent::ServerExhausted { server: s, at: now });
            self.policy.server_exhausted(now, &self.servers.views[s]);
        }
    }

    /// Starts the period of every server due by `at` (by server index).
    pub(super) fn replenish_due(&mut self, at: u64) {
        let end = self.end;
        for s in 0..self.servers.specs.len() {
            let due = self.servers.next_replenish[s];
            if due > at {
                continue;
            }
            let period = self.servers.specs[s].period.as_nanos();
            let next = due + period;
            self.servers.next_replenish[s] = if next < end { next } else { u64::MAX };
            let view = &mut self.servers.views[s];
            view.budget_left = self.servers.specs[s].budget;
            view.replenished_at = Instant::from_nanos(due);
            view.deadline = Instant::from_nanos(next);
            self.servers.reported[s] = false;
            self.servers.metrics[s].replenishments += 1;
            if view.running_on.is_some() {
                self.servers.replenished_placed.push(s);
            }
            let now = Instant::from_nanos(due);
            self.servers
                .events
                .push(TraceEvent::Replenish { server: s, at: now });
            self.policy.server_replenished(now, &self.servers.views[s]);
        }
    }

    /// Places a decision's servers at `at`; a replenished server it keeps ran back to back.
    pub(super) fn place_servers(&mut self, wanted: &[Option<ServerId>], at: u64) {
        let servers = &mut self.servers;
        if servers.specs.is_empty() {
            return;
        }
        for (core, want) in wanted.iter().enumerate() {
            let current = servers.on_core[core];
            if current == want.map(|id| id.0) {
                continue;
            }
            if let Some(s) = current {
                servers.unplace(s, core, at);
            }
        }
        for (core, want) in wanted.iter().enumerate() {
            let Some(ServerId(s)) = *want else { continue };
            if servers.on_core[core] == Some(s) {
                continue;
            }
            servers.on_core[core] = Some(s);
            servers.views[s].running_on = Some(core);
            servers.views[s].last_core = Some(core);
            servers.since[s] = at;
            servers.charged_until[s] = at;
        }
        for s in std::mem::take(&mut servers.replenished_placed) {
            if servers.views[s].running_on.is_some() {
                servers.metrics[s].back_to_back += 1;
            }
        }
    }

    /// Ends every placement at the end of the run.
    pub(super) fn close_servers(&mut self) {
        let end = self.end;
        self.charge_servers(end);
        for core in 0..self.servers.on_core.len() {
            if let Some(s) = self.servers.on_core[core] {
                self.servers.unplace(s, core, end);
            }
        }
    }
}

impl RunServers {
    fn unplace(&mut self, s: usize, core: usize, at: u64) {
        self.on_core[core] = None;
        self.views[s].running_on = None;
        let (start, end) = (Instant::from_nanos(self.since[s]), Instant::from_nanos(at));
        if end > start {
            self.events.push(TraceEvent::ServerSegment {
                core,
                server: s,
                start,
                end,
            });
        }
    }
}
