//! # The contract core: what the execution contract means, written once
//!
//! Every engine that hosts a policy keeps the same state and applies the same rules: the
//! simulator's engine (`kairos_sim`, virtual time), the runtime's dispatcher
//! (`kairos_rt::dispatcher`, clocks and threads) and the replay of a recorded run
//! (`kairos_sim::replay`). This module is that state ([`Contract`]: the open jobs and each
//! core's job, the criticality mode, the armed timers, the servers' budgets, the promise) and
//! those rules (reporting each event, checking and carrying out a decision). An engine keeps
//! only what is its own, behind [`Host`]: the work it drew for each job, how it learns that
//! a job finished, the cost of a switch, what it records.
//!
//! ## One instant, in order
//!
//! This is the one statement of the order; [`Contract::report_instant`] is its code, and every
//! engine goes through it. At an instant where something happens the engine reports:
//! 1. **completions** ([`crate::Policy::job_completed`]), by task index, then job number;
//! 2. **part ends** of imprecise jobs run by parts ([`crate::Policy::part_completed`]), the job
//!    moving on to its next part, by task index, then job number;
//! 3. **budget overruns** ([`crate::Policy::budget_exhausted`]), once per budget, in view order;
//! 4. **server exhaustions** ([`crate::Policy::server_exhausted`]), by server index;
//! 5. **late jobs removed** ([`crate::Policy::job_removed`]; only a simulation that aborts a
//!    job unfinished at its deadline);
//! 6. **server replenishments** ([`crate::Policy::server_replenished`]), by server index;
//! 7. **releases** ([`crate::Policy::job_released`]), by task index;
//! 8. **timers** ([`crate::Policy::timer_fired`]), by instant, then arming order;
//!
//! then, if any of them happened, asks for one **decision** ([`Contract::decide`]): checked
//! ([`crate::Decision::check`], [`crate::Decision::check_servers`]), its actions carried out in
//! order, asked again at once after a decision that changed the mode (at most `2 L + 2` times
//! for `L` levels), and the last one's servers and jobs placed. Steps 1 to 5 void the previous
//! decision's promise ([`crate::Ahead`]); a decision at the promised instant after only steps 6
//! to 8 must keep it. After the decision the engine observes deadlines (a miss is a job still
//! unfinished at its deadline) and, for a framed job source, forgets the jobs of an ended frame
//! ([`Contract::remove`], reported at the next question).
//!
//! A decision at or after the run's end places nothing: nothing runs outside the window.

mod decide;
mod events;
mod jobs;
mod parts;
mod recorded;
mod servers;
mod timers;

pub use decide::Answer;
pub use jobs::Jobs;
pub use parts::PartChange;
pub use servers::Servers;
pub use timers::Timers;

use crate::decision::{Ahead, Decision};
use crate::job::{JobId, JobView};
use crate::policy::Policy;
use crate::record::Reported;
use crate::view::View;
use kairos_model::{Duration, Instant, Task};
use kairos_trace::{PartOutcome, TraceEvent};
use thiserror::Error;

/// Why the contract refuses what a policy did or what a record says: the reason, in the words
/// every engine prints.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Refused(pub String);

/// How a job left the open jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It executed all its work.
    Completed,
    /// It left unfinished by no decision of the policy (aborted at its deadline, or forgotten
    /// at the end of its frame).
    Removed,
    /// The policy discarded it.
    Discarded,
}

/// What an engine keeps and does itself, called by the contract as it applies the rules. `J`
/// is the engine's side of a job. Every method but [`Host::budget`] and [`Host::next_part`]
/// has a default that does nothing.
pub trait Host<J> {
    /// The budget of a job of `task` in criticality mode `mode`: what its job source says.
    fn budget(&self, task: usize, spec: &Task, mode: usize) -> Duration;

    /// Part `change.ended` of `job` ended at `now` (by execution, or cut when `change.cut`):
    /// load the work of `change.next` into the engine's side of the job. Returns what the
    /// ended part executed. `job` is still the view of the ended part.
    fn next_part(
        &mut self,
        now: Instant,
        job: &JobView,
        side: &mut J,
        change: &PartChange,
    ) -> Duration;

    /// An event of the trace format the contract made: a part end, a mode change, a discard,
    /// a server's replenishment, exhaustion or segment.
    fn record(&mut self, _event: TraceEvent) {}

    /// An event as reported to the policy, for an engine that records its steps.
    fn reported(&mut self, _event: Reported) {}

    /// The policy answered a question asked from `jobs` in `mode` at `now` with `decision`
    /// (before its actions are carried out).
    fn asked(&mut self, _now: Instant, _mode: usize, _jobs: &[JobView], _decision: &Decision) {}

    /// `job` left the open jobs at `now` (its view as it was, on its core if it ran), before
    /// the policy is told.
    fn left(&mut self, _now: Instant, _job: &JobView, _side: J, _exit: Exit) {}

    /// The policy stopped `job` at `now`.
    fn stopped(&mut self, _now: Instant, _job: &JobView, _side: &mut J) {}

    /// `job`, running, leaves its core at `now` (preempted, moved, or stopped).
    fn preempted(&mut self, _now: Instant, _job: &JobView, _side: &mut J) {}

