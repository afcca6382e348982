//! Servers in the engine, by hand-worked schedules: a deferrable server keeps its budget while
//! idle, a periodic one burns it idle; budgets are replenished at every period, exhaustion is
//! reported and enforced, a replenishment inside an executing window counts as back-to-back,
//! and decisions that misuse servers are refused.

mod common;

use common::{at_units, task, units, workload};
use kairos_model::{Instant, ServerKind};
use kairos_policy::{Decision, JobId, Policy, ServerId, ServerSpec, ServerView, View};
use kairos_sim::outages::{Outage, Outages};
use kairos_sim::{simulate, SimConfig, SimError};
use kairos_trace::TraceEvent;

/// One server on core 0 running the earliest released job of task 0; `misuse` spoils every
/// decision.
struct OneServer {
    kind: ServerKind,
    budget: u64,
    period: u64,
    misuse: Option<fn(&View<'_>, &mut Decision)>,
    log: Vec<String>,
}

impl OneServer {
    fn new(kind: ServerKind, budget: u64, period: u64) -> OneServer {
        OneServer {
            kind,
            budget,
            period,
            misuse: None,
            log: Vec::new(),
        }
    }
}

fn t(at: Instant) -> u64 {
    at.as_nanos() / units(1).as_nanos()
}

impl Policy for OneServer {
    fn name(&self) -> &'static str {
        "one-server"
    }
    fn servers(&self) -> Vec<ServerSpec> {
        vec![ServerSpec {
            name: "s".into(),
            budget: units(self.budget),
            period: units(self.period),
            cpus: vec![0],
            kind: self.kind,
            tasks: vec![0],
        }]
    }
    fn server_replenished(&mut self, now: Instant, server: &ServerView) {
        let left = t(Instant::ZERO + server.budget_left);
        self.log.push(format!("{} replenish {left}", t(now)));
    }
    fn server_exhausted(&mut self, now: Instant, _server: &ServerView) {
        self.log.push(format!("{} exhausted", t(now)));
    }
    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut d = Decision::idle_with_servers(view.cores);
        let job = (view.jobs.iter()).min_by_key(|j| j.id.number).map(|j| j.id);
        let server = &view.servers[0];
        let wanted = job.is_some() || self.kind == ServerKind::Periodic;
        if !server.budget_left.is_zero() && wanted {
            d.servers[0] = Some(ServerId(0));
            d.cores[0] = job;
        }
        if let Some(misuse) = self.misuse {
            misuse(view, &mut d);
        }
        d
    }
}

fn config(end: u64) -> SimConfig {
    SimConfig {
        duration: units(end),
        record_trace: true,
        ..SimConfig::default()
    }
}

fn completions(events: &[TraceEvent]) -> Vec<u64> {
    (events.iter())
        .filter_map(|e| match *e {
            TraceEvent::Completion { at, .. } => Some(t(at)),
            _ => None,
        })
        .collect()
}

fn server_segments(events: &[TraceEvent]) -> Vec<(u64, u64)> {
    (events.iter())
        .filter_map(|e| match *e {
            TraceEvent::ServerSegment { start, end, .. } => Some((t(start), t(end))),
            _ => None,
        })
        .collect()
}

#[test]
fn a_deferrable_server_spends_its_budget_only_on_work() {
    // Task: 3 units every 10; server: 2 every 5.
    let w = workload(1, vec![task("a", 3, 10, 10, 0)]);
    let mut policy = OneServer::new(ServerKind::Deferrable, 2, 5);
    let out = simulate(&w, &mut policy, &config(20)).unwrap();
    let events = &out.trace.as_ref().unwrap().events;
    assert_eq!(
        server_segments(events),
        [(0, 2), (5, 6), (10, 12), (15, 16)]
    );
    assert_eq!(completions(events), [6, 16]);
    let s = &out.metrics.servers[0];
    assert_eq!((s.replenishments, s.exhaustions, s.back_to_back), (4, 2, 0));
    assert_eq!(
        (s.budget_used_ns, s.supply_ns),
        (units(6).as_nanos(), units(6).as_nanos())
    );
    assert_eq!(
        policy.log,
        [
            "0 replenish 2",
            "2 exhausted",
            "5 replenish 2",
            "10 replenish 2",
            "12 exhausted",
            "15 replenish 2"
        ]
    );
}

