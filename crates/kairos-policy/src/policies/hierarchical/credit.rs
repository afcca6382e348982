//! Xen's credit scheduler, the baseline of Xi et al. (EMSOFT 2014, section V), with the
//! domains' guest schedulers inside. Facts from Xen's `sched_credit.c` as the kairos notes
//! record them; the model is kairos' own:
//!
//! 1. Credit is CPU time, kept per VCPU in nanoseconds (Xen's 10 credits per ms: 300 credits
//!    are 30 ms). A VCPU burns credit for the time it runs a job, floored at -30 ms.
//! 2. Every 10 ms tick ends wake-up boosts; every third tick (30 ms) is an accounting: 30 ms
//!    per core are shared among the active domains (those whose VCPUs had work or burnt
//!    credit since the last accounting) in proportion to their weights, a capped domain
//!    getting at most its cap (percent of one core) of 30 ms, each domain's share split evenly
//!    over its active VCPUs. A VCPU whose credit passes +30 ms has it halved.
//! 3. Priorities: BOOST (a VCPU with credit that just woke up, until the next tick) > UNDER
//!    (credit >= 0) > OVER (credit < 0). A VCPU of a capped domain is parked while its credit
//!    is below -(cap x 30 ms / 100) and does not run (checked at every decision, so at least
//!    every tick, as Xen's tick accounting does).
//! 4. A running VCPU keeps its core for a 30 ms slice unless a VCPU of a higher priority
//!    needs it; within a priority, VCPUs wait in FIFO order and one whose slice ended or that
//!    was preempted goes to the back.
//! 5. Xen keeps a run queue per core and a core with no UNDER VCPU steals one from another;
//!    kairos keeps one queue for all cores, which gives the same placement: no core idles or
//!    runs an OVER VCPU while an UNDER one that may run there waits.
//!
//! The engine sees each VCPU as a deferrable server whose budget is its whole period (30 ms):
//! it never runs out; the credit is the policy's.

use super::build::Building;
use super::guest::QueueMap;
use super::plan::VmPlan;
use crate::decision::{Action, Decision, TimerId};
use crate::policy::{Policy, Refusal};
use crate::server::{ServerKind, ServerSpec};
use crate::view::View;
use kairos_model::{Duration, Instant, VmmScheduler, Workload};

const TICK: Duration = Duration::from_millis(10);
const SLICE: Duration = Duration::from_millis(30);
const TICKS_PER_ACCOUNTING: u64 = 3;
const TICK_TIMER: TimerId = TimerId(0);
const SLICE_TIMER: TimerId = TimerId(1);

/// A VCPU's credit class, most important first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Boost,
    Under,
    Over,
}

/// Xen's credit scheduler over a VM plan's VCPUs.
pub struct Credit {
    plan: VmPlan,
    queues: QueueMap,
    /// Per VCPU: credit in ns of CPU time.
    credit: Vec<i64>,
    boosted: Vec<bool>,
    parked: Vec<bool>,
    /// FIFO position within a class (smaller waits less).
    fifo: Vec<u64>,
    next_fifo: u64,
    /// End of the slice of a placed VCPU.
    slice_end: Vec<Option<Instant>>,
    /// At the previous decision: which VCPUs ran a job, which had work.
    working: Vec<bool>,
    had_work: Vec<bool>,
    /// Burnt credit or had work since the last accounting.
    active: Vec<bool>,
    last: Instant,
    ticks_seen: u64,
    armed: [Option<Instant>; 2],
}

impl Credit {
    /// The credit scheduler of `plan` (whose `[vmm]` scheduler must be `credit`).
    pub fn new(mut plan: VmPlan) -> Result<Credit, Refusal> {
        if plan.vmm.scheduler != VmmScheduler::Credit {
            return Err(Refusal("not a credit-scheduled system".to_string()));
        }
        for s in &mut plan.servers {
            s.budget = SLICE;
            s.period = SLICE;
            s.kind = ServerKind::Deferrable;
        }
        let n = plan.servers.len();
        Ok(Credit {
            queues: QueueMap::new(&plan),
            plan,
            credit: vec![0; n],
            boosted: vec![false; n],
            parked: vec![false; n],
            fifo: (0..n as u64).collect(),
            next_fifo: n as u64,
            slice_end: vec![None; n],
            working: vec![false; n],
            had_work: vec![false; n],
            active: vec![true; n],
            last: Instant::ZERO,
            ticks_seen: 0,
            armed: [None; 2],
        })
    }

    /// Credit burnt since the previous decision (placements are constant in between).
    fn burn(&mut self, now: Instant) {
        let ran = (now - self.last).as_nanos() as i64;
        let floor = -(SLICE.as_nanos() as i64);
        for s in 0..self.credit.len() {
            if self.working[s] {
                self.credit[s] = (self.credit[s] - ran).max(floor);
                self.active[s] = true;
            }
        }
    }

    /// Parks each VCPU of a capped domain whose credit is below -(cap x 30 ms / 100), unparks
    /// the others; checked at every decision, so at least every tick.
    fn park(&mut self) {
        for domain in &self.plan.domains {
            let limit = SLICE.as_nanos() as i64 * i64::from(domain.cap) / 100;
            for s in domain.servers.clone() {
                self.parked[s] = domain.cap > 0 && self.credit[s] < -limit;
            }
        }
    }

