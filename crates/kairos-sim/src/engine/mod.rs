//! The discrete-event engine: exact integer time, `m` identical cores, any policy written
//! against the execution contract (`kairos-policy`), jobs from any [`JobSource`].
//!
//! The engine is virtual time around the contract core ([`kairos_policy::contract`], whose
//! module documentation states the order of the events of an instant and how a decision is
//! carried out; the engine follows it through [`Contract::report_instant`] and
//! [`Contract::decide`]). It jumps from one event instant to the next: the earliest of the
//! pending releases, the policy's timers, the servers' replenishments and exhaustions, the
//! completion of a running job's part, the instant a running job's budget runs out, the
//! deadline of an unfinished job and the end of the run. What is its own:
//! - the work each job has left, drawn from the job source and hidden from the policy, and the
//!   overheads charged at each switch (a scheduling decision and a context switch, plus a
//!   migration when a job resumes on another core; lost if the job is preempted before it paid
//!   them) and at a part's end by execution ([`side`]);
//! - what it finds out by itself at an instant: completions, part ends, the jobs to remove at
//!   their deadline under `--abort-on-miss`, releases ([`occurrences`]);
//! - after the decision, deadlines (every job still unfinished at its deadline misses it, once;
//!   it runs on unless the policy stops or discards it: misses come after the decision so an
//!   overrun detected at the same instant is seen first) and, at a frame boundary of a framed
//!   source, forgetting the previous frame's leftovers;
//! - metrics, the trace and the observer.
//!
//! A job that completes exactly at its deadline meets it. The window is the source's: `[0, D]`
//! for workloads (releases at `D` happen, as in SimSo), `[0, D)` for table runs; in both,
//! completions and deadlines at `D` count.
//!
//! A simulation may replay a host's outages of its cores ([`crate::outages`]): their starts
//! and ends are event instants too, a core that is out advances nothing, and a job moved off
//! it advances nowhere until the outage ends (also an event instant).
//!
//! Cost per event does not grow with the number of tasks or open jobs beyond a logarithm: the
//! releases come from a heap, deadlines from an ordered set of those still ahead (past a few
//! dozen open jobs: [`deadlines`]), completions and part ends are looked for among the running jobs (and the few left out of work off a core),
//! only the running jobs advance, and the contract looks jobs up by id. It is O(m) for `m`
//! cores, plus O(log n) per job released or finished, plus the policy's own cost (a static
//! order keeps ready queues: [`kairos_policy::policies::global`]). Memory is O(n + m) plus the
//! recorded trace, which is bounded ([`crate::TraceBounds`]).

mod deadlines;
mod occurrences;
mod side;
mod window;

use crate::charges::Charges;
use crate::job::JobWork;
use crate::metrics::Metrics;
use crate::observe::Observer;
use crate::queue::EventQueue;
use crate::{SimConfig, SimError, SimOutcome};
use kairos_model::{Instant, Workload};
use kairos_policy::contract::Contract;
use kairos_policy::{JobSource, Policy};
use kairos_trace::Trace;
use side::Side;
use window::HeldParts;

/// What the engine runs besides the workload: where jobs come from and who watches.
pub(crate) struct Hosts<'h> {
    pub source: &'h mut dyn JobSource,
    pub observer: Option<&'h mut dyn Observer>,
}

pub(crate) struct Engine<'w> {
    contract: Contract<JobWork>,
    side: Side<'w>,
}

impl<'w> Engine<'w> {
    /// An engine for `policy` (prepared) on `workload`.
    pub(crate) fn new(
        workload: &'w Workload,
        config: &'w SimConfig,
        hosts: Hosts<'w>,
        policy: &dyn Policy,
    ) -> Self {
        let end = Instant::ZERO + config.duration;
        let levels = hosts.source.levels();
        let contract = Contract::new(policy, workload.cores, levels.len(), end);
        let trace = config.record_trace.then(|| Trace {
            levels: levels.clone(),
            task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
            cores: workload.cores,
            end,
            optional_deadlines: kairos_trace::optional_deadlines_of(workload),
            server_names: (contract.servers.specs().iter())
                .map(|s| s.name.clone())
                .collect(),
            events: Vec::new(),
        });
        let mut metrics = Metrics::new(
            policy.name(),
            workload.tasks.iter().map(|t| t.name.clone()),
            workload.cores,
        );
        if contract.runs_parts() {
            metrics.count_optional_parts(workload.tasks.iter().map(|t| t.imprecise.is_some()));
        }
        let mut side = Side {
            workload,
            config,
            hosts,
            policy_name: policy.name(),
            end,
            queue: EventQueue::default(),
            next_job_number: vec![0; workload.tasks.len()],
            charges: Charges::new(config.seed),
            metrics,
            trace,
            overflow: None,
            found: Vec::new(),
            held_parts: HeldParts::default(),
            deadlines: Default::default(),
            out_of_work: Vec::new(),
            outages: crate::outages::Cursor::new(&config.outages),
        };
        for (task, t) in workload.tasks.iter().enumerate() {
            side.queue_release(Instant::ZERO + t.offset, task);
        }
        Engine { contract, side }
    }

