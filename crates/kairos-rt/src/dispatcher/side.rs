//! The runtime's side of the contract ([`Host`]): what a user-dispatched run keeps besides the
//! contract's state (releases due, the job slots the workers execute, each job's record, the
//! decisions made) and what it does as the contract applies its rules (load a part's work into
//! a slot, close a discarded job's slot, record steps and trace events).
//!
//! Everything a pass writes here is reserved before the run starts (the records and works of
//! the jobs the run is expected to release, the lists a pass fills and empties again), so the
//! decision path does not allocate; only the record of steps, when asked for, does
//! ([`super::record`]).

use super::parts::JobDraw;
use super::record::StepRecord;
use super::scheduler::ModeChangeRecord;
use super::shared::{part_word, Shared};
use crate::measure::JobRecord;
use kairos_model::{Duration, Instant, Part, Task, Workload};
use kairos_policy::contract::{Exit, Host, PartChange};
use kairos_policy::{Decision, JobId, JobSource, JobView, Reported};
use kairos_trace::{OptionalMetrics, PartOutcome, TraceEvent};
use std::sync::atomic::Ordering;

/// The runtime's side of an open job: its record index, the CPU work of its current part (ns),
/// and how many times it changed part (a job run by parts; the slot's part word counts them).
#[derive(Clone, Copy, Debug)]
pub(super) struct RunJob {
    pub record: usize,
    pub work: u64,
    pub part_changes: u64,
}

pub(super) struct RunSide {
    pub end: u64,
    /// Next release of each task (`u64::MAX`: none before the end).
    pub next_release: Vec<u64>,
    pub next_number: Vec<u64>,
    /// Which core's dispatcher wakes for a task's next release: the core its last job was
    /// placed on, so a partitioned task's release is handled where it runs.
    pub home: Vec<usize>,
    /// Per task, its next job if it is released at a promised instant and its work was drawn
    /// and its slot loaded before its release: its number and that work.
    pub preloaded: Vec<Option<(u64, JobDraw)>>,
    /// Whether the policy runs imprecise tasks by parts.
    pub runs_parts: bool,
    /// Jobs whose part end a pass took in, until its decision is published.
    pub part_ends_taken: Vec<JobId>,
    /// The completions or part ends an instant reports, with their times (emptied after each).
    pub due: Vec<(JobId, u64)>,
    /// Optional-part figures per task (imprecise tasks run by parts).
    pub optional: Vec<Option<OptionalMetrics>>,
    /// End of the frame the jobs in the view were released in (framed sources).
    pub frame_end: Option<u64>,
    pub records: Vec<JobRecord>,
    pub source: Box<dyn JobSource + Send>,
    /// Fraction of its drawn work a job's body executes (a table run's margin, 1 otherwise).
    pub work_scale: f64,
    /// Instant of the last decision: passes never go back in time.
    pub last_at: u64,
    pub steps: StepRecord,
    /// The contract's trace events.
    pub events: Vec<TraceEvent>,
    /// The mode changes of the instant being decided: `(from, to, triggers)`.
    pub changes: Vec<(usize, usize, Vec<JobId>)>,
    pub mode_changes: Vec<ModeChangeRecord>,
    /// Jobs stopped for good by budget enforcement.
    pub stops: u64,
    pub failure: Option<String>,
}

impl RunSide {
    pub fn new(
        workload: &Workload,
        end: u64,
        source: Box<dyn JobSource + Send>,
        work_scale: f64,
        runs_parts: bool,
        record_steps: bool,
    ) -> Self {
        let tasks = &workload.tasks;
        let next_release = (tasks.iter())
            .map(|t| {
                Some(t.offset.as_nanos())
                    .filter(|&r| r < end)
                    .unwrap_or(u64::MAX)
            })
            .collect();
        let expected = expected_jobs(workload, end);
        // A release and a completion per job, and per part end with parts; a few timers more.
        let decisions = expected * if runs_parts { 4 } else { 2 } + 64;
        // At most every open job at once: SLOTS_PER_TASK per task.
        let open = tasks.len() * super::shared::SLOTS_PER_TASK;
        let cores = workload.cores.max(1);
        RunSide {
            end,
            next_release,
            next_number: vec![0; tasks.len()],
            home: (0..tasks.len()).map(|t| t % cores).collect(),
            preloaded: vec![None; tasks.len()],
            runs_parts,
            part_ends_taken: Vec::with_capacity(open),
            due: Vec::with_capacity(open),
            optional: (tasks.iter())
                .map(|t| (runs_parts && t.imprecise.is_some()).then(OptionalMetrics::default))
                .collect(),
            frame_end: source.frame().map(|f| f.as_nanos()),
            records: Vec::with_capacity(expected),
            source,
            work_scale,
            last_at: 0,
            steps: StepRecord::new(record_steps, decisions),
            // A part end's trace event per part of each job run by parts.
            events: Vec::with_capacity(if runs_parts { 3 * expected } else { 0 }),
            changes: Vec::new(),
            mode_changes: Vec::new(),
            stops: 0,
            failure: None,
        }
    }

