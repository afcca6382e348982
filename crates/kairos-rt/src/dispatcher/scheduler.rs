//! The scheduler state of a user-dispatched run, behind one lock: the policy object, the
//! contract's state ([`kairos_policy::contract::Contract`]: the open jobs, the mode, the
//! timers, the servers, the promise) and the run's own ([`super::side::RunSide`]: releases
//! due, each job's slot and record, every decision made).
//!
//! A pass ([`Scheduler::pass`]) is the runtime's side of the execution contract: it walks the
//! event instants due by the pass's time in order, as the simulator's engine does, and at each
//! lets the contract core report that instant's events in the contract's order (completions
//! at their real completion time, releases and timers at their nominal instants: see
//! [`kairos_policy::contract`]), decide and carry the decision out; then publishes the last
//! decision's placement and promise ([`kairos_policy::Ahead`]) to the cores
//! ([`super::shared::CoreShared`]) and forgets the jobs of an ended frame.

use super::metered::{Metered, Timings};
use super::shared::Shared;
use super::side::{Pass, RunJob, RunSide};
use crate::measure::JobRecord;
use kairos_model::{Instant, Task, Workload};
use kairos_os::clock;
use kairos_policy::contract::Contract;
use kairos_policy::{JobId, JobSource, Policy, Step};
use kairos_trace::{OptionalMetrics, ServerMetrics, TraceEvent};
use std::sync::atomic::Ordering;

/// The core whose dispatcher handles the policy's timers (an optional deadline, a zero-laxity
/// instant): one core, so that a timer is handled once.
pub const TIMER_CORE: usize = 0;

/// Histogram of the callbacks and the decisions of a pass (lock held), ns.
pub const DECISION_COST: &str = "dispatch.decision";
/// Histogram of the wait for the scheduler's lock, ns.
pub const LOCK_WAIT: &str = "dispatch.lock_wait";

/// A change of the criticality mode made by a decision (times in ns since the origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeChangeRecord {
    /// The instant of the decision (the end of the overrunning job's interval for a table).
    pub nominal: u64,
    pub from: usize,
    pub to: usize,
    /// The jobs whose overrun caused it (none for a return to a lower level).
    pub triggers: Vec<JobId>,
    /// The pass that made it began (the overrun detected).
    pub detected_at: u64,
    /// Every decision of that pass made and published to the cores.
    pub decided_at: u64,
    /// The value of `Shared::mode_epoch` that pass published.
    pub epoch: u64,
}

pub struct Scheduler {
    tasks: Vec<Task>,
    policy: Box<dyn Policy + Send>,
    contract: Contract<RunJob>,
    side: RunSide,
}

/// What a run's scheduler knew at its end.
pub struct Finished {
    /// Every job released (starts come from the workers' logs).
    pub records: Vec<JobRecord>,
    pub steps: Vec<Step>,
    /// What the run has to say about its record of steps (see [`super::record`]).
    pub notes: Vec<String>,
    /// The contract's trace events: part ends, mode changes, discards, servers' events.
    pub events: Vec<TraceEvent>,
    pub mode_changes: Vec<ModeChangeRecord>,
    pub stops: u64,
    pub optional: Vec<Option<OptionalMetrics>>,
    pub servers: Vec<ServerMetrics>,
    pub server_names: Vec<String>,
}

