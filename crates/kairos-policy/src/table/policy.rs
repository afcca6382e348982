//! The table executor as a policy: G-RES and G-MCRES (Pautet, Robert, Tardieu, "Litmus-RT
//! plugins for global static scheduling of mixed criticality systems", sections 5 and 6;
//! `notes/mixed-criticality.md`, "Online"). It runs in any engine of the contract, jobs coming
//! from the system's DAGs ([`TablePlan::workload`]).
//!
//! Semantics, shared with the table synthesizer and validator:
//! - the system runs the table of the current mode; the mode starts at the lowest level and
//!   returns to it at every hyper-period boundary (section 6.3);
//! - a job runs only inside its intervals of the current table, while released, unfinished and
//!   neither stopped nor discarded; it may move between cores at an interval boundary, also when
//!   several jobs swap cores at one instant (a cyclic instantaneous migration, section 5.3: one
//!   decision moves them all at once);
//! - a budget overrun is detected at the end of a job's last interval in the current mode's
//!   table when the job is still unfinished (section 6.1). If its task's criticality is above the
//!   mode, the mode rises by exactly one at that instant, however many jobs overran there
//!   (Algorithm 1's compare-and-set), and every job of a task below the new mode is discarded.
//!   Otherwise the job is stopped (budget enforcement) and misses its deadline;
//! - kairos decision: right after a rise, a released unfinished job that has no interval left
//!   in the new table (possible only when its WCETs at the two levels are equal) is checked at
//!   once, as if its last interval ended there; this may raise the mode again, one level per
//!   decision. The plugin would leave such a job waiting for its next hyper-period.
//!
//! At a hyper-period boundary the jobs of the ending hyper-period are checked first (their
//! overruns at the boundary may still raise the mode), then the mode returns to the lowest
//! level, then the new hyper-period's jobs are placed. One policy timer wakes the engine at
//! every instant of the plan where a table may change its placement, and every decision
//! promises the placement there ([`crate::Ahead`]): the table's, in the same mode (the lowest
//! at a hyper-period boundary), with the jobs released then, as if no job completed or
//! overran before it.

use std::collections::HashSet;
use std::sync::Arc;

use kairos_model::{Arrival, Duration, Instant, Workload};

use super::plan::TablePlan;
use crate::{Action, Ahead, Decision, JobId, JobView, Policy, Refusal, TimerId, View};

const BOUNDS: TimerId = TimerId(0);

/// G-RES (one level) and G-MCRES (several) on a resolved plan.
pub struct TablePolicy {
    plan: Arc<TablePlan>,
    /// Set by a rise of the mode, until a decision finds nothing more to check.
    rising: bool,
    /// The boundary instant at which the mode last returned to the lowest level.
    returned_at: Option<Instant>,
    /// Jobs this policy stopped that are still in the engine (until their hyper-period ends).
    stopped: HashSet<JobId>,
    /// Per job key, whether the job of the current hyper-period is in the view (scratch).
    present: Vec<bool>,
}

impl TablePolicy {
    pub fn new(plan: Arc<TablePlan>) -> TablePolicy {
        let keys = plan.key_count();
        TablePolicy {
            plan,
            rising: false,
            returned_at: None,
            stopped: HashSet::new(),
            present: vec![false; keys],
        }
    }

    /// Hyper-period of a job and its key.
    fn locate(&self, id: JobId) -> (u64, usize) {
        let per = self.plan.jobs_per_hyperperiod(id.task);
        let key = self.plan.tasks[id.task].first_key + (id.number % per) as usize;
        (id.number / per, key)
    }

    fn criticality(&self, id: JobId) -> usize {
        self.plan.tasks[id.task].criticality()
    }

    /// Whether `job`'s budget in the mode's table ends now: its last interval ends now or, right
    /// after a rise, it has no interval left. Jobs released now never qualify, and the ending
    /// hyper-period's jobs stop counting once the mode returned at the boundary.
    fn overran(&self, job: &JobView, now: Instant, mode: usize) -> bool {
        let (frame, key) = self.locate(job.id);
        let h = self.plan.hyperperiod;
        let rel = now.as_nanos() - frame * h;
        if job.release == now || (rel == h && self.returned_at == Some(now)) {
            return false;
        }
        let last_end = self.plan.tables[mode].last_end[key];
        if self.rising {
            last_end.is_none_or(|end| end <= rel)
        } else {
            last_end == Some(rel)
        }
    }

    /// Overruns of this instant: the stops and, if any overrun is above the mode, the rise.
    fn overruns(&self, view: &View<'_>) -> Vec<Action> {
        let candidates = (view.jobs.iter())
            .filter(|j| !self.stopped.contains(&j.id))
            .filter(|j| self.overran(j, view.now, view.mode));
        let mut candidates: Vec<JobId> = candidates.map(|j| j.id).collect();
        // In job order, as the plugin's per-job records are: the triggers are reported so.
        candidates.sort_unstable_by_key(|id| (id.task, id.number));
        let (triggers, stops): (Vec<JobId>, Vec<JobId>) =
            (candidates.into_iter()).partition(|&id| self.criticality(id) > view.mode);
        let mut actions: Vec<Action> = stops.into_iter().map(Action::Stop).collect();
        if !triggers.is_empty() {
            actions.push(Action::ChangeMode {
                to: view.mode + 1,
                triggers,
            });
        }
        actions
    }