    pub fn fail(&mut self, reason: String) {
        self.failure.get_or_insert(reason);
    }
}

/// The jobs `workload` releases in `[0, end)` at most.
fn expected_jobs(workload: &Workload, end: u64) -> usize {
    workload.tasks.iter().map(|t| jobs_of(t, end)).sum()
}

/// The jobs `task` releases in `[0, end)` at most: its periodic releases (a sporadic task's
/// minimum inter-arrival time gives the most).
pub(super) fn jobs_of(task: &Task, end: u64) -> usize {
    (end / task.period.as_nanos().max(1) + 1) as usize
}

/// A pass: the run's side, the state the threads share, the tasks, and the core passing.
pub(super) struct Pass<'a> {
    pub side: &'a mut RunSide,
    pub shared: &'a Shared,
    pub tasks: &'a [Task],
    /// The core whose dispatcher runs the pass.
    pub core: usize,
}

impl Host<RunJob> for Pass<'_> {
    fn budget(&self, task: usize, spec: &Task, mode: usize) -> Duration {
        self.side.source.budget(task, spec, mode)
    }

    /// Loads the next part's work into the job's slot while its worker may still be executing
    /// the ended part (a cut): the work first, then the part's word (see `super::shared`). A
    /// worker cut on a core runs the wind-up as a real-time thread again (`super::percore`).
    fn next_part(
        &mut self,
        _: Instant,
        job: &JobView,
        run: &mut RunJob,
        change: &PartChange,
    ) -> Duration {
        run.part_changes += 1;
        let work = change.work.as_nanos();
        let slot = self.shared.slot(job.id);
        let left = slot.remaining.swap(work, Ordering::AcqRel);
        let next = change.next;
        let word = part_word(
            run.part_changes,
            next == Part::Windup,
            next == Part::Optional,
        );
        slot.part.store(word, Ordering::Release);
        let executed = run.work.saturating_sub(left);
        run.work = work;
        if let Some(core) = job.running_on.filter(|_| change.cut) {
            self.shared.cores[core].ring();
        }
        Duration::from_nanos(executed)
    }

    fn record(&mut self, event: TraceEvent) {
        self.side.events.push(event);
    }

    fn reported(&mut self, event: Reported) {
        self.side.steps.reported(event);
    }

    fn asked(&mut self, now: Instant, mode: usize, jobs: &[JobView], decision: &Decision) {
        self.side.steps.asked(now, mode, jobs, decision);
    }

    /// A job that leaves unfinished closes its slot for good: its worker stops at its core's
    /// next request and never runs it again.
    fn left(&mut self, now: Instant, job: &JobView, run: RunJob, exit: Exit) {
        if exit == Exit::Completed {
            return;
        }
        let at = now.as_nanos();
        (self.shared.slot(job.id).completed_at).store(at + 1, Ordering::Release);
        if exit == Exit::Discarded {
            self.side.records[run.record].discarded = Some(at);
        }
    }

    fn stopped(&mut self, _: Instant, _: &JobView, _: &mut RunJob) {
        self.side.stops += 1;
    }

    fn switched_in(&mut self, _: Instant, job: &JobView, _: &mut RunJob, core: usize) {
        self.side.home[job.id.task] = core;
    }

    fn optional_ended(
        &mut self,
        task: usize,
        requested: Duration,
        executed: Duration,
        outcome: PartOutcome,
    ) {
        if let Some(figures) = &mut self.side.optional[task] {
            figures.add(requested, executed, outcome);
        }
    }

    /// A raise rings every other core at once, before the pass decides in the new mode: their
    /// dispatchers wake while this one switches tables and decides (the wake-up, a futex wake
    /// across cores, is most of a remote core's reschedule), then wait for the lock and find
    /// the new decisions. The ring after the pass would come that much later.
    fn mode_changed(&mut self, _: Instant, from: usize, to: usize, triggers: &[JobId]) {
        self.side.changes.push((from, to, triggers.to_vec()));
        if to > from {
            (self.shared.cores.iter().enumerate())
                .filter(|&(core, _)| core != self.core)
                .for_each(|(_, c)| c.ring());
        }
    }
}
