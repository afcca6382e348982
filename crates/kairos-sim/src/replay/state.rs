//! A replay's state: the contract's, with nothing of an engine's own (no work, no clocks), and
//! the instant at which a mode change asks the next step to ask again.

use kairos_model::{Duration, Instant, Task, Workload};
use kairos_policy::contract::{Answer, Contract, Host, PartChange};
use kairos_policy::{JobSource, JobView, Policy, Step};

pub(super) struct Replayed<'a> {
    workload: &'a Workload,
    host: Budgets<'a>,
    contract: Contract<()>,
    /// The instant of a mode change: the next step must ask again then.
    asked_again_at: Option<Instant>,
}

/// What a replay hosts: the budgets of the run's job source.
struct Budgets<'a>(&'a dyn JobSource);

impl Host<()> for Budgets<'_> {
    fn budget(&self, task: usize, spec: &Task, mode: usize) -> Duration {
        self.0.budget(task, spec, mode)
    }

    /// A replay knows what a part executed from the recorded views only.
    fn next_part(&mut self, _: Instant, job: &JobView, _: &mut (), _: &PartChange) -> Duration {
        job.executed
    }
}

impl<'a> Replayed<'a> {
    pub(super) fn new(
        workload: &'a Workload,
        budgets: &'a dyn JobSource,
        policy: &dyn Policy,
        end: Instant,
    ) -> Self {
        let levels = budgets.levels().len();
        Replayed {
            workload,
            host: Budgets(budgets),
            contract: Contract::new(policy, workload.cores, levels, end),
            asked_again_at: None,
        }
    }

    /// Replays one step: its events, its view, its question and its answer.
    pub(super) fn step(&mut self, step: &Step, policy: &mut dyn Policy) -> Result<(), String> {
        let at = step.at;
        let asked_again = self.ask_again_due(at)?;
        let (c, host, tasks) = (&mut self.contract, &mut self.host, &self.workload.tasks);
        c.take_progress(&step.jobs);
        for event in &step.events {
            (c.apply_recorded(at, *event, || (), tasks, host, policy)).map_err(|r| r.0)?;
        }
        (c.adopt_recorded(&step.jobs, step.mode, asked_again)).map_err(|r| r.0)?;
        let decision = c.ask(at, tasks, host, policy).map_err(|r| r.0)?;
        let recorded = (&step.decision, &step.actions, &step.ahead);
        if (&decision.cores, &decision.actions, &decision.ahead) != recorded {
            return Err(format!(
                "the policy decides {:?} with {:?} (promise {:?}), the run recorded {:?} with \
                 {:?} (promise {:?})",
                decision.cores,
                decision.actions,
                decision.ahead,
                step.decision,
                step.actions,
                step.ahead
            ));
        }
        let answer = c.answer(at, !asked_again, decision, tasks, host, policy);
        if answer.map_err(|r| r.0)? == Answer::AskAgain {
            self.asked_again_at = Some(at);
        }
        Ok(())
    }

    /// After a mode change, the engine asks again at the same instant. Returns whether this
    /// step asks again after a mode change.
    fn ask_again_due(&mut self, at: Instant) -> Result<bool, String> {
        match self.asked_again_at.take() {
            Some(due) if due != at => Err(format!(
                "the mode changed at {due} but the next question is at {at}"
            )),
            due => Ok(due.is_some()),
        }
    }
}
