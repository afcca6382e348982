//! G-RMWP and P-RMWP: semi-fixed-priority scheduling of imprecise tasks (H. Chishiro and N. Yamasaki: the
//! experimental evaluation of global and partitioned semi-fixed-priority scheduling in the
//! RT-Est OS, sections 4 and 5; RMWP is "rate monotonic with wind-up part").
//!
//! Part-level fixed priority: mandatory and wind-up parts run at their task's rate-monotonic
//! priority, optional parts below every mandatory and wind-up part, in rate-monotonic order
//! among themselves. A job's optional part is cut at its optional deadline (the task's
//! `optional_deadline`, which the analysis stage computes, `kairos_analysis::rmwp`), and its
//! wind-up part never starts before it. G-RMWP runs the `m` most important ready parts on `m`
//! cores from one queue set; P-RMWP binds each task to a core (the file's `core` fields, as the
//! analysis' partitioning writes them) and runs one queue set per core. Plain tasks are
//! imprecise tasks with a mandatory part only.
//!
//! The queues and the three functions of the paper's Algorithms 1-3 are in `queues`; they run
//! in the contract's callbacks (`end_mandatory` and `end_optional` in
//! [`Policy::part_completed`], `terminate_optional` in [`Policy::timer_fired`]), so an engine
//! that times callbacks measures each of them.

mod queues;

use super::core_order::CoreOrder;
use super::fixed_priority::{PriorityOrder, Rank};
use super::partition::assign_cores;
use super::placement::place_on_cores;
use crate::decision::{Action, Decision, TimerId};
use crate::job::{JobId, JobView};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Duration, Instant, Part, Workload};
use queues::{end_mandatory, end_optional, terminate_optional, Key, OdQueue, Pending, Queues};

/// The one timer: armed at the head of the optional-deadline queue.
const OPTIONAL_DEADLINE: TimerId = TimerId(0);

/// Global or partitioned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Partitioned,
}

pub struct Rmwp {
    scope: Scope,
    /// Rate-monotonic rank of each task.
    rank: Vec<Rank>,
    /// Relative optional deadline of each imprecise task.
    optional_deadline: Vec<Option<Duration>>,
    /// The queue set of each task (its core under P-RMWP; 0 under G-RMWP).
    scheduler_of_task: Vec<usize>,
    schedulers: Vec<Queues>,
    odq: OdQueue,
    pending: Pending,
    armed: Option<Instant>,
}

impl Rmwp {
    pub fn new(scope: Scope) -> Self {
        Rmwp {
            scope,
            rank: Vec::new(),
            optional_deadline: Vec::new(),
            scheduler_of_task: Vec::new(),
            schedulers: Vec::new(),
            odq: OdQueue::default(),
            pending: Pending::default(),
            armed: None,
        }
    }

    fn key(&self, job: &JobView) -> Key {
        (
            self.rank[job.id.task].tasks_above(),
            job.id.number,
            job.id.task,
        )
    }

    fn queues(&mut self, job: &JobView) -> &mut Queues {
        &mut self.schedulers[self.scheduler_of_task[job.id.task]]
    }

    /// The absolute optional deadline of `job` (its release for a plain task: none to wait).
    fn optional_deadline(&self, job: &JobView) -> Instant {
        let relative = self.optional_deadline[job.id.task].unwrap_or(Duration::ZERO);
        job.release + relative
    }

    /// Re-arms the timer at the head of the optional-deadline queue, if it moved.
    fn timer_actions(&mut self) -> Vec<Action> {
        let head = self.odq.head();
        if head == self.armed {
            return Vec::new();
        }
        self.armed = head;
        vec![match head {
            Some(at) => Action::ArmTimer {
                timer: OPTIONAL_DEADLINE,
                at,
            },
            None => Action::CancelTimer(OPTIONAL_DEADLINE),
        }]
    }