    /// `job` starts on `core` at `now`; its view still shows the core it last ran on.
    fn switched_in(&mut self, _now: Instant, _job: &JobView, _side: &mut J, _core: usize) {}

    /// An optional part of a job of `task` ended with `outcome`, having executed `executed` of
    /// the `requested` time.
    fn optional_ended(
        &mut self,
        _task: usize,
        _requested: Duration,
        _executed: Duration,
        _outcome: PartOutcome,
    ) {
    }

    /// The mode changed from `from` to `to` at `now`, caused by the overruns of `triggers`
    /// (after its trace event, before the policy is told).
    fn mode_changed(&mut self, _now: Instant, _from: usize, _to: usize, _triggers: &[JobId]) {}

    /// The server on `core` leaves it at `now`; `job` is the job the core runs, if any.
    fn server_left(&mut self, _now: Instant, _core: usize, _job: Option<(&JobView, &mut J)>) {}
}

/// What an engine finds out by itself at an instant, asked by [`Contract::report_instant`] in
/// the contract's order. Each method reports what it found through the contract's events
/// ([`Contract::complete`], ...) and returns whether it found anything.
pub trait Occurrences<J>: Host<J> {
    /// Jobs whose last part has no work left at `now`: [`Contract::complete`] each.
    fn completions(&mut self, contract: &mut Contract<J>, now: Instant, p: &mut dyn Policy)
        -> bool;

    /// Jobs whose current part, not their last, has no work left: [`Contract::end_part`] each.
    fn part_ends(&mut self, contract: &mut Contract<J>, now: Instant, p: &mut dyn Policy) -> bool;

    /// Jobs to remove unfinished at their deadline ([`Contract::remove`]); none by default.
    fn late_jobs(&mut self, _c: &mut Contract<J>, _now: Instant, _p: &mut dyn Policy) -> bool {
        false
    }

    /// Jobs released at `now`: [`Contract::release`] each, by task index.
    fn releases(&mut self, contract: &mut Contract<J>, now: Instant, p: &mut dyn Policy) -> bool;
}

/// The contract's state of one run (see the module documentation).
#[derive(Clone, Debug)]
pub struct Contract<J> {
    cores: usize,
    levels: usize,
    mode: usize,
    end: Instant,
    runs_parts: bool,
    pub jobs: Jobs<J>,
    pub timers: Timers,
    pub servers: Servers,
    /// The last promise placed, or storage for the next; it binds only while
    /// `promise_stands`.
    promised: Ahead,
    promise_stands: bool,
}

impl<J> Contract<J> {
    /// The state at the start of a run on `cores` cores with `levels` criticality levels (at
    /// least one) ending at `end`, for `policy` (prepared): whether it runs parts, its servers.
    pub fn new(policy: &dyn Policy, cores: usize, levels: usize, end: Instant) -> Self {
        Contract {
            cores,
            levels: levels.max(1),
            mode: 0,
            end,
            runs_parts: policy.runs_parts(),
            jobs: Jobs::new(cores),
            timers: Timers::default(),
            servers: Servers::new(policy.servers(), cores, end),
            // Storage for the promises to come, none standing yet.
            promised: Ahead {
                at: Instant::ZERO,
                cores: Vec::with_capacity(cores),
            },
            promise_stands: false,
        }
    }

    pub fn cores(&self) -> usize {
        self.cores
    }

    /// The criticality mode.
    pub fn mode(&self) -> usize {
        self.mode
    }

    pub fn levels(&self) -> usize {
        self.levels
    }

    pub fn end(&self) -> Instant {
        self.end
    }

    /// Whether the policy runs imprecise tasks by parts ([`Policy::runs_parts`]).
    pub fn runs_parts(&self) -> bool {
        self.runs_parts
    }

    /// What the policy sees at `now`.
    pub fn view<'a>(&'a self, now: Instant, tasks: &'a [Task]) -> View<'a> {
        View {
            now,
            cores: self.cores,
            mode: self.mode,
            jobs: self.jobs.views(),
            index: self.jobs.index(),
            tasks,
            servers: self.servers.views(),
        }
    }

    /// Something the promise did not assume happened.
    fn void_promise(&mut self) {
        self.promise_stands = false;
    }

    /// Reports the events of instant `now` in the contract's order (the module
    /// documentation); returns whether any happened. The servers are charged up to `now`
    /// first.
    pub fn report_instant<E: Occurrences<J>>(
        &mut self,
        now: Instant,
        engine: &mut E,
        policy: &mut dyn Policy,
    ) -> bool {
        self.servers.charge(now, self.jobs.running());
        let mut changed = engine.completions(self, now, policy);
        changed |= engine.part_ends(self, now, policy);
        changed |= self.report_overruns(now, engine, policy);
        changed |= self.servers.report_exhaustion(now, engine, policy);
        changed |= engine.late_jobs(self, now, policy);
        if changed {
            self.void_promise();
        }
        let mut due = self.servers.replenish_due(now, engine, policy);
        due |= engine.releases(self, now, policy);
        due |= self.fire_due_timers(now, engine, policy);
        changed || due
    }
}
