//! The policy trait: one callback per event, and one decision per instant.
//!
//! An engine (the simulator, or the runtime's dispatcher) owns time, jobs and cores. At each
//! instant where something happens it first reports every event of that instant, in the order
//! the contract core states once ([`crate::contract`], "One instant, in order"). Then it calls
//! [`Policy::decide`] with a view that already reflects all of them, applies the returned
//! [`Decision`]'s actions, and places the jobs. Every engine does this through the contract
//! core, and nothing else calls the policy, so a policy that runs in the simulator runs
//! unchanged on real cores.
//!
//! Callbacks only inform: they may update the policy's own state (queues, counters) and must
//! not assume that a decision follows at once for that event alone. Decisions are returned
//! values, never side effects.

use crate::decision::{Decision, TimerId};
use crate::job::JobView;
use crate::policies::core_order::CoreOrder;
use crate::server::{ServerSpec, ServerView};
use crate::view::View;
use kairos_model::{Instant, Part, Workload};
use thiserror::Error;

/// Why a policy cannot run a workload.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Refusal(pub String);

/// A scheduling policy, written once against this contract.
pub trait Policy {
    /// Short name used in reports and traces (`gedf`, `pfp`, ...).
    fn name(&self) -> &'static str;

    /// Called once before the first event, with the workload the engine will run. The policy
    /// sets itself up (priorities, core bindings) or refuses the workload.
    fn prepare(&mut self, _workload: &Workload) -> Result<(), Refusal> {
        Ok(())
    }

    /// What the user should know about how the policy set itself up (after `prepare`).
    fn notices(&self, _workload: &Workload) -> Vec<String> {
        Vec::new()
    }

    /// After [`Policy::prepare`], the order in which each core runs its jobs, when the policy
    /// binds every task to a core and orders each core's jobs statically ([`CoreOrder`]);
    /// `None`, the default, for any other.
    fn core_order(&self) -> Option<CoreOrder> {
        None
    }

    /// Whether the policy runs imprecise tasks by parts (mandatory, optional, wind-up; seed
    /// 001). If not, the engine runs an imprecise task as a plain one with `C = m + w` and
    /// never reports a part. Asked once, before the first event.
    fn runs_parts(&self) -> bool {
        false
    }

    /// `job` was released at `now` (its release instant). It is in the next view's jobs, with
    /// nothing executed and on no core.
    fn job_released(&mut self, _now: Instant, _job: &JobView) {}

    /// `job` completed at `now`: this is its last view, and it is in no later view. Its core,
    /// if it had one, is idle until the next decision.
    fn job_completed(&mut self, _now: Instant, _job: &JobView) {}

    /// Part `ended` of `job` executed all its work at `now`; `job.part` is the part that
    /// follows, with nothing executed (an empty optional part is passed over: after the
    /// mandatory part, `job.part` is then [`Part::Windup`]). A cut is not reported: the policy
    /// made it. The job keeps its core until a decision says otherwise. Reported after the
    /// completions of the instant, only to policies that run parts.
    fn part_completed(&mut self, _now: Instant, _job: &JobView, _ended: Part) {}

    /// `job` left the system unfinished by no decision of the policy: aborted at its deadline
    /// (the simulator's `--abort-on-miss`) or forgotten at the end of its frame (a table run's
    /// hyper-period). This is its last view. Discards and stops the policy asked for are not
    /// reported: it made them.
    fn job_removed(&mut self, _now: Instant, _job: &JobView) {}

    /// `job` has executed its whole budget at `now` (its `budget_left()` is zero) and has work
    /// left: it overran. Reported once per budget (again only after a mode change gave it more),
    /// after the completions of the instant. The job keeps its core unless the decision moves,
    /// stops or discards it. The simulator reports it at the exact instant; the runtime's
    /// dispatcher at its first pass after it (it sees progress only then).
    fn budget_exhausted(&mut self, _now: Instant, _job: &JobView) {}

    /// The servers this policy schedules through ([`crate::server`]), asked once after
    /// [`Policy::prepare`]; none by default. From then on every decision places servers too.
    fn servers(&self) -> Vec<ServerSpec> {
        Vec::new()
    }

    /// `server`'s period began at `now`: its budget is full again and its deadline is the
    /// period's end. Reported after the completions of the instant, before its releases, for
    /// every server at 0 too. The server keeps its core, if it has one.
    fn server_replenished(&mut self, _now: Instant, _server: &ServerView) {}

    /// `server`, placed on a core, used the last of its budget at `now` (before its period
    /// ended). Reported after the completions of the instant. The next decision must not place
    /// it: the engine refuses a server without budget.
    fn server_exhausted(&mut self, _now: Instant, _server: &ServerView) {}

    /// The timer `timer`, armed by an earlier decision for `now`, fired. It is no longer armed.
    fn timer_fired(&mut self, _now: Instant, _timer: TimerId) {}

    /// The system's criticality mode changed from level `from` to level `to` at `now`, by a
    /// [`crate::Action::ChangeMode`] of the decision just made. Jobs of tasks below `to` that the
    /// decision did not discard are still in the view. The engine asks for a decision again at
    /// once, with the view in the new mode.
    fn mode_changed(&mut self, _now: Instant, _from: usize, _to: usize) {}

    /// Called once per instant after that instant's events, and at the first instant. Returns
    /// the job each core runs from now on and the actions the engine carries out. May assume
    /// that `view.jobs` is every released, unfinished job and that their `running_on` is the
    /// placement of the previous decision (minus completed jobs).
    fn decide(&mut self, view: &View<'_>) -> Decision;

    /// The engine is done with `decision`, the last one this policy returned: a policy may keep
    /// its vectors and decide into them next time, so that a decision allocates nothing. The
    /// default drops it.
    fn recycle(&mut self, _decision: Decision) {}
}