    /// The job each core runs: G-RMWP the `m` first of RTQ then NRTQ, P-RMWP each core's first.
    fn choose(&self, view: &View<'_>) -> Vec<Option<JobId>> {
        match self.scope {
            Scope::Global => {
                let ids: Vec<JobId> = self.schedulers[0].ready().take(view.cores).collect();
                let chosen: Option<Vec<&JobView>> = ids.iter().map(|&id| view.job(id)).collect();
                match chosen {
                    Some(chosen) => place_on_cores(view.cores, chosen.into_iter()),
                    // A queued job the view lacks is a broken contract: hand it to the engine,
                    // which refuses the decision with the reason, rather than hide it.
                    None => (0..view.cores).map(|c| ids.get(c).copied()).collect(),
                }
            }
            Scope::Partitioned => (0..view.cores)
                .map(|core| self.schedulers.get(core).and_then(|q| q.ready().next()))
                .collect(),
        }
    }
}

impl Policy for Rmwp {
    fn name(&self) -> &'static str {
        match self.scope {
            Scope::Global => "grmwp",
            Scope::Partitioned => "prmwp",
        }
    }

    /// Partitioned, each core's mandatory and wind-up parts in rate-monotonic order; the
    /// optional parts, below them all, are best effort that no real-time part waits behind.
    fn core_order(&self) -> Option<CoreOrder> {
        (self.scope == Scope::Partitioned).then(|| CoreOrder::Ranks(self.rank.clone()))
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.rank = PriorityOrder::RateMonotonic.ranks(workload);
        self.optional_deadline = Vec::new();
        for task in &workload.tasks {
            let od = match &task.imprecise {
                Some(parts) => Some(parts.optional_deadline.ok_or_else(|| {
                    Refusal(format!(
                        "task `{}` has no optional deadline: give optional_deadline, or let \
                         `kairos simulate` and `kairos run` compute it (kairos_analysis::rmwp)",
                        task.name
                    ))
                })?),
                None => None,
            };
            self.optional_deadline.push(od);
        }
        let (scheduler_of_task, count) = match self.scope {
            Scope::Global => (vec![0; workload.tasks.len()], 1),
            Scope::Partitioned => {
                let assignment = assign_cores(workload).map_err(|e| Refusal(e.to_string()))?;
                (assignment.core_of_task, workload.cores)
            }
        };
        self.scheduler_of_task = scheduler_of_task;
        self.schedulers = vec![Queues::default(); count];
        Ok(())
    }

    fn runs_parts(&self) -> bool {
        true
    }

    fn job_released(&mut self, _now: Instant, job: &JobView) {
        let key = self.key(job);
        self.queues(job).rtq.insert(key);
    }

    fn job_completed(&mut self, _now: Instant, job: &JobView) {
        let key = self.key(job);
        self.queues(job).rtq.remove(&key);
    }

    fn job_removed(&mut self, _now: Instant, job: &JobView) {
        let (key, od) = (self.key(job), self.optional_deadline(job));
        let queues = self.queues(job);
        for queue in [&mut queues.rtq, &mut queues.nrtq, &mut queues.sq] {
            queue.remove(&key);
        }
        self.odq.remove(od, key);
        self.pending.cuts.retain(|&id| id != job.id);
    }

    fn part_completed(&mut self, now: Instant, job: &JobView, ended: Part) {
        let (key, od) = (self.key(job), self.optional_deadline(job));
        let scheduler = self.scheduler_of_task[job.id.task];
        let queues = &mut self.schedulers[scheduler];
        match ended {
            Part::Mandatory => {
                let has_optional = job.part == Part::Optional;
                let args = (key, now, od, has_optional);
                end_mandatory(queues, &mut self.odq, &mut self.pending, args);
            }
            Part::Optional => end_optional(queues, &mut self.odq, (key, now, od)),
            // Engines report the end of a wind-up part as the job's completion.
            Part::Windup => {}
        }
    }

    fn timer_fired(&mut self, now: Instant, timer: TimerId) {
        if timer != OPTIONAL_DEADLINE {
            return;
        }
        self.armed = None;
        let of = &self.scheduler_of_task;
        terminate_optional(
            &mut self.odq,
            &mut self.pending,
            now,
            &mut self.schedulers,
            |t| of[t],
        );
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut actions: Vec<Action> = (self.pending.cuts.drain(..))
            .map(Action::CutOptional)
            .collect();
        actions.extend(self.timer_actions());
        Decision {
            servers: Vec::new(),
            cores: self.choose(view),
            actions,
            ahead: None,
        }
    }
}

#[cfg(test)]
mod tests;
