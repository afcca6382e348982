//! The engine state a replay keeps: open jobs with their last views, the placement of the last
//! applied decision, the mode, armed timers and stopped jobs.

use kairos_model::{Duration, Instant, Part, Workload};
use kairos_policy::parts::part_budget;
use kairos_policy::{Action, JobId, JobSource, JobView, Policy, Reported, Step, TimerId};
use std::collections::{HashMap, HashSet};

pub(super) struct Replayed<'a> {
    workload: &'a Workload,
    budgets: &'a dyn JobSource,
    runs_parts: bool,
    pub(super) mode: usize,
    last_view: HashMap<JobId, JobView>,
    open: HashSet<JobId>,
    running: Vec<Option<JobId>>,
    timers: HashMap<TimerId, Instant>,
    stopped: HashSet<JobId>,
    /// Jobs whose overrun of their current budget was reported.
    exhausted: HashSet<JobId>,
    /// The instant of a mode change: the next step must ask again then.
    asked_again_at: Option<Instant>,
}

impl<'a> Replayed<'a> {
    pub(super) fn new(
        workload: &'a Workload,
        budgets: &'a dyn JobSource,
        runs_parts: bool,
    ) -> Self {
        Replayed {
            workload,
            budgets,
            runs_parts,
            mode: 0,
            last_view: HashMap::new(),
            open: HashSet::new(),
            running: vec![None; workload.cores],
            timers: HashMap::new(),
            stopped: HashSet::new(),
            exhausted: HashSet::new(),
            asked_again_at: None,
        }
    }

    /// After a mode change, the engine asks again at the same instant.
    /// Returns whether this step asks again after a mode change.
    pub(super) fn ask_again_due(&mut self, at: Instant) -> Result<bool, String> {
        match self.asked_again_at.take() {
            Some(due) if due != at => Err(format!(
                "the mode changed at {due} but the next question is at {at}"
            )),
            due => Ok(due.is_some()),
        }
    }

    fn budget(&self, task: usize) -> Duration {
        let spec = &self.workload.tasks[task];
        match spec.imprecise.filter(|_| self.runs_parts) {
            Some(parts) => part_budget(&parts, Part::Mandatory),
            None => self.budgets.budget(task, spec, self.mode),
        }
    }

    /// Reports one recorded event to the policy, as an engine would. `step` is the step the
    /// event leads to: a job's view at a budget overrun is the one the step shows.
    pub(super) fn report(
        &mut self,
        policy: &mut dyn Policy,
        event: Reported,
        step: &Step,
    ) -> Result<(), String> {
        match event {
            Reported::Released(id, at) => self.release(policy, id, at)?,
            Reported::Completed(id, at) => {
                let view = self.close(id, "completion")?;
                policy.job_completed(at, &view);
            }
            Reported::Removed(id, at) => {
                let view = self.close(id, "removal")?;
                policy.job_removed(at, &view);
            }
            Reported::Timer(timer, at) => {
                if self.timers.remove(&timer) != Some(at) {
                    return Err(format!(
                        "timer {} fired at {at} but was not armed then",
                        timer.0
                    ));
                }
                policy.timer_fired(at, timer);
            }
            Reported::BudgetExhausted(id, at) => {
                let view = (step.jobs.iter()).find(|j| j.id == id && self.open.contains(&id));
                let view = view.ok_or("a budget overrun of a job not in the view")?;
                if !view.budget_left().is_zero() || !self.exhausted.insert(id) {
                    return Err(format!(
                        "job {}#{} reported overrunning with budget left or twice",
                        id.task, id.number
                    ));
                }
                policy.budget_exhausted(at, view);
            }
            Reported::PartCompleted(id, ended, at) => self.part_completed(policy, id, ended, at)?,
        }
        Ok(())
    }

    fn release(&mut self, policy: &mut dyn Policy, id: JobId, at: Instant) -> Result<(), String> {
        let task = self
            .workload
            .tasks
            .get(id.task)
            .ok_or("a release of no task")?;
        if !self.open.insert(id) {
            return Err(format!("job {}#{} released twice", task.name, id.number));
        }
        let view = JobView {
            id,
            release: at,
            absolute_deadline: at + task.deadline,
            part: Part::Mandatory,
            budget: self.budget(id.task),
            executed: Duration::ZERO,
            running_on: None,
            last_core: None,
        };
        policy.job_released(at, &view);
        self.last_view.insert(id, view);
        Ok(())
    }

    /// Removes an open job (completed or removed) and returns its last view.
    fn close(&mut self, id: JobId, what: &str) -> Result<JobView, String> {
        if !self.open.remove(&id) {
            return Err(format!(
                "a {what} of job {}#{}, not open",
                id.task, id.number
            ));
        }
        self.stopped.remove(&id);
        self.exhausted.remove(&id);
        self.last_view
            .remove(&id)
            .ok_or_else(|| format!("a {what} of an unknown job"))
    }

