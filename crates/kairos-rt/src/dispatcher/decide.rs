//! A decision of a user-dispatched run, from asking the policy to publishing its placement:
//! the decision is checked as the simulator checks it, its actions carried out (asking again
//! after a mode change, as the simulator's engine does), the mode changes recorded, and the
//! jobs it places written to the cores ([`super::shared::CoreShared`]) with its promise.

use super::scheduler::{ModeChangeRecord, Scheduler, DECIDE};
use super::shared::{encode, Shared};
use crate::platform::clock;
use kairos_model::Instant;
use kairos_policy::{Action, Decision, JobId, Reported, Step, View};
use std::sync::atomic::Ordering;

impl Scheduler {
    /// Asks for decisions at `at` until one leaves the mode as it is (bounded, as in the
    /// simulator), then places that one's jobs and publishes its promise.
    pub(super) fn decide(
        &mut self,
        shared: &Shared,
        at: u64,
        events: Vec<Reported>,
        detected_at: u64,
    ) -> Result<(), String> {
        let most = 2 * self.levels + 2;
        let mut changes = Vec::new();
        let mut events = events;
        for _ in 0..most {
            let decision = self.ask(at)?;
            let (mode, jobs) = (self.mode, self.views.clone());
            let ahead = decision.ahead.clone();
            for action in decision.actions.iter().cloned() {
                if let Some(change) = self.carry_out(action, at, shared)? {
                    changes.push(change);
                }
            }
            self.steps.push(Step {
                at: Instant::from_nanos(at),
                mode,
                events: std::mem::take(&mut events),
                jobs,
                decision: decision.cores.clone(),
                actions: decision.actions,
            });
            if self.mode != mode {
                continue;
            }
            self.place_servers(&decision.servers, at);
            self.place(&decision.cores, shared)?;
            self.release_part_ends(shared);
            self.publish_promise(ahead, shared)?;
            self.record_mode_changes(changes, at, detected_at, shared);
            return Ok(());
        }
        Err(format!(
            "the criticality mode changed {most} times at one instant"
        ))
    }

    fn ask(&mut self, at: u64) -> Result<Decision, String> {
        let view = View {
            now: Instant::from_nanos(at),
            cores: self.cores,
            mode: self.mode,
            jobs: &self.views,
            tasks: &self.tasks,
            servers: &self.servers.views,
        };
        let began = clock::now_ns();
        let decision = self.policy.decide(&view);
        (self.measurements).record(DECIDE, clock::now_ns().saturating_sub(began));
        let running: Vec<Option<usize>> = (self.placed.iter())
            .map(|p| p.and_then(|id| self.views.iter().position(|j| j.id == id)))
            .collect();
        (decision.check(&view, &running))
            .and_then(|()| decision.check_servers(&view, &self.servers.specs))
            .map_err(|reason| format!("an impossible decision: {reason}"))?;
        Ok(decision)
    }

    /// Carries out one action; a mode change is returned as `(from, to, triggers)`.
    fn carry_out(
        &mut self,
        action: Action,
        at: u64,
        shared: &Shared,
    ) -> Result<Option<(usize, usize, Vec<JobId>)>, String> {
        match action {
            Action::ArmTimer { timer, at: when } if when.as_nanos() > at => {
                self.timers.retain(|&(t, _)| t != timer);
                self.timers.push((timer, when.as_nanos()));
            }
            Action::ArmTimer { at: when, .. } => {
                return Err(format!("a timer armed for {when}, not after now"));
            }
            Action::CancelTimer(timer) => self.timers.retain(|&(t, _)| t != timer),
            Action::Discard(id) => {
                self.remove_open(id, at, shared, "discard")?;
                self.records[self.record_of[&id]].discarded = Some(at);
            }
            Action::CutOptional(id) => self.cut_optional(shared, id, at)?,
            Action::Stop(id) => {
                self.find(id, "stop")?;
                self.stopped.insert(id);
                self.stops += 1;
            }
            Action::ChangeMode { to, triggers } => {
                let from = self.mode;
                if to >= self.levels || to == from {
                    return Err(format!(
                        "a change of mode from {from} to {to} ({} levels)",
                        self.levels
                    ));
                }
                self.enter_mode(to);
                self.policy.mode_changed(Instant::from_nanos(at), from, to);
                return Ok(Some((from, to, triggers)));
            }
        }
        Ok(None)
    }

    pub(super) fn find(&self, id: JobId, what: &str) -> Result<usize, String> {
        (self.views.iter().position(|v| v.id == id)).ok_or_else(|| {
            format!(
                "{what} of job {}#{}, not released or finished",
                id.task, id.number
            )
        })
    }

    /// Every job's budget becomes its task's budget in mode `to`.
    fn enter_mode(&mut self, to: usize) {
        self.mode = to;
        for view in &mut self.views {
            let task = view.id.task;
            view.budget = self.source.budget(task, &self.tasks[task], to);
            if !view.budget_left().is_zero() {
                self.exhausted.remove(&view.id);
            }
        }
    }

    fn record_mode_changes(
        &mut self,
        changes: Vec<(usize, usize, Vec<JobId>)>,
        at: u64,
        detected_at: u64,
        shared: &Shared,
    ) {
        if changes.is_empty() {
            return;
        }
        let epoch = shared.mode_epoch.fetch_add(1, Ordering::AcqRel) + 1;
        let decided_at = clock::now_ns().saturating_sub(shared.origin.load(Ordering::Relaxed));
        for (from, to, triggers) in changes {
            self.mode_changes.push(ModeChangeRecord {
                nominal: at,
                from,
                to,
                triggers,
                detected_at,
                decided_at,
                epoch,
            });
        }
    }

    /// Publishes the decision: each core's job, and the views' placement.
    fn place(&mut self, cores: &[Option<JobId>], shared: &Shared) -> Result<(), String> {
        for view in &mut self.views {
            view.running_on = None;
        }
        for (core, id) in cores.iter().enumerate() {
            let Some(id) = *id else { continue };
            if self.stopped.contains(&id) {
                return Err(format!(
                    "job {}#{} placed after the policy stopped it",
                    id.task, id.number
                ));
            }
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
        Ok(())
    }
}
