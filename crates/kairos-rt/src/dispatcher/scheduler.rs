//! The scheduler state of a user-dispatched run, behind one lock: the policy object, the job
//! views it decides from, the pending releases and policy timers, the last decision, and the
//! record of every job and every pass.
//!
//! A pass ([`Scheduler::pass`]) is the runtime's side of the execution contract
//! (`kairos_policy`, "The policy trait"): it reports every event due by now in the contract's
//! order (completions, releases by (time, task), timers by (time, arming order)), then asks
//! for one decision from a view that reflects them all, checks it with the same
//! [`kairos_policy::Decision::check`] the simulator uses, carries out its actions and publishes
//! each core's job. Events carry their nominal instants (a release or a timer at its own time,
//! a completion when the worker finished); the view's `now` is the pass's real time, what a
//! scheduler on this machine knows.

use super::shared::{encode, Shared, SLOTS_PER_TASK};
use crate::measure::{JobRecord, Measurements};
use crate::platform::clock;
use kairos_model::{Duration, Instant, Task, Workload};
use kairos_policy::{Action, JobDraws, JobId, JobView, Policy, Reported, Step, TimerId, View};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Histogram of the callbacks and the decision of a pass (lock held), ns.
pub const DECISION_COST: &str = "dispatch.decision";
/// Histogram of the wait for the scheduler's lock, ns.
pub const LOCK_WAIT: &str = "dispatch.lock_wait";

pub struct Scheduler {
    policy: Box<dyn Policy + Send>,
    tasks: Vec<Task>,
    cores: usize,
    end: u64,
    views: Vec<JobView>,
    /// Next release of each task (`u64::MAX`: none before the end).
    next_release: Vec<u64>,
    next_number: Vec<u64>,
    /// Which core's dispatcher wakes for a task's next release: the core its last job was
    /// placed on, so a partitioned task's release is handled where it runs.
    home: Vec<usize>,
    /// Armed policy timers in arming order.
    timers: Vec<(TimerId, u64)>,
    placed: Vec<Option<JobId>>,
    records: Vec<JobRecord>,
    record_of: HashMap<JobId, usize>,
    /// CPU work of each recorded job (same index as `records`), ns.
    work: Vec<u64>,
    draws: JobDraws,
    pub steps: Vec<Step>,
    pub measurements: Measurements,
    /// Why the run cannot go on (an impossible decision, an overloaded slot ring).
    pub failure: Option<String>,
}

