//! The scripted policy of the contract tests: it runs the lowest-index job on core 0, logs
//! every callback, and lets each test add actions per decision.

use kairos_model::Instant;
use kairos_policy::{Decision, JobView, Policy, TimerId, View};

/// Runs the lowest-index job on core 0 and logs every callback; `script` adds actions per
/// decision (by decision number) and may replace the placement.
pub struct Scripted {
    pub log: Vec<String>,
    pub decisions: usize,
    pub script: fn(usize, &View<'_>, &mut Decision),
    pub views: Vec<Vec<JobView>>,
}

impl Scripted {
    pub fn new(script: fn(usize, &View<'_>, &mut Decision)) -> Scripted {
        Scripted {
            log: Vec::new(),
            decisions: 0,
            script,
            views: Vec::new(),
        }
    }
}

fn t(at: Instant) -> u64 {
    at.as_nanos() / 1_000
}

impl Policy for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.log.push(format!(
            "{} release {}#{}",
            t(now),
            job.id.task,
            job.id.number
        ));
    }
    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.log.push(format!(
            "{} complete {}#{}",
            t(now),
            job.id.task,
            job.id.number
        ));
    }
    fn timer_fired(&mut self, now: Instant, timer: TimerId) {
        self.log.push(format!("{} timer {}", t(now), timer.0));
    }
    fn budget_exhausted(&mut self, now: Instant, job: &JobView) {
        self.log.push(format!(
            "{} budget {}#{}",
            t(now),
            job.id.task,
            job.id.number
        ));
    }
    fn mode_changed(&mut self, now: Instant, from: usize, to: usize) {
        self.log.push(format!("{} mode {from} -> {to}", t(now)));
    }
    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.log.push(format!("{} decide", t(view.now)));
        self.views.push(view.jobs.to_vec());
        let mut decision = Decision::idle(view.cores);
        let first = view.jobs.iter().min_by_key(|j| (j.id.task, j.id.number));
        decision.cores[0] = first.map(|j| j.id);
        (self.script)(self.decisions, view, &mut decision);
        self.decisions += 1;
        decision
    }
}
