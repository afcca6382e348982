//! Asking the policy and carrying out its decision: actions, mode changes, placement, and the
//! overhead charged at each switch.

use super::Engine;
use crate::SimError;
use kairos_model::Duration;
use kairos_policy::{Action, Decision, JobId, Policy, View};
use kairos_trace::TraceEvent;

impl Engine<'_> {
    /// One decision, asked again after each mode change; only the last one's placement applies.
    /// A policy that keeps changing the mode at one instant is refused.
    pub(super) fn decide(&mut self, policy: &mut dyn Policy) -> Result<(), SimError> {
        let most = 2 * self.levels + 2;
        for asked in 0..most {
            let mut decision = self.ask(policy)?;
            let mode = self.mode;
            for action in std::mem::take(&mut decision.actions) {
                self.carry_out(action, policy)?;
            }
            if self.mode == mode {
                // No job starts at the end of the run: it would run outside the window (whose
                // releases a promise may have counted on).
                let inside = self.now < self.end;
                if asked == 0 && inside {
                    self.keep_promise(&decision.cores)?;
                }
                self.promised = decision.ahead;
                if !inside {
                    return Ok(());
                }
                self.place_servers(&decision.servers);
                let placed = self.place(&decision.cores);
                self.count_back_to_back();
                return placed;
            }
        }
        Err(self.invalid(format!(
            "the criticality mode changed {most} times at one instant"
        )))
    }

    /// Refuses a decision that breaks the previous decision's promise for this instant (only
    /// asked when nothing but releases and timers happened and the mode did not change).
    fn keep_promise(&mut self, cores: &[Option<JobId>]) -> Result<(), SimError> {
        match self.promised.take() {
            Some(ahead) if ahead.at == self.now && ahead.cores != cores => {
                Err(self.invalid(format!(
                    "the policy promised {:?} for this instant and decided {cores:?}, with \
                     nothing but releases and timers in between",
                    ahead.cores
                )))
            }
            _ => Ok(()),
        }
    }

    fn ask(&mut self, policy: &mut dyn Policy) -> Result<Decision, SimError> {
        let view = View {
            now: self.now,
            cores: self.workload.cores,
            mode: self.mode,
            jobs: &self.views,
            tasks: &self.workload.tasks,
            servers: &self.servers.views,
        };
        let decision = policy.decide(&view);
        self.metrics.scheduling_points += 1;
        (decision.check(&view, &self.running)).map_err(|reason| self.invalid(reason))?;
        (decision.check_servers(&view, &self.servers.specs))
            .map_err(|reason| self.invalid(reason))?;
        Ok(decision)
    }

    pub(super) fn invalid(&self, reason: String) -> SimError {
        SimError::InvalidDispatch {
            policy: self.policy_name.to_string(),
            at: self.now,
            reason,
        }
    }

    fn carry_out(&mut self, action: Action, policy: &mut dyn Policy) -> Result<(), SimError> {
        match action {
            Action::ArmTimer { timer, at } if at > self.now => self.queue.arm(timer, at),
            Action::ArmTimer { at, .. } => {
                return Err(self.invalid(format!("a timer armed for {at}, not after now")))
            }
            Action::CancelTimer(timer) => self.queue.cancel(timer),
            Action::Discard(id) => {
                let i = self.find(id, "discard")?;
                self.discard(i);
            }
            Action::Stop(id) => {
                let i = self.find(id, "stop")?;
                self.stop(i);
            }
            Action::CutOptional(id) => {
                let i = self.find(id, "cut")?;
                self.cut_optional(i)?;
            }
            Action::ChangeMode { to, triggers } => self.change_mode(to, &triggers, policy)?,
        }
        Ok(())
    }

    fn find(&self, id: JobId, what: &str) -> Result<usize, SimError> {
        self.index_of(id).ok_or_else(|| {
            self.invalid(format!(
                "{what} of job {}#{}, not released or finished",
                id.task, id.number
            ))
        })
    }

    /// Enters mode `to`: every job's budget becomes its task's budget there.
    fn change_mode(
        &mut self,
        to: usize,
        triggers: &[JobId],
        policy: &mut dyn Policy,
    ) -> Result<(), SimError> {
        let from = self.mode;
        if to >= self.levels || to == from {
            return Err(self.invalid(format!(
                "a change of mode from {from} to {to} ({} levels)",
                self.levels
            )));
        }
        self.mode = to;
        let tasks = &self.workload.tasks;
        for (view, work) in self.views.iter_mut().zip(&mut self.work) {
            let task = view.id.task;
            view.budget = self.hosts.source.budget(task, &tasks[task], to);
            work.exhausted &= view.budget_left().is_zero();
        }
        let at = self.now;
        self.record(|| TraceEvent::ModeChange { at, from, to });
        if let Some(observer) = self.observer() {
            observer.mode_changed(at, triggers);
        }
        policy.mode_changed(at, from, to);
        Ok(())
    }

    /// Preempts the running jobs the decision moves or leaves out, then switches in the new
    /// ones (a job the same decision discarded leaves its core idle). Only jobs that change
    /// core are looked up by id, so a decision that keeps its jobs costs O(m).
    fn place(&mut self, cores: &[Option<JobId>]) -> Result<(), SimError> {
        for (core, want) in cores.iter().enumerate() {
            if let Some(i) = self.running[core] {
                if *want != Some(self.views[i].id) || self.work[i].stopped {
                    self.preempt(i);
                }
            }
        }
        for (core, want) in cores.iter().enumerate() {
            if self.running[core].is_some() {
                continue;
            }
            let Some(i) = want.and_then(|id| self.index_of(id)) else {
                continue;
            };
            if self.work[i].stopped {
                let id = self.views[i].id;
                return Err(self.invalid(format!(
                    "job {}#{} placed after the policy stopped it",
                    id.task, id.number
                )));
            }
            self.switch_in(i, core);
        }
        Ok(())
    }

    fn preempt(&mut self, i: usize) {
        self.close_segment(i);
        let work = &mut self.work[i];
        // Overhead not yet paid is lost with the preemption, not carried over.
        work.remaining -= work.overhead_left;
        work.overhead_left = Duration::ZERO;
        let task = self.views[i].id.task;
        self.metrics.preemptions += 1;
        self.metrics.tasks[task].preemptions += 1;
    }

    fn switch_in(&mut self, i: usize, core: usize) {
        let overheads = self.config.overheads;
        let view = &self.views[i];
        let (id, migrated) = (view.id, view.last_core.is_some_and(|l| l != core));
        if migrated {
            self.metrics.migrations += 1;
            self.metrics.tasks[id.task].migrations += 1;
        }
        self.metrics.context_switches += 1;
        let charges = &mut self.charges;
        let mut cost =
            charges.charge(overheads.scheduling) + charges.charge(overheads.context_switch);
        if migrated {
            cost += charges.charge(overheads.migration);
        }
        let view = &mut self.views[i];
        view.running_on = Some(core);
        view.last_core = Some(core);
        self.running[core] = Some(i);
        let work = &mut self.work[i];
        work.remaining += cost;
        work.overhead_left = cost;
        work.segment_start = self.now;
        let now = self.now;
        if let Some(observer) = self.observer() {
            observer.started(now, core, id);
        }
    }

    /// Ends the running segment of job `i`, if it is running.
    pub(super) fn close_segment(&mut self, i: usize) {
        let Some(core) = self.views[i].running_on.take() else {
            return;
        };
        self.running[core] = None;
        self.record_segment(i, core);
    }

    /// Records job `i`'s segment on `core` from its start to now (if not empty) and starts the
    /// next one now.
    pub(super) fn record_segment(&mut self, i: usize, core: usize) {
        let id = self.views[i].id;
        let (start, end) = (self.work[i].segment_start, self.now);
        if end > start {
            self.record(|| TraceEvent::Segment {
                core,
                task: id.task,
                job: id.number,
                start,
                end,
            });
        }
        self.work[i].segment_start = end;
    }
}
