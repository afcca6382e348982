//! The scheduler state of a user-dispatched run, behind one lock: the policy object, the job
//! views it decides from, the pending releases and policy timers, the criticality mode, the
//! last decision and its promise, and the record of every job and every decision.
//!
//! A pass ([`Scheduler::pass`]) is the runtime's side of the execution contract
//! (`kairos_policy`, "The policy trait"). It walks the event instants due by the pass's time in
//! order, as the simulator's engine does: at each, it reports that instant's completions (by
//! their real completion time), budget overruns, releases and timers (at their nominal
//! instants), asks for a decision as of that instant, checks it with the same
//! [`kairos_policy::Decision::check`] the simulator uses, carries out its actions (asking again
//! after a mode change), and forgets the jobs of an ended frame. The last decision's placement
//! and promise ([`kairos_policy::Ahead`]) are then published to the cores
//! ([`super::shared::CoreShared`]).

use super::parts::{JobDraw, JobParts};
use super::servers::RunServers;
use super::shared::Shared;
use crate::measure::{JobRecord, Measurements};
use crate::platform::clock;
use kairos_model::{Instant, Task, Workload};
use kairos_policy::{JobId, JobSource, JobView, Policy, Reported, Step, TimerId};
use kairos_trace::{OptionalMetrics, TraceEvent};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

/// Histogram of the callbacks and the decisions of a pass (lock held), ns.
pub const DECISION_COST: &str = "dispatch.decision";
/// Histogram of the wait for the scheduler's lock, ns.
pub const LOCK_WAIT: &str = "dispatch.lock_wait";
/// Histograms of single calls of the policy, ns (each includes one clock read, about the
/// histogram's minimum): [`Policy::decide`] (the scheduler proper), and the callbacks of
/// releases, completions and policy timers (G-RMWP's and P-RMWP's `terminate_optional`).
pub const DECIDE: &str = "policy.decide";
pub const JOB_RELEASED: &str = "policy.job_released";
pub const JOB_COMPLETED: &str = "policy.job_completed";
pub const TIMER_FIRED: &str = "policy.timer_fired";

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
    /// The value of [`Shared::mode_epoch`] that pass published.
    pub epoch: u64,
}

pub struct Scheduler {
    pub(super) policy: Box<dyn Policy + Send>,
    pub(super) tasks: Vec<Task>,
    pub(super) cores: usize,
    pub(super) end: u64,
    pub(super) views: Vec<JobView>,
    /// Next release of each task (`u64::MAX`: none before the end).
    pub(super) next_release: Vec<u64>,
    pub(super) next_number: Vec<u64>,
    /// Which core's dispatcher wakes for a task's next release: the core its last job was
    /// placed on, so a partitioned task's release is handled where it runs.
    pub(super) home: Vec<usize>,
    /// Armed policy timers in arming order.
    pub(super) timers: Vec<(TimerId, u64)>,
    pub(super) placed: Vec<Option<JobId>>,
    pub(super) mode: usize,
    pub(super) levels: usize,
    /// Jobs the policy stopped (they stay unfinished until their frame ends).
    pub(super) stopped: HashSet<JobId>,
    /// Jobs whose overrun of their current budget was reported.
    pub(super) exhausted: HashSet<JobId>,
    /// Jobs released at a promised instant whose work was drawn and slot loaded before their
    /// release, with that work.
    pub(super) preloaded: HashMap<JobId, JobDraw>,
    /// Whether the policy runs imprecise tasks by parts ([`Policy::runs_parts`]).
    pub(super) runs_parts: bool,
    /// The open jobs run by parts.
    pub(super) parts: HashMap<JobId, JobParts>,
    /// Jobs whose part end a pass took in, until its decision is published.
    pub(super) part_ends_taken: Vec<JobId>,
    /// Every part end and cut, as the trace records them.
    pub(super) part_events: Vec<TraceEvent>,
    /// Optional-part figures per task (imprecise tasks run by parts).
    pub optional: Vec<Option<OptionalMetrics>>,
    /// End of the frame the jobs in the view were released in (framed sources).
    pub(super) frame_end: Option<u64>,
    pub(super) records: Vec<JobRecord>,
    pub(super) record_of: HashMap<JobId, usize>,
    /// CPU work of each recorded job (same index as `records`), ns.
    pub(super) work: Vec<u64>,
    pub(super) source: Box<dyn JobSource + Send>,
    /// Fraction of its drawn work a job's body executes (a table run's margin, 1 otherwise).
    pub(super) work_scale: f64,
    /// Instant of the last decision: passes never go back in time.
    pub(super) last_at: u64,
    pub steps: Vec<Step>,
    /// Jobs a frame end removed after the last question, to record with the next one's events.
    pub(super) removed: Vec<Reported>,
    pub mode_changes: Vec<ModeChangeRecord>,
    pub stops: u64,
    pub measurements: Measurements,
    /// Why the run cannot go on (an impossible decision, an overloaded slot ring).
    pub failure: Option<String>,
    /// The policy's servers ([`super::servers`]); empty for most policies.
    pub(super) servers: RunServers,
}

