//! What an engine can record of a run, one [`Step`] per question to the policy: the events it
//! reported, the view it asked from and the decision the policy returned. The runtime's
//! dispatcher records its steps; replaying them against a fresh policy object
//! (`kairos_sim::replay`) must give the same decisions, which shows a real run made its
//! decisions exactly as the contract says.

use crate::decision::{Action, Ahead, Decision, TimerId};
use crate::job::{JobId, JobView};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Instant, Part, Workload};

/// One event an engine reported to the policy, at its nominal instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reported {
    Completed(JobId, Instant),
    Released(JobId, Instant),
    Timer(TimerId, Instant),
    /// The job's part (the one named) executed all its work; the job is in its next part.
    PartCompleted(JobId, Part, Instant),
    /// The job executed its whole budget and has work left ([`crate::Policy::budget_exhausted`]).
    BudgetExhausted(JobId, Instant),
    /// The job left the system unfinished by no decision of the policy
    /// ([`crate::Policy::job_removed`]).
    Removed(JobId, Instant),
}

/// One question to the policy and its answer.
///
/// A decision that changes the mode ([`Action::ChangeMode`]) is a step of its own: the engine
/// reports the change and asks again at the same instant, and only the last answer's placement
/// is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The view's `now`.
    pub at: Instant,
    /// The view's criticality mode.
    pub mode: usize,
    /// The events reported since the previous question, in the order reported.
    pub events: Vec<Reported>,
    /// The jobs of the view the decision was made from, in view order.
    pub jobs: Vec<JobView>,
    /// The job the policy put on each core.
    pub decision: Vec<Option<JobId>>,
    /// The decision's actions, in order.
    pub actions: Vec<Action>,
    /// The decision's promise ([`crate::Ahead`]).
    pub ahead: Option<Ahead>,
}

/// A policy that records, as [`Step`]s, every event its engine reports to `inner` and every
/// question `inner` answers: what the contract lets any engine's run be replayed from. The
/// runtime's dispatcher records its own steps (with its timings); this records a simulation
/// the same way, at the policy's boundary.
pub struct Recorder<P> {
    pub inner: P,
    pub steps: Vec<Step>,
    events: Vec<Reported>,
}

impl<P: Policy> Recorder<P> {
    pub fn new(inner: P) -> Self {
        Recorder {
            inner,
            steps: Vec::new(),
            events: Vec::new(),
        }
    }
}

impl<P: Policy> Policy for Recorder<P> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.inner.prepare(workload)
    }
    fn notices(&self, workload: &Workload) -> Vec<String> {
        self.inner.notices(workload)
    }
    fn core_order(&self) -> Option<crate::CoreOrder> {
        self.inner.core_order()
    }
    fn runs_parts(&self) -> bool {
        self.inner.runs_parts()
    }
    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.events.push(Reported::Released(job.id, now));
        self.inner.job_released(now, job);
    }
    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.events.push(Reported::Completed(job.id, now));
        self.inner.job_completed(now, job);
    }
    fn part_completed(&mut self, now: Instant, job: &JobView, ended: Part) {
        self.events
            .push(Reported::PartCompleted(job.id, ended, now));
        self.inner.part_completed(now, job, ended);
    }
    fn job_removed(&mut self, now: Instant, job: &JobView) {
        self.events.push(Reported::Removed(job.id, now));
        self.inner.job_removed(now, job);
    }
    fn budget_exhausted(&mut self, now: Instant, job: &JobView) {
        self.events.push(Reported::BudgetExhausted(job.id, now));
        self.inner.budget_exhausted(now, job);
    }
    fn timer_fired(&mut self, now: Instant, timer: TimerId) {
        self.events.push(Reported::Timer(timer, now));
        self.inner.timer_fired(now, timer);
    }
    /// Not an event of a step: a replay derives it from the recorded [`Action::ChangeMode`].
    fn mode_changed(&mut self, now: Instant, from: usize, to: usize) {
        self.inner.mode_changed(now, from, to);
    }
    fn recycle(&mut self, decision: Decision) {
        self.inner.recycle(decision);
    }
    fn decide(&mut self, view: &View<'_>) -> Decision {
        let decision = self.inner.decide(view);
        self.steps.push(Step {
            at: view.now,
            mode: view.mode,
            events: std::mem::take(&mut self.events),
            jobs: view.jobs.to_vec(),
            decision: decision.cores.clone(),
            actions: decision.actions.clone(),
            ahead: decision.ahead.clone(),
        });
        decision
    }
}
