//! The cost of each call of the policy on real cores: the policy as the contract core calls
//! it, with the calls a real-time engineer budgets for timed into the run's histograms (each
//! includes one clock read, about the histogram's minimum).
//!
//! Timings taken while the scheduler's lock is held are kept in the passing dispatcher's own
//! buffer ([`Timings`]) and recorded into its own histograms after it lets the lock go: no
//! histogram is written under the lock, and none is shared between cores (the run merges
//! every thread's histograms at its end).

use crate::measure::Measurements;
use kairos_model::{Instant, Part, Workload};
use kairos_os::clock;
use kairos_policy::{Decision, JobView, Policy, Refusal, ServerSpec, ServerView, TimerId, View};

/// Timings a pass may keep before they are recorded; more (a pass catching up on many
/// instants) are recorded at once, under the lock.
const DEFERRED: usize = 64;

/// Highest value each histogram of a dispatcher holds without growing, ns: the timings of a
/// pass are microseconds, so a run records into memory reserved before it starts.
pub(super) const RESERVED_RANGE_NS: u64 = 1 << 20;

/// One dispatcher's histograms, and the timings of its current pass not recorded yet.
pub(super) struct Timings {
    deferred: [(&'static str, u64); DEFERRED],
    len: usize,
    pub measurements: Measurements,
}

impl Timings {
    /// Empty, with the distributions `names` reserved ([`Measurements::reserve`]).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut measurements = Measurements::default();
        for name in names {
            measurements.reserve(name, RESERVED_RANGE_NS);
        }
        Timings {
            deferred: [("", 0); DEFERRED],
            len: 0,
            measurements,
        }
    }

    /// Keeps `ns` for `name` until [`Self::record_deferred`] (at once when the buffer is full).
    pub fn defer(&mut self, name: &'static str, ns: u64) {
        match self.deferred.get_mut(self.len) {
            Some(free) => {
                *free = (name, ns);
                self.len += 1;
            }
            None => self.measurements.record(name, ns),
        }
    }

    /// Records the kept timings, in the order taken.
    pub fn record_deferred(&mut self) {
        for &(name, ns) in &self.deferred[..self.len] {
            self.measurements.record(name, ns);
        }
        self.len = 0;
    }
}

/// Histograms of single calls of the policy, ns: [`Policy::decide`] (the scheduler proper),
/// and the callbacks of releases, completions and policy timers (G-RMWP's and P-RMWP's
/// `terminate_optional`).
pub const DECIDE: &str = "policy.decide";
pub const JOB_RELEASED: &str = "policy.job_released";
pub const JOB_COMPLETED: &str = "policy.job_completed";
pub const TIMER_FIRED: &str = "policy.timer_fired";
/// Histogram of [`Policy::part_completed`] for a mandatory part (G-RMWP's and P-RMWP's
/// `end_mandatory`), ns.
pub const END_MANDATORY: &str = "policy.part_completed.mandatory";
/// The same for an optional part (`end_optional`), ns.
pub const END_OPTIONAL: &str = "policy.part_completed.optional";

/// Every histogram a pass records (the policy's calls, [`super::DECISION_COST`]).
pub(super) const PASS_HISTOGRAMS: [&str; 7] = [
    DECIDE,
    JOB_RELEASED,
    JOB_COMPLETED,
    TIMER_FIRED,
    END_MANDATORY,
    END_OPTIONAL,
    super::DECISION_COST,
];

/// A policy whose calls are timed into `timings`.
pub(super) struct Metered<'a> {
    pub policy: &'a mut (dyn Policy + Send),
    pub timings: &'a mut Timings,
}

impl Metered<'_> {
    fn timed<T>(&mut self, name: &'static str, call: impl FnOnce(&mut dyn Policy) -> T) -> T {
        let began = clock::now_ns();
        let out = call(&mut *self.policy);
        (self.timings).defer(name, clock::now_ns().saturating_sub(began));
        out
    }
}

impl Policy for Metered<'_> {
    fn name(&self) -> &'static str {
        self.policy.name()
    }
    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.policy.prepare(workload)
    }
    fn notices(&self, workload: &Workload) -> Vec<String> {
        self.policy.notices(workload)
    }
    fn core_order(&self) -> Option<kairos_policy::CoreOrder> {
        self.policy.core_order()
    }
    fn runs_parts(&self) -> bool {
        self.policy.runs_parts()
    }
    fn servers(&self) -> Vec<ServerSpec> {
        self.policy.servers()
    }
    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.timed(JOB_RELEASED, |p| p.job_released(now, job));
    }
    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.timed(JOB_COMPLETED, |p| p.job_completed(now, job));
    }
    fn part_completed(&mut self, now: Instant, job: &JobView, ended: Part) {
        let name = match ended {
            Part::Mandatory => END_MANDATORY,
            _ => END_OPTIONAL,
        };
        self.timed(name, |p| p.part_completed(now, job, ended));
    }
    fn job_removed(&mut self, now: Instant, job: &JobView) {
        self.policy.job_removed(now, job);
    }
    fn budget_exhausted(&mut self, now: Instant, job: &JobView) {
        self.policy.budget_exhausted(now, job);
    }
    fn server_replenished(&mut self, now: Instant, server: &ServerView) {
        self.policy.server_replenished(now, server);
    }
    fn server_exhausted(&mut self, now: Instant, server: &ServerView) {
        self.policy.server_exhausted(now, server);
    }
    fn timer_fired(&mut self, now: Instant, timer: TimerId) {
        self.timed(TIMER_FIRED, |p| p.timer_fired(now, timer));
    }
    fn mode_changed(&mut self, now: Instant, from: usize, to: usize) {
        self.policy.mode_changed(now, from, to);
    }
    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.timed(DECIDE, |p| p.decide(view))
    }
    fn recycle(&mut self, decision: Decision) {
        self.policy.recycle(decision);
    }
}