impl Scheduler {
    /// A prepared policy for `workload`, releasing jobs in `[0, end)` drawn from `source`.
    pub fn new(
        workload: &Workload,
        policy: Box<dyn Policy + Send>,
        end: u64,
        source: Box<dyn JobSource + Send>,
        work_scale: f64,
    ) -> Self {
        let tasks = workload.tasks.clone();
        let cores = workload.cores;
        let next_release = (tasks.iter())
            .map(|t| {
                Some(t.offset.as_nanos())
                    .filter(|&r| r < end)
                    .unwrap_or(u64::MAX)
            })
            .collect();
        let expected: u64 = (tasks.iter())
            .map(|t| end / t.period.as_nanos().max(1) + 1)
            .sum();
        let frame_end = source.frame().map(|f| f.as_nanos());
        let runs_parts = policy.runs_parts();
        let servers = RunServers::new(policy.servers(), cores);
        let optional = (tasks.iter())
            .map(|t| (runs_parts && t.imprecise.is_some()).then(OptionalMetrics::default))
            .collect();
        Scheduler {
            runs_parts,
            parts: HashMap::new(),
            part_ends_taken: Vec::new(),
            part_events: Vec::new(),
            optional,
            policy,
            home: (0..tasks.len()).map(|t| t % cores.max(1)).collect(),
            next_number: vec![0; tasks.len()],
            next_release,
            tasks,
            cores,
            end,
            views: Vec::new(),
            timers: Vec::new(),
            placed: vec![None; cores],
            mode: 0,
            levels: source.levels().len().max(1),
            stopped: HashSet::new(),
            exhausted: HashSet::new(),
            preloaded: HashMap::new(),
            frame_end,
            records: Vec::with_capacity(expected as usize),
            record_of: HashMap::with_capacity(expected as usize),
            work: Vec::with_capacity(expected as usize),
            source,
            work_scale,
            last_at: 0,
            steps: Vec::with_capacity(2 * expected as usize),
            removed: Vec::new(),
            mode_changes: Vec::new(),
            stops: 0,
            measurements: Measurements::default(),
            failure: None,
            servers,
        }
    }

    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }

    pub fn cores(&self) -> usize {
        self.cores
    }

    /// Every job released so far, with what the scheduler knows (release, deadline,
    /// completion or discard); starts come from the workers' logs.
    pub fn into_records(self) -> (Vec<JobRecord>, Vec<Step>, Measurements, Vec<TraceEvent>) {
        (
            self.records,
            self.steps,
            self.measurements,
            self.part_events,
        )
    }

    /// One pass at `now` (ns since the origin) by a dispatcher: a decision at every event
    /// instant due by then, and at the first pass.
    pub fn pass(&mut self, shared: &Shared, now: u64) {
        if self.failure.is_some() {
            return;
        }
        let began = clock::now_ns();
        // When this pass began, as the mode changes it makes record their detection.
        let detected_at = began.saturating_sub(shared.origin.load(Ordering::Relaxed));
        let now = now.max(self.last_at);
        let mut decided = false;
        self.refresh_progress(shared);
        while let Some(at) = self.next_instant(shared, now, decided) {
            if self.failure.is_some() {
                return;
            }
            let mut events = std::mem::take(&mut self.removed);
            self.charge_servers(at);
            self.complete(shared, at, &mut events);
            self.end_finished_parts(shared, at, &mut events);
            self.report_exhausted(at, &mut events);
            self.report_server_exhaustion(at);
            self.replenish_due(at);
            self.release_due(shared, at, &mut events);
            self.fire_due_timers(at, &mut events);
            if let Err(reason) = self.decide(shared, at, events, detected_at) {
                let name = self.policy.name();
                self.fail(format!(
                    "policy {name} at {}: {reason}",
                    Instant::from_nanos(at)
                ));
                return;
            }
            self.forget_ended_frames(shared, at);
            decided = true;
            self.last_at = at;
        }
        if decided {
            (self.measurements).record(DECISION_COST, clock::now_ns().saturating_sub(began));
        }
    }

    /// The earliest instant up to `now` with an event (a completion, a release, a timer, a
    /// server's exhaustion or replenishment) not yet decided on; `now` itself at the first
    /// pass.
    fn next_instant(&self, shared: &Shared, now: u64, decided: bool) -> Option<u64> {
        let slots = self.views.iter().map(|v| shared.slot(v.id));
        let completion = (slots.flat_map(|s| [&s.completed_at, &s.part_end_at]))
            .map(|stamp| stamp.load(Ordering::Acquire))
            .filter(|&stamp| stamp != 0)
            .map(|stamp| (stamp - 1).max(self.last_at))
            .min();
        let release = self.earliest_release().map(|(_, at)| at);
        let timer = self.timers.iter().map(|&(_, at)| at).min();
        let first = !decided && self.steps.is_empty();
        let exhaustion = self.next_server_exhaustion().map(|(at, _)| at);
        let replenishment = self.next_replenishment().map(|(at, _)| at);
        [
            completion,
            release,
            timer,
            exhaustion,
            replenishment,
            first.then_some(now),
        ]
        .into_iter()
        .flatten()
        .filter(|&at| at <= now)
        .min()
    }

    pub(super) fn fail(&mut self, reason: String) {
        self.failure.get_or_insert(reason);
    }

    /// When each core's dispatcher must next run a pass: its home tasks' next releases, the
    /// policy's timers (core 0), its servers' exhaustions and replenishments, and the end of
    /// the run.
    pub fn wake_times(&self) -> Vec<u64> {
        let mut wake = vec![self.end; self.cores];
        for (task, &at) in self.next_release.iter().enumerate() {
            let core = self.home[task];
            wake[core] = wake[core].min(at);
        }
        if let Some(first) = self.timers.iter().map(|&(_, at)| at).min() {
            wake[0] = wake[0].min(first);
        }
        for (at, core) in [self.next_server_exhaustion(), self.next_replenishment()]
            .into_iter()
            .flatten()
        {
            wake[core] = wake[core].min(at);
        }
        wake
    }
}
