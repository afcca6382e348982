//! What a replay of a recorded run (`kairos_sim::replay`) checks and applies: each recorded
//! event through the same rules as a live one, refused when the contract's state does not
//! allow it, and each recorded view against the state the events left.

use super::{Contract, Host, Refused};
use crate::job::JobView;
use crate::parts::PartWork;
use crate::policy::Policy;
use crate::record::Reported;
use kairos_model::{Instant, Part, Task};
use std::collections::HashSet;

impl<J> Contract<J> {
    /// Applies one event of a recorded step (a replay), refusing one the contract's state
    /// does not allow: a job released twice, a completion, part end or removal of a job that
    /// is not open, a timer not armed for that instant, an overrun of a job with budget left
    /// or reported twice. `now` is the instant of the step the event leads to: a completion,
    /// part end, overrun or removal at that instant voids the promise, as it does live (a
    /// removal at an earlier instant is a frame's end, after that instant's decision).
    pub fn apply_recorded<H: Host<J>>(
        &mut self,
        now: Instant,
        event: Reported,
        side: impl FnOnce() -> J,
        tasks: &[Task],
        host: &mut H,
        policy: &mut dyn Policy,
    ) -> Result<(), Refused> {
        if voids_promise(&event, now) {
            self.void_promise();
        }
        match event {
            Reported::Released(id, at) => {
                let task = tasks
                    .get(id.task)
                    .ok_or(Refused("a release of no task".into()))?;
                if self.jobs.index_of(id).is_some() {
                    let reason = format!("job {}#{} released twice", task.name, id.number);
                    return Err(Refused(reason));
                }
                let parts = task.imprecise.filter(|_| self.runs_parts);
                let parts = parts.map(|p| PartWork::split(p.demand(), &p));
                self.release(id, at, parts, side(), tasks, host, policy);
            }
            Reported::Completed(id, at) => {
                let i = self.find(id, "a completion")?;
                self.complete(i, at, host, policy);
            }
            Reported::Removed(id, at) => {
                let i = self.find(id, "a removal")?;
                self.remove(i, at, host, policy);
            }
            Reported::PartCompleted(id, ended, at) => {
                let i = self.find(id, "a part end")?;
                if !self.jobs.runs_by_parts(i) || self.jobs.view(i).part != ended {
                    let reason = format!(
                        "an end of the {} part of job {}#{}, which is not in it",
                        ended.name(),
                        id.task,
                        id.number
                    );
                    return Err(Refused(reason));
                }
                if ended == Part::Windup {
                    return Err(Refused("a part end of a wind-up part".into()));
                }
                self.end_part(i, at, tasks, host, policy);
            }
            Reported::Timer(timer, at) => {
                if !self.timers.take(timer, at) {
                    let reason = format!("timer {} fired at {at} but was not armed then", timer.0);
                    return Err(Refused(reason));
                }
                self.fire(timer, at, host, policy);
            }
            Reported::BudgetExhausted(id, at) => {
                let i = self.find(id, "a budget overrun")?;
                if !self.jobs.view(i).budget_left().is_zero() || self.jobs.is_exhausted(i) {
                    let reason = format!(
                        "job {}#{} reported overrunning with budget left or twice",
                        id.task, id.number
                    );
                    return Err(Refused(reason));
                }
                self.overrun(i, at, host, policy);
            }
        }
        Ok(())
    }
    /// Takes the execution each open job received from `recorded` (the view of the step the
    /// next events lead to), for the jobs it shows in their current part: an overrun is
    /// judged, and a cut told from a skip, on what the run measured.
    pub fn take_progress(&mut self, recorded: &[JobView]) {
        for job in recorded {
            let Some(i) = self.jobs.index_of(job.id) else {
                continue;
            };
            if self.jobs.view(i).part == job.part {
                self.jobs.view_mut(i).executed = job.executed;
            }
        }
    }

    /// Checks that `recorded` is the view the contract's state gives: exactly the open jobs,
    /// in the state's mode, each with its release, deadline, part and budget (its task's in
    /// that mode, or its part's), placed where the previous placed decision put it, and each
    /// that has used its whole budget reported overrunning (unless `asked_again` after a mode
    /// change lowered the budget: that is reported at the next instant). Then takes its
    /// execution and its order, so that the policy is asked from the view as recorded.
    pub fn adopt_recorded(
        &mut self,
        recorded: &[JobView],
        mode: usize,
        asked_again: bool,
    ) -> Result<(), Refused> {
        let fail = |reason: String| Err(Refused(reason));
        if mode != self.mode {
            return fail(format!(
                "the view is in mode {mode}, the replay in {}",
                self.mode
            ));
        }
        let shown: HashSet<_> = recorded.iter().map(|j| j.id).collect();
        let open = (self.jobs.views().iter()).all(|j| shown.contains(&j.id));
        if shown.len() != recorded.len() || shown.len() != self.jobs.len() || !open {
            return fail(format!(
                "the view shows {} job(s), {} are released and unfinished",
                recorded.len(),
                self.jobs.len()
            ));
        }
        for job in recorded {
            let i = self.jobs.index_of(job.id).expect("every shown job is open");
            let mine = self.jobs.view(i);
            let (task, number) = (job.id.task, job.id.number);
            if job.running_on != mine.running_on {
                return fail(format!(
                    "job {task}#{number} is shown on {:?}, the previous decision put it on {:?}",
                    job.running_on, mine.running_on
                ));
            }
            if (job.release, job.absolute_deadline, job.part)
                != (mine.release, mine.absolute_deadline, mine.part)
            {
                return fail(format!("job {task}#{number} is shown released at {}, due at {}, in its {} part; its events say {}, {}, {}", job.release, job.absolute_deadline, job.part.name(), mine.release, mine.absolute_deadline, mine.part.name()));
            }
            if job.budget != mine.budget {
                return fail(format!(
                    "job {task}#{number} is shown with budget {}, its task's in mode {} is {}",
                    job.budget, self.mode, mine.budget
                ));
            }
            if job.budget_left().is_zero() && !asked_again && !self.jobs.is_exhausted(i) {
                return fail(format!(
                    "job {task}#{number} used its whole budget, no overrun was reported"
                ));
            }
            self.jobs.view_mut(i).executed = job.executed;
        }
        let order: Vec<_> = recorded.iter().map(|j| j.id).collect();
        self.jobs.reorder(&order);
        Ok(())
    }
}

/// Whether a recorded event is one of the events of an instant that void a promise (the
/// contract's order, steps 1 to 5), at `now`.
fn voids_promise(event: &Reported, now: Instant) -> bool {
    match *event {
        Reported::Completed(_, at)
        | Reported::PartCompleted(_, _, at)
        | Reported::BudgetExhausted(_, at)
        | Reported::Removed(_, at) => at == now,
        Reported::Released(..) | Reported::Timer(..) => false,
    }
}
