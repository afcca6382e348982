//! The events of an instant, each applied to the contract's state and reported to the policy
//! (and to the engine's [`Host::reported`]) the same way in every engine.

use super::{Contract, Exit, Host, Refused};
use crate::decision::TimerId;
use crate::job::{JobId, JobView};
use crate::parts::PartWork;
use crate::policy::Policy;
use crate::record::Reported;
use kairos_model::{Duration, Instant, Part, Task};

impl<J> Contract<J> {
    /// The index of open job `id`, or the refusal of `what` (an action or a recorded event)
    /// naming a job that is not open.
    pub fn find(&self, id: JobId, what: &str) -> Result<usize, Refused> {
        self.jobs.index_of(id).ok_or_else(|| {
            Refused(format!(
                "{what} of job {}#{}, not released or finished",
                id.task, id.number
            ))
        })
    }

    /// The budget a job of `task` released now gets: its mandatory part's when it runs by
    /// parts, else its job source's in the current mode.
    pub fn release_budget<H: Host<J>>(&self, task: usize, spec: &Task, host: &H) -> Duration {
        match spec.imprecise.filter(|_| self.runs_parts) {
            Some(parts) => parts.mandatory,
            None => host.budget(task, spec, self.mode),
        }
    }

    /// Releases job `id` at `at` with the engine's `side`; `parts` is the work of each of its
    /// parts when it runs by parts (the policy runs parts and its task is imprecise). Returns
    /// its index.
    #[allow(clippy::too_many_arguments)]
    pub fn release<H: Host<J>>(
        &mut self,
        id: JobId,
        at: Instant,
        parts: Option<PartWork>,
        side: J,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> usize {
        let spec = &tasks[id.task];
        let view = JobView {
            id,
            release: at,
            absolute_deadline: at + spec.deadline,
            part: Part::Mandatory,
            budget: self.release_budget(id.task, spec, host),
            executed: Duration::ZERO,
            running_on: None,
            last_core: None,
        };
        host.reported(Reported::Released(id, at));
        policy.job_released(at, &view);
        self.jobs.push(view, parts.map(|work| (work, at)), side)
    }

    /// Job `i` executed all its work: it leaves, and the policy is told at `at`.
    pub fn complete<H: Host<J>>(
        &mut self,
        i: usize,
        at: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> JobView {
        self.leave(i, at, Exit::Completed, host, policy)
    }

    /// Job `i` leaves unfinished by no decision of the policy (aborted at its deadline, or
    /// forgotten at the end of its frame); the policy is told at `at`.
    pub fn remove<H: Host<J>>(
        &mut self,
        i: usize,
        at: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> JobView {
        self.leave(i, at, Exit::Removed, host, policy)
    }

    fn leave<H: Host<J>>(
        &mut self,
        i: usize,
        at: Instant,
        exit: Exit,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> JobView {
        let (view, side) = self.jobs.remove(i);
        host.left(at, &view, side, exit);
        match exit {
            Exit::Completed => {
                host.reported(Reported::Completed(view.id, at));
                policy.job_completed(at, &view);
            }
            Exit::Removed => {
                host.reported(Reported::Removed(view.id, at));
                policy.job_removed(at, &view);
            }
            Exit::Discarded => {}
        }
        view
    }

    /// Job `i`'s current part, not its last, executed all its work at `at`: the job moves on
    /// to its next part, and the policy is told.
    pub fn end_part<H: Host<J>>(
        &mut self,
        i: usize,
        at: Instant,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) {
        let ended = self.advance_part(i, at, false, tasks, host);
        let view = self.jobs.view(i);
        host.reported(Reported::PartCompleted(view.id, ended, at));
        policy.part_completed(at, view, ended);
    }

    /// Reports every open job that has executed its whole budget with work left, once per
    /// budget, in view order; returns whether any did.
    pub(super) fn report_overruns<H: Host<J>>(
        &mut self,
        at: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> bool {
        // Only a job noted since the last check, or running, can have come to its budget's
        // end: the others were checked then. The policy's callback changes no job.
        let watched = self.jobs.watched();
        let count = watched.as_ref().map_or(self.jobs.len(), Vec::len);
        let mut any = false;
        for k in 0..count {
            let i = watched.as_ref().map_or(k, |watched| watched[k]);
            if !self.jobs.is_exhausted(i) && self.jobs.view(i).budget_left().is_zero() {
                any = true;
                self.overrun(i, at, host, policy);
            }
        }
        if let Some(watched) = watched {
            self.jobs.done_with(watched);
        }
        any
    }

    /// Reports that job `i` overran its budget at `at`.
    pub(super) fn overrun<H: Host<J>>(
        &mut self,
        i: usize,
        at: Instant,
        host: &mut H,
        p: &mut dyn Policy,
    ) {
        self.jobs.marks_mut(i).exhausted = true;
        let view = self.jobs.view(i);
        host.reported(Reported::BudgetExhausted(view.id, at));
        p.budget_exhausted(at, view);
    }

    /// Fires every timer due by `at`, by instant then arming order, each at its own instant;
    /// returns whether any fired.
    pub(super) fn fire_due_timers<H: Host<J>>(
        &mut self,
        at: Instant,
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> bool {
        let mut any = false;
        while let Some((timer, when)) = self.timers.pop_due(at) {
            any = true;
            self.fire(timer, when, host, policy);
        }
        any
    }

    pub(super) fn fire<H: Host<J>>(
        &mut self,
        timer: TimerId,
        at: Instant,
        host: &mut H,
        p: &mut dyn Policy,
    ) {
        host.reported(Reported::Timer(timer, at));
        p.timer_fired(at, timer);
    }
}