    pub(crate) fn run(mut self, policy: &mut dyn Policy) -> Result<SimOutcome, SimError> {
        let mut now = Instant::ZERO;
        // The loop visits an instant again when a running job is left with no work in its
        // part; the deadlines of an instant are observed once, or a miss would count twice.
        let mut observed = None;
        loop {
            // Before the decision, which asks which outages hold a job it moves.
            self.side.outages.pass(now);
            let changed = (self.contract).report_instant(now, &mut self.side, policy);
            if changed {
                let workload = self.side.workload;
                (self
                    .contract
                    .decide(now, &workload.tasks, &mut self.side, policy))
                .map_err(|refused| self.side.invalid(now, refused.0))?;
            }
            if observed != Some(now) {
                self.side.observe_deadlines(&self.contract, now);
                observed = Some(now);
            }
            self.side
                .forget_previous_frame(&mut self.contract, now, policy);
            if let Some(at) = self.side.overflow {
                let max = self.side.config.trace_bounds.max_events;
                return Err(SimError::TraceTooLarge { max, at });
            }
            if now >= self.side.end {
                break;
            }
            let next = self.next_event_time(now);
            self.advance(now, next);
            now = next;
        }
        self.finish()
    }

    fn next_event_time(&mut self, now: Instant) -> Instant {
        let c = &mut self.contract;
        let mut next = self.side.end;
        let outages = &self.side.outages;
        let timer = (c.timers.next_time()).filter(|&at| !outages.holds_timer(now, at));
        let pending = [
            self.side.queue.next_time(),
            timer,
            c.servers.next_replenishment().map(|(at, _)| at),
            c.servers
                .next_exhaustion(c.jobs.running())
                .map(|(at, _)| at),
            self.side.next_deadline(c, now),
        ];
        for at in pending.into_iter().flatten() {
            next = next.min(at);
        }
        if let Some(change) = outages.next_change(now) {
            next = next.min(change);
        }
        for (core, &i) in c.jobs.running().iter().enumerate() {
            let Some(i) = i else { continue };
            let (view, work) = (c.jobs.view(i), c.jobs.side(i));
            // A held job's wait ends with an outage, already an event instant.
            if outages.out(core, now) || work.held_until > now {
                // A job left with no work is found out at this instant, out or not.
                if work.remaining.is_zero() {
                    next = now;
                }
                continue;
            }
            next = next.min(now + work.remaining);
            if !c.jobs.is_exhausted(i) && !view.budget_left().is_zero() {
                // Execution counts only once the switch's overhead is paid.
                next = next.min(now + work.overhead_left + view.budget_left());
            }
        }
        next
    }

    /// Runs the placed jobs from `now` to `next`.
    fn advance(&mut self, now: Instant, next: Instant) {
        let elapsed = next - now;
        let jobs = &mut self.contract.jobs;
        for core in 0..jobs.running().len() {
            let Some(i) = jobs.running()[core] else {
                continue;
            };
            let (view, work) = jobs.running_mut(i);
            if self.side.outages.out(core, now) || work.held_until > now {
                continue;
            }
            work.remaining -= elapsed;
            let overhead_paid = elapsed.min(work.overhead_left);
            work.overhead_left -= overhead_paid;
            view.executed += elapsed - overhead_paid;
            let usage = &mut self.side.metrics.core_usage[core];
            usage.busy_ns += elapsed.as_nanos();
            usage.overhead_ns += overhead_paid.as_nanos();
        }
    }

    fn finish(mut self) -> Result<SimOutcome, SimError> {
        let end = self.side.end;
        for i in 0..self.contract.jobs.len() {
            let (view, work) = self.contract.jobs.parts_mut(i);
            if let Some(core) = view.running_on {
                let id = view.id;
                self.side.record_segment(id, core, work, end);
            }
        }
        let running = self.contract.jobs.running().to_vec();
        let side = &mut self.side;
        side.metrics.servers = (self.contract.servers).close(&running, &mut |e| side.trace(|| e));
        self.side.metrics.finish(end.since_origin());
        if let Some(at) = self.side.overflow {
            let max = self.side.config.trace_bounds.max_events;
            return Err(SimError::TraceTooLarge { max, at });
        }
        Ok(SimOutcome {
            metrics: self.side.metrics,
            trace: self.side.trace,
            unfinished_jobs: self.contract.jobs.len(),
        })
    }
}