#[test]
fn a_servers_budget_drains_while_its_core_is_out() {
    // As above, with core 0 out [0, 1): the budget of [0, 2) buys one unit of work, so the
    // first job takes [1, 2) and [5, 7) and completes a unit later; the second is untouched.
    let w = workload(1, vec![task("a", 3, 10, 10, 0)]);
    let mut policy = OneServer::new(ServerKind::Deferrable, 2, 5);
    let config = SimConfig {
        outages: Outages::new([Outage {
            core: 0,
            from: at_units(0),
            to: at_units(1),
        }]),
        ..config(20)
    };
    let out = simulate(&w, &mut policy, &config).unwrap();
    let events = &out.trace.as_ref().unwrap().events;
    assert_eq!(completions(events), [7, 16]);
    assert_eq!(
        policy.log[..3],
        ["0 replenish 2", "2 exhausted", "5 replenish 2"]
    );
    // An outage of a core the workload does not have is refused.
    let beyond = SimConfig {
        outages: Outages::new([Outage {
            core: 1,
            from: at_units(0),
            to: at_units(1),
        }]),
        ..config
    };
    let refused = simulate(&w, &mut policy, &beyond).unwrap_err();
    assert_eq!(refused, SimError::OutageBeyondCores { core: 1, cores: 1 });
}

#[test]
fn a_periodic_server_burns_its_budget_idle() {
    // The job comes 1 unit into the server's first period: the first unit is burnt idle.
    let w = workload(1, vec![task("a", 3, 10, 10, 1)]);
    let mut policy = OneServer::new(ServerKind::Periodic, 2, 5);
    let out = simulate(&w, &mut policy, &config(20)).unwrap();
    let events = &out.trace.as_ref().unwrap().events;
    assert_eq!(
        server_segments(events),
        [(0, 2), (5, 7), (10, 12), (15, 17)]
    );
    assert_eq!(completions(events), [7, 17]);
    let s = &out.metrics.servers[0];
    assert_eq!((s.replenishments, s.exhaustions), (4, 4));
    assert_eq!(s.budget_used_ns, units(8).as_nanos());
    // The cores' busy time is the jobs' execution: 3 units each, not the 8 units burnt.
    let busy: u64 = out.metrics.core_usage[0].busy_ns;
    assert_eq!(busy, units(6).as_nanos());
}

#[test]
fn a_replenishment_inside_an_executing_window_is_back_to_back() {
    // The job starts at 3, exhausts the budget at 5 (the period's end) and goes on at once.
    let w = workload(1, vec![task("a", 4, 20, 20, 3)]);
    let mut policy = OneServer::new(ServerKind::Deferrable, 2, 5);
    let out = simulate(&w, &mut policy, &config(20)).unwrap();
    let events = &out.trace.as_ref().unwrap().events;
    assert_eq!(server_segments(events), [(3, 7)]);
    assert_eq!(completions(events), [7]);
    assert_eq!(out.metrics.servers[0].back_to_back, 1);
    assert!(policy.log.starts_with(&[
        "0 replenish 2".into(),
        "5 exhausted".into(),
        "5 replenish 2".into()
    ]));
}

fn refused(misuse: fn(&View<'_>, &mut Decision)) -> String {
    let w = workload(2, vec![task("a", 3, 10, 10, 0), task("b", 1, 10, 10, 0)]);
    let mut policy = OneServer::new(ServerKind::Deferrable, 2, 5);
    policy.misuse = Some(misuse);
    match simulate(&w, &mut policy, &config(20)) {
        Err(SimError::InvalidDispatch { reason, .. }) => reason,
        other => panic!("accepted: {other:?}"),
    }
}

#[test]
fn decisions_that_misuse_servers_are_refused() {
    let reason = refused(|_, d| d.servers = vec![Some(ServerId(0)), Some(ServerId(0))]);
    assert!(reason.contains("on two cores"), "{reason}");
    let reason = refused(|_, d| d.servers = vec![None, Some(ServerId(0))]);
    assert!(
        reason.contains("outside its cpus") || reason.contains("no server"),
        "{reason}"
    );
    let reason = refused(|_, d| d.cores = vec![Some(JobId { task: 1, number: 0 }), None]);
    assert!(reason.contains("may not run it"), "{reason}");
    let reason = refused(|_, d| d.cores = vec![None, Some(JobId { task: 0, number: 0 })]);
    assert!(reason.contains("has no server"), "{reason}");
    let reason = refused(|_, d| d.servers = vec![]);
    assert!(reason.contains("server entries"), "{reason}");
    // Placed after its exhaustion at 2.
    let reason = refused(|v, d| {
        if v.servers[0].budget_left.is_zero() {
            d.servers[0] = Some(ServerId(0));
        }
    });
    assert!(reason.contains("no budget left"), "{reason}");
}
