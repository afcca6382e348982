//! The figures of a table run ([`TableMetrics`]) computed from the run's events as they happen,
//! with the definitions of [`super::metrics`]. State is kept per job key of the plan for two
//! hyper-periods (the ending one and the current one, which meet at a boundary), so memory does
//! not grow with the duration.

use kairos_model::{Duration, Instant};
use kairos_policy::table::TablePlan;
use kairos_policy::JobId;
use kairos_trace::TraceEvent;

use super::metrics::{LevelCounts, MissRecord, ModeChangeRecord, TableMetrics};
use crate::observe::Observer;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Ready,
    Completed,
    Stopped,
    Discarded,
}

/// What the figures need to know of one job.
#[derive(Clone, Copy, Debug)]
struct JobState {
    number: u64,
    status: Status,
    within_wcet: bool,
    missed: bool,
    violated_precedence: bool,
    last_core: Option<usize>,
    last_stop: Instant,
}

pub(super) struct TableObserver<'p> {
    plan: &'p TablePlan,
    /// Per hyper-period parity, per job key: the job of that hyper-period, once released.
    jobs: [Vec<Option<JobState>>; 2],
    mode: usize,
    /// The mode before the last change.
    from: usize,
    mode_since: Instant,
    /// A return to the lowest level at a boundary, and the mode before it: misses at that
    /// instant belong to the ending hyper-period's mode.
    returned: Option<(Instant, usize)>,
    max_mode: usize,
    pub metrics: TableMetrics,
}

impl<'p> TableObserver<'p> {
    pub fn new(plan: &'p TablePlan, duration: Duration) -> Self {
        let levels = &plan.levels;
        TableObserver {
            plan,
            jobs: [vec![None; plan.key_count()], vec![None; plan.key_count()]],
            mode: 0,
            from: 0,
            mode_since: Instant::ZERO,
            returned: None,
            max_mode: 0,
            metrics: TableMetrics {
                policy: "table".into(),
                cores: plan.cores,
                levels: levels.clone(),
                duration_ns: duration.as_nanos(),
                hyperperiod_ns: plan.hyperperiod,
                deadline_misses_by_level: LevelCounts::zeros(levels),
                deadline_misses_by_mode: LevelCounts::zeros(levels),
                jobs_discarded_by_level: LevelCounts::zeros(levels),
                time_in_mode_ns: LevelCounts::zeros(levels),
                ..TableMetrics::default()
            },
        }
    }

    /// The slot of job `number` of `task`.
    fn slot(&mut self, task: usize, number: u64) -> &mut Option<JobState> {
        let per = self.plan.jobs_per_hyperperiod(task);
        let key = self.plan.tasks[task].first_key + (number % per) as usize;
        &mut self.jobs[((number / per) % 2) as usize][key]
    }

    /// The state of job `number` of `task`, if it is released and still remembered.
    fn job(&mut self, task: usize, number: u64) -> Option<&mut JobState> {
        self.slot(task, number)
            .as_mut()
            .filter(|j| j.number == number)
    }

    fn set_status(&mut self, task: usize, number: u64, status: Status) {
        if let Some(job) = self.job(task, number) {
            job.status = status;
        }
    }

    fn criticality(&self, task: usize) -> usize {
        self.plan.tasks[task].criticality()
    }

    /// The figures at the end of the run.
    pub fn finish(mut self, end: Instant) -> TableMetrics {
        (self.metrics.time_in_mode_ns).add(self.mode, (end - self.mode_since).as_nanos());
        self.metrics.unfinished_jobs = (self.jobs.iter().flatten().flatten())
            .filter(|j| matches!(j.status, Status::Ready | Status::Stopped) && !j.missed)
            .count() as u64;
        self.metrics.max_mode = self.plan.levels[self.max_mode].clone();
        self.metrics
    }

    fn miss(&mut self, task: usize, number: u64, at: Instant) {
        let mode = match self.returned {
            Some((when, before)) if when == at => before,
            _ => self.mode,
        };
        let level = self.criticality(task);
        let Some(job) = self.job(task, number) else {
            return;
        };
        job.missed = true;
        let guaranteed = level >= mode && job.within_wcet;
        let metrics = &mut self.metrics;
        metrics.deadline_misses += 1;
        metrics.deadline_misses_by_level.add(level, 1);
        metrics.deadline_misses_by_mode.add(mode, 1);
        metrics.guaranteed_misses += u64::from(guaranteed);
        metrics.misses.push(MissRecord {
            task: self.plan.tasks[task].name.clone(),
            job: number,
            deadline_ns: at.as_nanos(),
            mode: self.plan.levels[mode].clone(),
            guaranteed,
        });
    }