impl Scheduler {
    /// A prepared policy for `workload`, releasing jobs in `[0, end)` drawn from `source`.
    pub fn new(
        workload: &Workload,
        policy: Box<dyn Policy + Send>,
        end: u64,
        source: Box<dyn JobSource + Send>,
        work_scale: f64,
        record_steps: bool,
    ) -> Self {
        let levels = source.levels().len();
        let end_at = Instant::from_nanos(end);
        let mut contract = Contract::new(&*policy, workload.cores, levels, end_at);
        // The most jobs the run tracks at once (a task with more is stopped as overloaded), and
        // a timer per task (the most the standard policies arm) and one more.
        let tasks = workload.tasks.len();
        (contract.jobs).reserve(tasks * super::shared::SLOTS_PER_TASK);
        contract.timers.reserve(tasks + 1);
        let parts = contract.runs_parts();
        let side = RunSide::new(workload, end, source, work_scale, parts, record_steps);
        Scheduler {
            tasks: workload.tasks.clone(),
            policy,
            contract,
            side,
        }
    }

    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }

    /// The jobs of `task` the run releases at most.
    pub fn expected_jobs(&self, task: usize) -> usize {
        super::side::jobs_of(&self.tasks[task], self.side.end)
    }

    pub fn cores(&self) -> usize {
        self.contract.cores()
    }

    /// Why the run cannot go on (an impossible decision, an overloaded slot ring).
    pub fn failure(&self) -> Option<&String> {
        self.side.failure.as_ref()
    }

    /// One pass at `now` (ns since the origin) by the dispatcher of `core`: a decision at every
    /// event instant due by then, and at the first pass. Its timings go to the dispatcher's
    /// `timings`, to be recorded once the lock is let go.
    pub fn pass(&mut self, shared: &Shared, core: usize, now: u64, timings: &mut Timings) {
        if self.side.failure.is_some() {
            return;
        }
        let began = clock::now_ns();
        // When this pass began, as the mode changes it makes record their detection.
        let detected_at = began.saturating_sub(shared.origin.load(Ordering::Relaxed));
        let now = now.max(self.side.last_at);
        let mut policy = Metered {
            policy: self.policy.as_mut(),
            timings,
        };
        let mut pass = Pass {
            side: &mut self.side,
            shared,
            tasks: &self.tasks,
            core,
        };
        let c = &mut self.contract;
        pass.refresh_progress(c);
        let mut decided = false;
        while let Some(at) = pass.next_instant(c, now, decided) {
            pass.instant(c, at, detected_at, &mut policy);
            if pass.side.failure.is_some() {
                return;
            }
            decided = true;
            pass.side.last_at = at;
        }
        if decided {
            (policy.timings).defer(DECISION_COST, clock::now_ns().saturating_sub(began));
        }
    }

    /// When each core's dispatcher must next run a pass, written to `wake` (one per core): its
    /// home tasks' next releases, the policy's timers ([`TIMER_CORE`]), its servers' exhaustions and
    /// replenishments, and the end of the run.
    pub fn wake_times(&self, wake: &mut [u64]) {
        let side = &self.side;
        let c = &self.contract;
        wake.fill(side.end);
        for (task, &at) in side.next_release.iter().enumerate() {
            let core = side.home[task];
            wake[core] = wake[core].min(at);
        }
        if let Some(first) = c.timers.earliest() {
            wake[TIMER_CORE] = wake[TIMER_CORE].min(first.as_nanos());
        }
        let servers = &c.servers;
        let exhaustion = servers.next_exhaustion(c.jobs.running());
        let replenishment = (servers.next_replenishment()).map(|(at, s)| (at, servers.home(s)));
        for (at, core) in [exhaustion, replenishment].into_iter().flatten() {
            wake[core] = wake[core].min(at.as_nanos());
        }
    }

    /// Ends the run: the servers' placements end at its end.
    pub fn finish(mut self) -> Finished {
        let running = self.contract.jobs.running().to_vec();
        let events = &mut self.side.events;
        let servers = (self.contract.servers).close(&running, &mut |e| events.push(e));
        let server_names = (self.contract.servers.specs().iter())
            .map(|s| s.name.clone())
            .collect();
        let side = self.side;
        let (steps, notes) = side.steps.finish();
        Finished {
            records: side.records,
            steps,
            notes,
            events: side.events,
            mode_changes: side.mode_changes,
            stops: side.stops,
            optional: side.optional,
            servers,
            server_names,
        }
    }
}
