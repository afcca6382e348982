//! Replaying a recorded run ([`kairos_policy::Step`]s, as the runtime's dispatcher records
//! them) against a fresh policy object: the same events reported in the same order, the same
//! views, and the policy must return the same decisions, actions included. The replay carries
//! out those actions as the simulator's engine does (a mode change is reported and the next
//! step must ask again at the same instant; discarded jobs leave; stopped jobs are never placed
//! again; armed timers are the only ones that may fire). It also checks the record itself
//! against the contract (every job of a view released and not completed, every released job
//! in the next view, the budgets the job source gives in the view's mode, every decision
//! valid), so a runtime that lost or invented an event is caught even where the policy would
//! not notice.

mod state;
#[cfg(test)]
mod tests;

use kairos_model::{Instant, Workload};
use kairos_policy::{ExecutionTimeModel, JobSource, Policy, Step, View, WorkloadJobs};
use state::Replayed;
use thiserror::Error;

/// Where a replay first disagreed with the record.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("step {step} (at {at}): {reason}")]
pub struct ReplayError {
    pub step: usize,
    pub at: Instant,
    pub reason: String,
}

/// Replays the `steps` of a workload run (budgets: each task's WCET; see the module
/// documentation); `Ok` with the number of decisions compared.
pub fn replay(
    workload: &Workload,
    policy: &mut dyn Policy,
    steps: &[Step],
) -> Result<usize, ReplayError> {
    let budgets = WorkloadJobs::new(0, ExecutionTimeModel::Wcet);
    replay_from(workload, &budgets, policy, steps)
}

/// Replays `steps` of a run whose jobs came from a source like `budgets` (a table run's
/// [`kairos_policy::table::TableJobs`]): released jobs get the budget it gives in the mode.
pub fn replay_from(
    workload: &Workload,
    budgets: &dyn JobSource,
    policy: &mut dyn Policy,
    steps: &[Step],
) -> Result<usize, ReplayError> {
    let fail = |step: usize, at: Instant, reason: String| ReplayError { step, at, reason };
    policy.prepare(workload).map_err(|r| {
        let reason = format!("the policy refused the workload: {}", r.0);
        fail(0, Instant::ZERO, reason)
    })?;
    if !policy.servers().is_empty() {
        let reason = "runs through servers are not recorded for replay".to_string();
        return Err(fail(0, Instant::ZERO, reason));
    }
    let mut state = Replayed::new(workload, budgets, policy.runs_parts());
    for (i, step) in steps.iter().enumerate() {
        let at = step.at;
        let asked_again = (state.ask_again_due(at)).map_err(|reason| fail(i, at, reason))?;
        for event in &step.events {
            (state.report(policy, *event, step)).map_err(|reason| fail(i, at, reason))?;
        }
        (state.check_view(step, asked_again)).map_err(|reason| fail(i, at, reason))?;
        let view = View {
            now: at,
            cores: workload.cores,
            mode: state.mode,
            jobs: &step.jobs,
            tasks: &workload.tasks,
            servers: &[],
        };
        let decision = policy.decide(&view);
        if decision.cores != step.decision || decision.actions != step.actions {
            let reason = format!(
                "the policy decides {:?} with {:?}, the run recorded {:?} with {:?}",
                decision.cores, decision.actions, step.decision, step.actions
            );
            return Err(fail(i, at, reason));
        }
        (decision.check(&view, &state.running_index(step))).map_err(|r| fail(i, at, r))?;
        state
            .apply(policy, step)
            .map_err(|reason| fail(i, at, reason))?;
    }
    Ok(steps.len())
}
