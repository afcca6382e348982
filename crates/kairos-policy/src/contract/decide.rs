//! Asking the policy and carrying out its decision: the check, the actions in order, the
//! question asked again after a mode change, the promise, and the placement of servers and
//! jobs.

use super::{Contract, Exit, Host, Refused};

/// What became of an answer ([`Contract::answer`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// It changed the mode: the policy is asked again at the same instant.
    AskAgain,
    /// It was placed, with this promise.
    Placed(Option<Ahead>),
}
use crate::decision::{Action, Ahead, Decision};
use crate::job::JobId;
use crate::policy::Policy;
use kairos_model::{Instant, Task};
use kairos_trace::TraceEvent;

impl<J> Contract<J> {
    /// Asks for decisions at `now` until one leaves the mode as it is (at most `2 L + 2` for
    /// `L` levels), carrying out each one's actions; places the last one's servers and jobs
    /// unless `now` is the end of the run. Returns its promise, if any.
    pub fn decide<H: Host<J>>(
        &mut self,
        now: Instant,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<Option<Ahead>, Refused> {
        let most = 2 * self.levels + 2;
        for asked in 0..most {
            let decision = self.ask(now, tasks, host, policy)?;
            if let Answer::Placed(ahead) =
                self.answer(now, asked == 0, decision, tasks, host, policy)?
            {
                return Ok(ahead);
            }
        }
        Err(Refused(format!(
            "the criticality mode changed {most} times at one instant"
        )))
    }

    /// Carries out `decision`, the answer to a question at `now` (`first`: the instant's first,
    /// not asked again after a mode change): its actions, then, unless they changed the mode,
    /// its promise is checked against the previous one and its servers and jobs are placed
    /// (unless `now` is the end of the run).
    pub fn answer<H: Host<J>>(
        &mut self,
        now: Instant,
        first: bool,
        mut decision: Decision,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<Answer, Refused> {
        let mode = self.mode;
        self.carry_out(now, &decision.actions, tasks, host, policy)?;
        if self.mode != mode {
            return Ok(Answer::AskAgain);
        }
        let inside = now < self.end;
        if first && inside {
            self.keep_promise(now, &decision.cores)?;
        }
        // Into the kept promise's own vector: a dispatcher on real cores decides here, where
        // nothing may allocate.
        if let Some(ahead) = &decision.ahead {
            self.promised.at = ahead.at;
            self.promised.cores.clone_from(&ahead.cores);
        }
        self.promise_stands = decision.ahead.is_some();
        if inside {
            self.place(now, &decision, host)?;
        }
        // The policy gets its vectors back; the promise is the caller's.
        let ahead = decision.ahead.take();
        policy.recycle(decision);
        Ok(Answer::Placed(ahead))
    }

    /// One question: the policy decides from the view at `now`, and the decision is checked
    /// against it ([`Decision::check`], [`Decision::check_servers`]).
    pub fn ask<H: Host<J>>(
        &mut self,
        now: Instant,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<Decision, Refused> {
        let view = self.view(now, tasks);
        let decision = policy.decide(&view);
        host.asked(now, self.mode, view.jobs, &decision);
        (decision.check(&view, self.jobs.running()))
            .and_then(|()| decision.check_servers(&view, self.servers.specs()))
            .map_err(Refused)?;
        Ok(decision)
    }

    /// Carries out `actions` at `now`, in order.
    pub fn carry_out<H: Host<J>>(
        &mut self,
        now: Instant,
        actions: &[Action],
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<(), Refused> {
        for action in actions {
            match action {
                Action::ArmTimer { timer, at } if *at > now => self.timers.arm(*timer, *at),
                Action::ArmTimer { at, .. } => {
                    return Err(Refused(format!("a timer armed for {at}, not after now")))
                }
                Action::CancelTimer(timer) => self.timers.cancel(*timer),
                Action::Discard(id) => self.discard(*id, now, host)?,
                Action::Stop(id) => self.stop(*id, now, host)?,
                Action::CutOptional(id) => self.cut_optional(*id, now, tasks, host)?,
                Action::ChangeMode { to, triggers } => {
                    self.change_mode(*to, triggers, now, tasks, host, policy)?
                }
            }
        }
        Ok(())
    }

    /// Removes the job unfinished on the policy's request: discarded, not a miss.
    fn discard<H: Host<J>>(
        &mut self,
        id: JobId,
        now: Instant,
        host: &mut H,
    ) -> Result<(), Refused> {
        let i = self.find(id, "discard")?;
        let (view, side) = self.jobs.remove(i);
        host.left(now, &view, side, Exit::Discarded);
        host.record(TraceEvent::Discard {
            task: id.task,
            job: id.number,
            at: now,
        });
        Ok(())
    }

    /// Marks the job stopped: no decision may place it again.
    fn stop<H: Host<J>>(&mut self, id: JobId, now: Instant, host: &mut H) -> Result<(), Refused> {
        let i = self.find(id, "stop")?;
        self.jobs.marks_mut(i).stopped = true;
        let (view, side) = self.jobs.parts_mut(i);
        host.stopped(now, view, side);
        Ok(())
    }

    /// Enters mode `to`: every job's budget becomes its task's budget there, and a job with
    /// budget left again may overrun it again.
    fn change_mode<H: Host<J>>(
        &mut self,
        to: usize,
        triggers: &[JobId],
        now: Instant,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<(), Refused> {
        let from = self.mode;
        if to >= self.levels || to == from {
            return Err(Refused(format!(
                "a change of mode from {from} to {to} ({} levels)",
                self.levels
            )));
        }
        self.mode = to;
        self.jobs.note_all();
        for i in 0..self.jobs.len() {
            let task = self.jobs.view(i).id.task;
            let view = self.jobs.view_mut(i);
            view.budget = host.budget(task, &tasks[task], to);
            let left = !view.budget_left().is_zero();
            self.jobs.marks_mut(i).exhausted &= !left;
        }
        host.record(TraceEvent::ModeChange { at: now, from, to });
        host.mode_changed(now, from, to, triggers);
        policy.mode_changed(now, from, to);
        Ok(())
    }

    /// Refuses a decision that breaks the previous decision's promise for this instant (only
    /// asked when nothing but replenishments, releases and timers happened and the mode did not
    /// change).
    fn keep_promise(&mut self, now: Instant, cores: &[Option<JobId>]) -> Result<(), Refused> {
        let stands = std::mem::replace(&mut self.promise_stands, false);
        match Some(&self.promised).filter(|_| stands) {
            Some(ahead) if ahead.at == now && ahead.cores != cores => Err(Refused(format!(
                "the policy promised {:?} for this instant and decided {cores:?}, with nothing \
                 but releases and timers in between",
                ahead.cores
            ))),
            _ => Ok(()),
        }
    }

    /// The promise of the last decision placed, if it still stands.
    pub fn promised(&self) -> Option<&Ahead> {
        Some(&self.promised).filter(|_| self.promise_stands)
    }

    /// Places `decision`'s servers, then its jobs: the running jobs it moves, leaves out or
    /// stopped leave their cores first, then the jobs it puts on free cores start (a job it
    /// discarded leaves its core idle). Only jobs that change core are looked up, so a
    /// decision that keeps its jobs costs O(m).
    pub fn place<H: Host<J>>(
        &mut self,
        now: Instant,
        decision: &Decision,
        host: &mut H,
    ) -> Result<(), Refused> {
        self.servers
            .place(now, &decision.servers, &mut self.jobs, host);
        for (core, want) in decision.cores.iter().enumerate() {
            let Some(i) = self.jobs.running()[core] else {
                continue;
            };
            if *want != Some(self.jobs.view(i).id) || self.jobs.is_stopped(i) {
                let (view, side) = self.jobs.parts_mut(i);
                host.preempted(now, view, side);
                self.jobs.unplace(i);
            }
        }
        for (core, want) in decision.cores.iter().enumerate() {
            if self.jobs.running()[core].is_some() {
                continue;
            }
            let Some(i) = want.and_then(|id| self.jobs.index_of(id)) else {
                continue;
            };
            if self.jobs.is_stopped(i) {
                let id = self.jobs.view(i).id;
                return Err(Refused(format!(
                    "job {}#{} placed after the policy stopped it",
                    id.task, id.number
                )));
            }
            let (view, side) = self.jobs.parts_mut(i);
            host.switched_in(now, view, side, core);
            self.jobs.place(i, core);
        }
        Ok(())
    }
}
