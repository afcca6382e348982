//! Replaying a recorded run ([`kairos_policy::Step`]s, as the runtime's dispatcher records
//! them) against a fresh policy object: the same events reported in the same order, the same
//! views, and the policy must return the same decisions, actions and promises included.
//!
//! The replay is the contract core ([`kairos_policy::contract`]) fed from the record instead
//! of an engine: each recorded event is applied by the rules a live one follows (and refused
//! where the state does not allow it: a job released twice, a completion or removal of a job
//! that is not open, a timer not armed for that instant, an overrun with budget left), each
//! recorded view is checked against the state the events left (every open job and no other,
//! in the mode, with its task's budget, where the previous decision placed it, every
//! exhausted budget reported), and each decision is checked and carried out as both engines
//! carry it out (a mode change is reported and the next step must ask again at the same
//! instant; a timer armed in the past or a change to no level is refused; discarded jobs
//! leave; stopped jobs are never placed again; a promise binds). A runtime that lost or
//! invented an event is caught even where the policy would not notice.

mod state;
#[cfg(test)]
mod tests;

use kairos_model::{Instant, Workload};
use kairos_policy::{ExecutionTimeModel, JobSource, Policy, Step, WorkloadJobs};
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

/// Replays the `steps` of a workload run that ended at `end` (budgets: each task's WCET; see
/// the module documentation); `Ok` with the number of decisions compared.
pub fn replay(
    workload: &Workload,
    policy: &mut dyn Policy,
    steps: &[Step],
    end: Instant,
) -> Result<usize, ReplayError> {
    let budgets = WorkloadJobs::new(0, ExecutionTimeModel::Wcet);
    replay_from(workload, &budgets, policy, steps, end)
}

/// Replays `steps` of a run that ended at `end` (a decision there places nothing and keeps no
/// promise) whose jobs came from a source like `budgets` (a table run's
/// [`kairos_policy::table::TableJobs`]): released jobs get the budget it gives in the mode.
pub fn replay_from(
    workload: &Workload,
    budgets: &dyn JobSource,
    policy: &mut dyn Policy,
    steps: &[Step],
    end: Instant,
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
    let mut state = Replayed::new(workload, budgets, policy, end);
    for (i, step) in steps.iter().enumerate() {
        (state.step(step, policy)).map_err(|reason| fail(i, step.at, reason))?;
    }
    Ok(steps.len())
}