    fn part_completed(
        &mut self,
        policy: &mut dyn Policy,
        id: JobId,
        ended: Part,
        at: Instant,
    ) -> Result<(), String> {
        let view = self
            .last_view
            .get_mut(&id)
            .filter(|_| self.open.contains(&id));
        let view = view.ok_or("a part end of a job not open")?;
        let parts = (self.workload.tasks[id.task].imprecise).ok_or("a part end of a plain task")?;
        let mut next = ended.next().ok_or("a part end of a wind-up part")?;
        if next == Part::Optional && parts.optional.is_zero() {
            next = Part::Windup;
        }
        view.part = next;
        view.budget = part_budget(&parts, next);
        view.executed = Duration::ZERO;
        self.exhausted.remove(&id);
        policy.part_completed(at, view, ended);
        Ok(())
    }

    /// The recorded view holds exactly the open jobs, in the recorded mode, placed where the
    /// previous applied decision put them, each with the budget of its task in that mode; each
    /// that has used its whole budget was reported overrunning (unless a mode change just
    /// lowered the budget: the engine reports that at the next instant).
    pub(super) fn check_view(&mut self, step: &Step, asked_again: bool) -> Result<(), String> {
        if step.mode != self.mode {
            return Err(format!(
                "the view is in mode {}, the replay in {}",
                step.mode, self.mode
            ));
        }
        let shown: HashSet<JobId> = step.jobs.iter().map(|j| j.id).collect();
        if shown.len() != step.jobs.len() || shown != self.open {
            return Err(format!(
                "the view shows {} job(s), {} are released and unfinished",
                step.jobs.len(),
                self.open.len()
            ));
        }
        for job in &step.jobs {
            let placed = self.running.iter().position(|r| *r == Some(job.id));
            if job.running_on != placed {
                return Err(format!(
                    "job {}#{} is shown on {:?}, the previous decision put it on {placed:?}",
                    job.id.task, job.id.number, job.running_on
                ));
            }
            if !job.budget_left().is_zero() {
                self.exhausted.remove(&job.id);
            } else if !asked_again && !self.exhausted.contains(&job.id) {
                return Err(format!(
                    "job {}#{} used its whole budget, no overrun was reported",
                    job.id.task, job.id.number
                ));
            }
            let by_parts = self.runs_parts && self.workload.tasks[job.id.task].imprecise.is_some();
            if !by_parts && job.budget != self.budget(job.id.task) {
                return Err(format!(
                    "job {}#{} is shown with budget {}, its task's in mode {} is {}",
                    job.id.task,
                    job.id.number,
                    job.budget,
                    self.mode,
                    self.budget(job.id.task)
                ));
            }
        }
        Ok(())
    }

    /// `running` as indices into the step's jobs (what [`kairos_policy::Decision::check`] takes).
    pub(super) fn running_index(&self, step: &Step) -> Vec<Option<usize>> {
        (self.running.iter())
            .map(|r| r.and_then(|id| step.jobs.iter().position(|j| j.id == id)))
            .collect()
    }

    /// Carries out the decision's actions and, unless it changed the mode, its placement.
    pub(super) fn apply(&mut self, policy: &mut dyn Policy, step: &Step) -> Result<(), String> {
        let from = self.mode;
        for action in &step.actions {
            match action {
                Action::ArmTimer { timer, at } => _ = self.timers.insert(*timer, *at),
                Action::CancelTimer(timer) => _ = self.timers.remove(timer),
                Action::Discard(id) => _ = self.close(*id, "discard")?,
                Action::Stop(id) => _ = self.stopped.insert(*id),
                // The wind-up part that follows has a budget of its own, whose overrun is
                // reported again (the engines mark exhaustion once per part).
                Action::CutOptional(id) => _ = self.exhausted.remove(id),
                Action::ChangeMode { to, .. } => {
                    policy.mode_changed(step.at, self.mode, *to);
                    self.mode = *to;
                }
            }
        }
        let applied = self.mode == from;
        if applied {
            if let Some(id) = step
                .decision
                .iter()
                .flatten()
                .find(|id| self.stopped.contains(id))
            {
                return Err(format!(
                    "job {}#{} placed after it was stopped",
                    id.task, id.number
                ));
            }
            self.running = step.decision.clone();
        } else {
            self.asked_again_at = Some(step.at);
        }
        for job in &step.jobs {
            let Some(view) = self.last_view.get_mut(&job.id) else {
                continue;
            };
            *view = job.clone();
            if applied {
                view.running_on = self.running.iter().position(|r| *r == Some(job.id));
                view.last_core = view.running_on.or(view.last_core);
            }
        }
        Ok(())
    }
}
