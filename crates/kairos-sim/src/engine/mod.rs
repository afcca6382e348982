//! The discrete-event engine: exact integer time, `m` identical cores, any policy written
//! against the execution contract (`kairos-policy`), jobs from any [`JobSource`].
//!
//! The engine jumps from one event instant to the next: the earliest of the pending releases and
//! policy timers (one (time, sequence) queue, [`crate::queue`]), the completion of a running
//! job, the instant a running job's budget runs out, the deadline of an unfinished job and the
//! end of the run. At an instant it applies, in
//! this order:
//! 1. completions, each reported to the policy; then, for a policy that runs imprecise tasks
//!    by parts, the ends of parts (the job moves on to its next part, [`parts`]); then the jobs
//!    whose budget just ran out with work left (an overrun), each reported once per budget;
//! 2. with `--abort-on-miss`, the removal of every job whose deadline has come (a miss), so
//!    that its core goes to another job at this instant;
//!    then the placed servers whose budget just ran out ([`servers`]), each reported once per
//!    period;
//! 3. server replenishments (by server index), releases (by task index), then timers (by
//!    arming order), each reported;
//! 4. if anything happened, the decision: its actions are carried out in order, and after a
//!    decision that changed the criticality mode the engine reports the change and asks again,
//!    placing only the last decision's jobs (and none at the end instant: nothing runs after
//!    the window). A decision at the instant of the previous decision's promise
//!    ([`kairos_policy::Ahead`]) must keep it when only releases and timers happened and the
//!    mode did not change;
//! 5. deadlines: every job still unfinished at its deadline now misses it (once; it runs on
//!    unless the policy stops or discards it). Misses come after the decision so an overrun
//!    detected at the same instant is seen first;
//! 6. at a frame boundary of a framed source, the previous frame's leftovers are forgotten.
//!
//! A job that completes exactly at its deadline meets it. The window is the source's: `[0, D]`
//! for workloads (releases at `D` happen, as in SimSo), `[0, D)` for table runs; in both,
//! completions and deadlines at `D` count.
//!
//! Cost per event is O(n) in released jobs plus the policy's own cost; memory is O(n + m) unless
//! a trace is recorded.

mod decide;
mod jobs;
mod parts;
mod servers;

use crate::charges::Charges;
use crate::job::JobWork;
use crate::metrics::Metrics;
use crate::observe::Observer;
use crate::queue::EventQueue;
use crate::{SimConfig, SimError, SimOutcome};
use kairos_model::{Instant, Workload};
use kairos_policy::{Ahead, JobSource, JobView, Policy};
use kairos_trace::{Trace, TraceEvent};
use servers::Servers;

/// What the engine runs besides the workload: where jobs come from and who watches.
pub(crate) struct Hosts<'h> {
    pub source: &'h mut dyn JobSource,
    pub observer: Option<&'h mut dyn Observer>,
}

pub(crate) struct Engine<'w> {
    workload: &'w Workload,
    config: &'w SimConfig,
    hosts: Hosts<'w>,
    policy_name: &'static str,
    /// Whether the policy runs imprecise tasks by parts ([`Policy::runs_parts`]).
    runs_parts: bool,
    now: Instant,
    end: Instant,
    /// The criticality mode and how many levels there are (at least one).
    mode: usize,
    levels: usize,
    /// What the policy sees of each released, unfinished job; `work[i]` is the same job's hidden
    /// side. Both shrink by `swap_remove`, together.
    views: Vec<JobView>,
    work: Vec<JobWork>,
    /// Per core, the index (into `views`) of the job running there.
    running: Vec<Option<usize>>,
    /// The last decision's promise ([`kairos_policy::Ahead`]), until it is checked or void.
    promised: Option<Ahead>,
    queue: EventQueue,
    /// The policy's servers ([`servers`]); empty for most policies.
    servers: Servers,
    next_job_number: Vec<u64>,
    charges: Charges,
    metrics: Metrics,
    trace: Option<Trace>,
}