impl Scheduler {
    /// A prepared policy for `workload`, releasing jobs in `[0, end)` whose work `draws` gives.
    pub fn new(
        workload: &Workload,
        policy: Box<dyn Policy + Send>,
        end: u64,
        draws: JobDraws,
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
        Scheduler {
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
            records: Vec::with_capacity(expected as usize),
            record_of: HashMap::with_capacity(expected as usize),
            work: Vec::with_capacity(expected as usize),
            draws,
            steps: Vec::with_capacity(2 * expected as usize),
            measurements: Measurements::default(),
            failure: None,
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
    pub fn into_records(self) -> (Vec<JobRecord>, Vec<Step>, Measurements) {
        (self.records, self.steps, self.measurements)
    }

    /// One pass at `now` (ns since the origin) by the dispatcher of `core`: a decision if any
    /// event was due (and at the first pass).
    pub fn pass(&mut self, shared: &Shared, now: u64) {
        if self.failure.is_some() {
            return;
        }
        let began = clock::now_ns();
        let mut events = Vec::new();
        self.refresh_progress(shared);
        self.complete(shared, &mut events);
        self.release_due(shared, now, &mut events);
        self.fire_due_timers(now, &mut events);
        if events.is_empty() && !self.steps.is_empty() {
            return;
        }
        let at = Instant::from_nanos(now);
        let view = View {
            now: at,
            cores: self.cores,
            mode: 0,
            jobs: &self.views,
            tasks: &self.tasks,
        };
        let decision = self.policy.decide(&view);
        let running: Vec<Option<usize>> = (self.placed.iter())
            .map(|p| p.and_then(|id| self.views.iter().position(|j| j.id == id)))
            .collect();
        if let Err(reason) = decision.check(&view, &running) {
            self.fail(format!(
                "policy {} decided something impossible at {at}: {reason}",
                self.policy.name()
            ));
            return;
        }
        for action in decision.actions {
            if let Err(reason) = self.carry_out(action, now, shared) {
                self.fail(format!("policy {} at {at}: {reason}", self.policy.name()));
                return;
            }
        }
        let jobs = self.views.clone();
        self.place(&decision.cores, shared);
        (self.measurements).record(DECISION_COST, clock::now_ns().saturating_sub(began));
        self.steps.push(Step {
            at,
            events,
            jobs,
            decision: decision.cores,
        });
    }

    fn fail(&mut self, reason: String) {
        self.failure.get_or_insert(reason);
    }

    /// Execution received by each job, from its slot (the workers' progress).
    fn refresh_progress(&mut self, shared: &Shared) {
        for view in &mut self.views {
            let remaining = shared.slot(view.id).remaining.load(Ordering::Relaxed);
            let work = self.work[self.record_of[&view.id]];
            view.executed = Duration::from_nanos(work.saturating_sub(remaining));
        }
    }

    /// Reports and removes every job whose worker finished it.
    fn complete(&mut self, shared: &Shared, events: &mut Vec<Reported>) {
        let mut done: Vec<(usize, u64)> = Vec::new();
        for (i, view) in self.views.iter().enumerate() {
            let stamp = shared.slot(view.id).completed_at.load(Ordering::Acquire);
            if stamp != 0 {
                done.push((i, stamp - 1));
            }
        }
        // Removed from the back so earlier indices stay valid; reported by task index.
        let mut finished: Vec<(JobView, u64)> = Vec::with_capacity(done.len());
        for &(i, at) in done.iter().rev() {
            finished.push((self.views.swap_remove(i), at));
        }
        finished.sort_by_key(|(v, _)| (v.id.task, v.id.number));
        for (view, at) in finished {
            let record = self.record_of[&view.id];
            self.records[record].completion = Some(at);
            events.push(Reported::Completed(view.id, Instant::from_nanos(at)));
            self.policy.job_completed(Instant::from_nanos(at), &view);
        }
    }

    /// Releases every job due by `now`, earliest first (ties by task index).
    fn release_due(&mut self, shared: &Shared, now: u64, events: &mut Vec<Reported>) {
        while let Some((task, at)) = self.earliest_release().filter(|&(_, at)| at <= now) {
            let number = self.next_number[task];
            let id = JobId { task, number };
            let work = (self.draws).execution_time(task, &self.tasks[task], number);
            if !self.load_slot(shared, id, work.as_nanos()) {
                return;
            }
            let t = &self.tasks[task];
            self.next_number[task] += 1;
            // Sporadic tasks arrive at their minimum inter-arrival time, the densest pattern.
            let next = at + t.period.as_nanos();
            self.next_release[task] = if next < self.end { next } else { u64::MAX };
            let deadline = at + t.deadline.as_nanos();
            let view = JobView {
                id,
                release: Instant::from_nanos(at),
                absolute_deadline: Instant::from_nanos(deadline),
                budget: t.wcet,
                executed: Duration::ZERO,
                running_on: None,
                last_core: None,
            };
            self.record_of.insert(id, self.records.len());
            self.work.push(work.as_nanos());
            self.records.push(JobRecord {
                task,
                job: number,
                release: at,
                deadline,
                start: None,
                completion: None,
                discarded: None,
                cpu: None,
            });
            events.push(Reported::Released(id, Instant::from_nanos(at)));
            self.policy.job_released(view.release, &view);
            self.views.push(view);
        }
    }

    /// Loads a new job's work into its slot; false (and the run fails) if the slot's previous
    /// job is still unfinished or a worker still holds it (then more than [`SLOTS_PER_TASK`]
    /// jobs of the task are pending: the run is overloaded beyond what it can track).
    fn load_slot(&mut self, shared: &Shared, id: JobId, work: u64) -> bool {
        let slot = shared.slot(id);
        let used = slot.job.load(Ordering::Acquire) != 0;
        let open = used && slot.completed_at.load(Ordering::Acquire) == 0;
        let held = shared
            .holders
            .holder(super::shared::slot_index(id))
            .is_some();
        if open || held {
            let name = &self.tasks[id.task].name;
            self.fail(format!(
                "task {name} has {SLOTS_PER_TASK} released, unfinished jobs at {}: the run is overloaded",
                Instant::from_nanos(self.next_release[id.task])
            ));
            return false;
        }
        slot.completed_at.store(0, Ordering::Relaxed);
        slot.last_core.store(0, Ordering::Relaxed);
        slot.remaining.store(work, Ordering::Relaxed);
        slot.job.store(id.number + 1, Ordering::Release);
        true
    }

    fn earliest_release(&self) -> Option<(usize, u64)> {
        (self.next_release.iter().copied().enumerate())
            .filter(|&(_, at)| at != u64::MAX)
            .min_by_key(|&(task, at)| (at, task))
    }

    fn fire_due_timers(&mut self, now: u64, events: &mut Vec<Reported>) {
        while let Some(i) = (self.timers.iter().enumerate())
            .filter(|(_, &(_, at))| at <= now)
            .min_by_key(|&(i, &(_, at))| (at, i))
            .map(|(i, _)| i)
        {
            let (timer, at) = self.timers.remove(i);
            events.push(Reported::Timer(timer, Instant::from_nanos(at)));
            self.policy.timer_fired(Instant::from_nanos(at), timer);
        }
    }

    fn carry_out(&mut self, action: Action, now: u64, shared: &Shared) -> Result<(), String> {
        match action {
            Action::ArmTimer { timer, at } if at.as_nanos() > now => {
                self.timers.retain(|&(t, _)| t != timer);
                self.timers.push((timer, at.as_nanos()));
            }
            Action::ArmTimer { at, .. } => {
                return Err(format!("a timer armed for {at}, not after now"));
            }
            Action::CancelTimer(timer) => self.timers.retain(|&(t, _)| t != timer),
            Action::Discard(id) => {
                let i = (self.views.iter().position(|v| v.id == id)).ok_or_else(|| {
                    format!(
                        "discard of job {}#{}, not released or finished",
                        id.task, id.number
                    )
                })?;
                self.views.swap_remove(i);
                // The worker stops at its core's next request; the slot is closed for good.
                (shared.slot(id).completed_at).store(now + 1, Ordering::Release);
                self.records[self.record_of[&id]].discarded = Some(now);
            }
            Action::Stop(_) | Action::ChangeMode { .. } => {
                return Err(
                    "budget stops and criticality modes are not run by the user-space \
                            dispatcher yet (mixed-criticality tables run with --policy table)"
                        .into(),
                );
            }
        }
        Ok(())
    }

    /// Publishes the decision: each core's job, and the views' placement.
    fn place(&mut self, cores: &[Option<JobId>], shared: &Shared) {
        for view in &mut self.views {
            view.running_on = None;
        }
        for (core, id) in cores.iter().enumerate() {
            let Some(id) = *id else { continue };
            if let Some(view) = self.views.iter_mut().find(|v| v.id == id) {
                view.running_on = Some(core);
                view.last_core = Some(core);
                self.home[id.task] = core;
            }
        }
        for (core, id) in cores.iter().enumerate() {
            let alive = id.filter(|id| self.views.iter().any(|v| v.id == *id));
            shared.cores[core]
                .wanted
                .store(encode(alive), Ordering::Release);
        }
        self.placed = cores.to_vec();
    }

    /// When each core's dispatcher must next run a pass: its home tasks' next releases, the
    /// policy's timers (core 0), and the end of the run.
    pub fn wake_times(&self) -> Vec<u64> {
        let mut wake = vec![self.end; self.cores];
        for (task, &at) in self.next_release.iter().enumerate() {
            let core = self.home[task];
            wake[core] = wake[core].min(at);
        }
        if let Some(first) = self.timers.iter().map(|&(_, at)| at).min() {
            wake[0] = wake[0].min(first);
        }
        wake
    }
}