    /// Ticks passed since the previous decision: boosts end; every third one accounts.
    fn ticks(&mut self, now: Instant) {
        let ticks = now.as_nanos() / TICK.as_nanos();
        while self.ticks_seen < ticks {
            self.ticks_seen += 1;
            self.boosted.iter_mut().for_each(|b| *b = false);
            if self.ticks_seen.is_multiple_of(TICKS_PER_ACCOUNTING) {
                self.account();
            }
        }
    }

    /// Shares 30 ms per core among the active domains by weight (capped), then per VCPU.
    fn account(&mut self) {
        let total = (SLICE.as_nanos() * self.plan.workload.cores as u64) as f64;
        let domains = &self.plan.domains;
        let active: Vec<Vec<usize>> = (domains.iter())
            .map(|d| d.servers.clone().filter(|&s| self.active[s]).collect())
            .collect();
        let weight_total: f64 = (domains.iter().zip(&active))
            .filter(|(_, a)| !a.is_empty())
            .map(|(d, _)| f64::from(d.weight))
            .sum();
        for (d, servers) in domains.iter().zip(&active) {
            if servers.is_empty() || weight_total == 0.0 {
                continue;
            }
            let mut share = total * f64::from(d.weight) / weight_total;
            let cap = d.cap;
            if cap > 0 {
                share = share.min(SLICE.as_nanos() as f64 * f64::from(cap) / 100.0);
            }
            let each = (share / servers.len() as f64) as i64;
            for &s in servers {
                self.credit[s] += each;
                if self.credit[s] > SLICE.as_nanos() as i64 {
                    self.credit[s] /= 2;
                }
            }
        }
        for s in 0..self.credit.len() {
            self.active[s] = self.had_work[s];
        }
    }

    fn class(&self, s: usize) -> Class {
        match (self.boosted[s], self.credit[s] >= 0) {
            (true, _) => Class::Boost,
            (false, true) => Class::Under,
            (false, false) => Class::Over,
        }
    }

    /// Wake-ups boost; a VCPU whose slice ended goes to the back of its class.
    fn update_queue(&mut self, view: &View<'_>, has_work: &[bool]) {
        for (s, &work) in has_work.iter().enumerate() {
            if work && !self.had_work[s] && self.credit[s] >= 0 {
                self.boosted[s] = true;
            }
            self.had_work[s] = work;
            self.active[s] |= work;
            let ended = self.slice_end[s].is_some_and(|end| end <= view.now);
            if ended {
                self.slice_end[s] = None;
                self.requeue(s);
            }
        }
    }

    fn requeue(&mut self, s: usize) {
        self.fifo[s] = self.next_fifo;
        self.next_fifo += 1;
    }

    /// After the placement: slices start, preempted VCPUs go to the back.
    fn after(&mut self, view: &View<'_>, decision: &Decision) {
        for s in 0..self.credit.len() {
            let core = decision
                .servers
                .iter()
                .position(|p| p.is_some_and(|p| p.0 == s));
            let was_on = view.servers[s].running_on.is_some();
            match core {
                Some(c) => {
                    self.working[s] = decision.cores[c].is_some();
                    if !was_on || self.slice_end[s].is_none() {
                        self.slice_end[s] = Some(view.now + SLICE);
                    }
                }
                None => {
                    self.working[s] = false;
                    if was_on && self.had_work[s] {
                        self.requeue(s);
                    }
                    self.slice_end[s] = None;
                }
            }
        }
        self.last = view.now;
    }

    fn timer_actions(&mut self, now: Instant) -> Vec<Action> {
        let tick = Instant::from_nanos((now.as_nanos() / TICK.as_nanos() + 1) * TICK.as_nanos());
        let slice = self.slice_end.iter().flatten().copied().min();
        let mut actions = Vec::new();
        for (i, (timer, at)) in [(TICK_TIMER, Some(tick)), (SLICE_TIMER, slice)]
            .into_iter()
            .enumerate()
        {
            if self.armed[i] == at {
                continue;
            }
            self.armed[i] = at;
            actions.push(match at {
                Some(at) => Action::ArmTimer { timer, at },
                None => Action::CancelTimer(timer),
            });
        }
        actions
    }
}

impl Policy for Credit {
    fn name(&self) -> &'static str {
        "credit"
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.queues.prepare(workload);
        Ok(())
    }

    fn servers(&self) -> Vec<ServerSpec> {
        self.plan.servers.clone()
    }

    fn timer_fired(&mut self, _now: Instant, timer: TimerId) {
        let i = usize::from(timer == SLICE_TIMER);
        self.armed[i] = None;
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.burn(view.now);
        self.ticks(view.now);
        self.park();
        let work = self.queues.servers_with_work(view);
        self.update_queue(view, &work);
        let mut b = Building::new(view, &self.plan, &self.queues);
        let mut order: Vec<usize> = (0..self.credit.len())
            .filter(|&s| !self.parked[s])
            .collect();
        // Within a class the VCPU running its slice first (no preemption by its equals).
        let keeps = |s: usize| view.servers[s].running_on.is_some() && self.slice_end[s].is_some();
        order.sort_by_key(|&s| (self.class(s), !keeps(s), self.fifo[s]));
        order.iter().for_each(|&s| b.try_place(s));
        let mut decision = b.finish(&self.plan, Vec::new());
        self.after(view, &decision);
        decision.actions = self.timer_actions(view.now);
        decision
    }
}