    fn change_mode(&mut self, at: Instant, from: usize, to: usize) {
        (self.metrics.time_in_mode_ns).add(from, (at - self.mode_since).as_nanos());
        self.returned = (to < from).then_some((at, from));
        (self.from, self.mode) = (from, to);
        self.mode_since = at;
        self.max_mode = self.max_mode.max(to);
    }

    /// Whether a job of an ancestor in the same DAG activation is ready (not stopped).
    fn ancestor_pending(&mut self, task: usize, number: u64) -> bool {
        let plan = self.plan;
        let k = number % plan.jobs_per_hyperperiod(task);
        let frame = number / plan.jobs_per_hyperperiod(task);
        plan.tasks[task].ancestors.iter().any(|&a| {
            let ancestor = plan.global_job(a, frame, k);
            (self.job(a, ancestor)).is_some_and(|j| j.status == Status::Ready)
        })
    }
}

impl Observer for TableObserver<'_> {
    fn event(&mut self, event: &TraceEvent) {
        match *event {
            // Table runs have no imprecise parts.
            // Table runs have no servers either.
            TraceEvent::Release { .. }
            | TraceEvent::Abort { .. }
            | TraceEvent::PartEnd { .. }
            | TraceEvent::ServerSegment { .. }
            | TraceEvent::Replenish { .. }
            | TraceEvent::ServerExhausted { .. } => {}
            TraceEvent::Segment { task, job, end, .. } => {
                if let Some(state) = self.job(task, job) {
                    state.last_stop = end;
                }
            }
            TraceEvent::Completion { task, job, .. } => {
                self.metrics.jobs_completed += 1;
                self.set_status(task, job, Status::Completed);
            }
            TraceEvent::DeadlineMiss { task, job, at } => self.miss(task, job, at),
            TraceEvent::Discard { task, job, .. } => {
                self.metrics.jobs_discarded += 1;
                let level = self.criticality(task);
                self.metrics.jobs_discarded_by_level.add(level, 1);
                self.set_status(task, job, Status::Discarded);
            }
            TraceEvent::ModeChange { at, from, to } => self.change_mode(at, from, to),
        }
    }

    fn released(&mut self, job: JobId, work: Duration) {
        self.metrics.jobs_released += 1;
        let wcet = &self.plan.tasks[job.task].wcet;
        *self.slot(job.task, job.number) = Some(JobState {
            number: job.number,
            status: Status::Ready,
            within_wcet: work.as_nanos() <= wcet[wcet.len() - 1],
            missed: false,
            violated_precedence: false,
            last_core: None,
            last_stop: Instant::ZERO,
        });
    }

    /// Counted like the tables' quality (kairos-mc): a gap is a preemption, a core change a
    /// migration, so an instantaneous migration is a migration only.
    fn started(&mut self, at: Instant, core: usize, id: JobId) {
        let pending = self.ancestor_pending(id.task, id.number);
        let Some(job) = self.job(id.task, id.number) else {
            return;
        };
        let (preempted, migrated) = match job.last_core {
            Some(last) => (job.last_stop < at, last != core),
            None => (false, false),
        };
        job.last_core = Some(core);
        let violation = pending && !job.violated_precedence;
        job.violated_precedence |= pending;
        let metrics = &mut self.metrics;
        metrics.preemptions += u64::from(preempted);
        metrics.migrations += u64::from(migrated);
        metrics.precedence_violations += u64::from(violation);
    }

    fn stopped(&mut self, _at: Instant, job: JobId) {
        self.metrics.budget_exhausted += 1;
        self.set_status(job.task, job.number, Status::Stopped);
    }

    fn mode_changed(&mut self, at: Instant, triggers: &[JobId]) {
        let name = |id: &JobId| format!("{}#{}", self.plan.tasks[id.task].name, id.number);
        let record = ModeChangeRecord {
            at_ns: at.as_nanos(),
            from: self.plan.levels[self.from].clone(),
            to: self.plan.levels[self.mode].clone(),
            triggers: triggers.iter().map(name).collect(),
        };
        self.metrics.mode_changes.push(record);
    }
}