impl<'w> Engine<'w> {
    pub(crate) fn new(
        workload: &'w Workload,
        config: &'w SimConfig,
        hosts: Hosts<'w>,
        policy_name: &'static str,
    ) -> Self {
        let end = Instant::ZERO + config.duration;
        let levels = hosts.source.levels();
        let trace = config.record_trace.then(|| Trace {
            levels: levels.clone(),
            task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
            cores: workload.cores,
            end,
            optional_deadlines: kairos_trace::optional_deadlines_of(workload),
            server_names: Vec::new(),
            events: Vec::new(),
        });
        let mut engine = Engine {
            workload,
            config,
            hosts,
            policy_name,
            runs_parts: false,
            now: Instant::ZERO,
            end,
            mode: 0,
            levels: levels.len().max(1),
            views: Vec::new(),
            work: Vec::new(),
            running: vec![None; workload.cores],
            promised: None,
            queue: EventQueue::default(),
            servers: Servers::default(),
            next_job_number: vec![0; workload.tasks.len()],
            charges: Charges::new(config.seed),
            metrics: Metrics::new(
                policy_name,
                workload.tasks.iter().map(|t| t.name.clone()),
                workload.cores,
            ),
            trace,
        };
        for (task, t) in workload.tasks.iter().enumerate() {
            engine.queue_release(Instant::ZERO + t.offset, task);
        }
        engine
    }

    pub(crate) fn run(mut self, policy: &mut dyn Policy) -> Result<SimOutcome, SimError> {
        self.runs_parts = policy.runs_parts();
        if self.runs_parts {
            let imprecise = self.workload.tasks.iter().map(|t| t.imprecise.is_some());
            self.metrics.count_optional_parts(imprecise);
        }
        self.declare_servers(policy.servers());
        if let Some(trace) = &mut self.trace {
            trace.server_names = self.servers.specs.iter().map(|s| s.name.clone()).collect();
        }
        loop {
            let mut changed = self.complete_finished_jobs(policy);
            changed |= self.end_finished_parts(policy);
            changed |= self.report_overruns(policy);
            changed |= self.report_server_exhaustion(policy);
            if self.config.abort_on_miss {
                changed |= self.abort_late_jobs(policy);
            }
            if changed {
                // Something the promise did not assume happened.
                self.promised = None;
            }
            changed |= self.apply_due_events(policy);
            if changed {
                self.decide(policy)?;
            }
            self.observe_deadlines();
            self.forget_previous_frame(policy);
            if self.now >= self.end {
                break;
            }
            let next = self.next_event_time();
            self.advance_to(next);
        }
        Ok(self.finish())
    }

    /// Queues a release at `at` if the run's window contains it.
    fn queue_release(&mut self, at: Instant, task: usize) {
        let inside = if self.hosts.source.releases_at_end() {
            at <= self.end
        } else {
            at < self.end
        };
        if inside {
            self.queue.release(at, task);
        }
    }

    /// Hands an event to the trace and the observer, building it only if one of them wants it.
    fn record(&mut self, event: impl FnOnce() -> TraceEvent) {
        if self.trace.is_none() && self.hosts.observer.is_none() {
            return;
        }
        let event = event();
        if let Some(observer) = &mut self.hosts.observer {
            observer.event(&event);
        }
        if let Some(trace) = &mut self.trace {
            trace.events.push(event);
        }
    }

    fn observer(&mut self) -> Option<&mut (dyn Observer + 'w)> {
        self.hosts.observer.as_deref_mut()
    }

    fn next_event_time(&mut self) -> Instant {
        let mut next = self.end;
        if let Some(at) = self.queue.next_time() {
            next = next.min(at);
        }
        for (view, work) in self.views.iter().zip(&self.work) {
            if view.running_on.is_some() {
                next = next.min(self.now + work.remaining);
                if !work.exhausted && !view.budget_left().is_zero() {
                    // Execution counts only once the switch's overhead is paid.
                    next = next.min(self.now + work.overhead_left + view.budget_left());
                }
            }
            if view.absolute_deadline > self.now {
                next = next.min(view.absolute_deadline);
            }
        }
        if let Some(at) = self.next_server_exhaustion() {
            next = next.min(at);
        }
        next
    }

    fn advance_to(&mut self, next: Instant) {
        let elapsed = next - self.now;
        self.charge_servers(elapsed);
        for (view, work) in self.views.iter_mut().zip(&mut self.work) {
            let Some(core) = view.running_on else {
                continue;
            };
            work.remaining -= elapsed;
            let overhead_paid = elapsed.min(work.overhead_left);
            work.overhead_left -= overhead_paid;
            view.executed += elapsed - overhead_paid;
            let usage = &mut self.metrics.core_usage[core];
            usage.busy_ns += elapsed.as_nanos();
            usage.overhead_ns += overhead_paid.as_nanos();
        }
        self.now = next;
    }

    fn finish(mut self) -> SimOutcome {
        for i in 0..self.views.len() {
            self.close_segment(i);
        }
        self.close_server_segments();
        self.metrics.servers = std::mem::take(&mut self.servers.metrics);
        self.metrics.finish(self.end.since_origin());
        SimOutcome {
            metrics: self.metrics,
            trace: self.trace,
            unfinished_jobs: self.views.len(),
        }
    }
}