    /// The jobs the table of `mode` runs at `at`, one per core: jobs of the view that are not
    /// stopped and, for an instant after now, the jobs released exactly then (a promise names
    /// them: their release is known).
    fn placement(&mut self, view: &View<'_>, at: Instant, mode: usize) -> Vec<Option<JobId>> {
        let h = self.plan.hyperperiod;
        let (frame, rel) = (at.as_nanos() / h, at.as_nanos() % h);
        self.present.fill(false);
        for job in view.jobs.iter().filter(|j| !self.stopped.contains(&j.id)) {
            let (job_frame, key) = self.locate(job.id);
            self.present[key] |= job_frame == frame;
        }
        let later = at > view.now;
        let plan = &self.plan;
        let table = &plan.tables[mode];
        let released_then =
            |task: usize, job: u64| later && plan.release(plan.tasks[task].dag, job) == rel;
        (0..view.cores)
            .map(|core| table.slot_at(core, rel))
            .map(|slot| slot.filter(|s| self.present[s.key] || released_then(s.task, s.job)))
            .map(|slot| {
                slot.map(|s| JobId {
                    task: s.task,
                    number: plan.global_job(s.task, frame, s.job),
                })
            })
            .collect()
    }

    /// The placement at the next instant of the plan if nothing happens before it: the mode
    /// stays, or returns to the lowest level at a hyper-period boundary.
    fn promise(&mut self, view: &View<'_>, mode: usize) -> Ahead {
        let at = self.next_instant(view.now);
        let at_boundary = at.as_nanos().is_multiple_of(self.plan.hyperperiod);
        let mode = if at_boundary { 0 } else { mode };
        Ahead {
            at,
            cores: self.placement(view, at, mode),
        }
    }

    /// The next instant of the plan after `now`.
    fn next_instant(&self, now: Instant) -> Instant {
        let h = self.plan.hyperperiod;
        let (base, rel) = (now.as_nanos() / h * h, now.as_nanos() % h);
        let instants = &self.plan.instants;
        let next = instants
            .get(instants.partition_point(|&i| i <= rel))
            .map_or(h, |&i| i);
        Instant::from_nanos(base + next)
    }
}

impl Policy for TablePolicy {
    fn name(&self) -> &'static str {
        "table"
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        let expected = self.plan.workload();
        if workload.cores != expected.cores || workload.tasks != expected.tasks {
            return Err(Refusal(
                "the table policy runs the tasks of its own system (TablePlan::workload)".into(),
            ));
        }
        Ok(())
    }

    fn mode_changed(&mut self, now: Instant, from: usize, to: usize) {
        self.rising = to > from;
        if to < from {
            self.returned_at = Some(now);
        }
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.stopped.retain(|&id| view.job(id).is_some());
        let mut actions = self.overruns(view);
        let rises = actions
            .iter()
            .any(|a| matches!(a, Action::ChangeMode { .. }));
        self.rising &= rises;
        let h = self.plan.hyperperiod;
        let at_boundary = view.now.as_nanos().is_multiple_of(h) && view.now > Instant::ZERO;
        let returning = at_boundary && self.returned_at != Some(view.now);
        if !rises && view.mode > 0 && returning {
            actions.push(Action::ChangeMode {
                to: 0,
                triggers: Vec::new(),
            });
        }
        let to = (actions.iter()).find_map(|a| match a {
            Action::ChangeMode { to, .. } => Some(*to),
            _ => None,
        });
        let mode = to.unwrap_or(view.mode);
        // Jobs released at a boundary belong to the next hyper-period, which starts at the
        // lowest level: a rise at the boundary discards only the ending one's jobs.
        let below = (view.jobs.iter())
            .filter(|j| self.criticality(j.id) < mode)
            .filter(|j| !(returning && j.release == view.now));
        actions.extend(below.map(|j| Action::Discard(j.id)));
        for action in &actions {
            if let Action::Stop(id) = action {
                self.stopped.insert(*id);
            }
        }
        let mut decision = Decision::idle(view.cores);
        if to.is_none() {
            decision.cores = self.placement(view, view.now, mode);
            decision.ahead = Some(self.promise(view, mode));
        }
        actions.push(Action::ArmTimer {
            timer: BOUNDS,
            at: self.next_instant(view.now),
        });
        decision.actions = actions;
        decision
    }
}

impl TablePlan {
    /// The system's tasks as the engines run them: `dag/task`, released every period of its DAG
    /// from 0, with the DAG's deadline and its WCET at its own level (the budget in the highest
    /// mode; an engine shows the budget of the current mode).
    pub fn workload(&self) -> Workload {
        let tasks = self.tasks.iter().map(|t| {
            let dag = &self.dags[t.dag];
            kairos_model::Task {
                name: t.name.clone(),
                wcet: Duration::from_nanos(t.wcet[t.criticality()]),
                bcet: Duration::from_nanos(t.wcet[0]),
                period: Duration::from_nanos(dag.period),
                deadline: Duration::from_nanos(dag.deadline),
                offset: Duration::ZERO,
                arrival: Arrival::Periodic,
                priority: None,
                core: None,
                imprecise: None,
            }
        });
        Workload {
            name: None,
            cores: self.cores,
            tasks: tasks.collect(),
            overheads: Default::default(),
        }
    }
}
