//! The engine's side of the contract ([`Host`]): the work of each job, the overheads charged at
//! each switch, and what is measured and recorded as the contract applies its rules.

use super::deadlines::Deadlines;
use super::window::HeldParts;
use super::Hosts;
use crate::charges::Charges;
use crate::job::JobWork;
use crate::metrics::Metrics;
use crate::outages::Cursor;
use crate::queue::EventQueue;
use crate::{SimConfig, SimError};
use kairos_model::{Duration, Instant, Task, Workload};
use kairos_policy::contract::{Exit, Host, PartChange};
use kairos_policy::{Decision, JobId, JobView};
use kairos_trace::{PartOutcome, Trace, TraceEvent};

pub(super) struct Side<'w> {
    pub workload: &'w Workload,
    pub config: &'w SimConfig,
    pub hosts: Hosts<'w>,
    pub policy_name: &'static str,
    pub end: Instant,
    /// Pending releases.
    pub queue: EventQueue,
    pub next_job_number: Vec<u64>,
    pub charges: Charges,
    pub metrics: Metrics,
    pub trace: Option<Trace>,
    /// When the trace would have passed its cap (`TraceBounds::max_events`): the run stops.
    pub overflow: Option<Instant>,
    /// The jobs an instant's search found, kept to spare an allocation per instant.
    pub found: Vec<JobId>,
    /// With a recorded window: part ends before it, held for their jobs' segments in it.
    pub held_parts: HeldParts,
    /// The open jobs' deadlines not yet observed.
    pub deadlines: Deadlines,
    /// Jobs left with no work in their part by something else than running (a part of no
    /// work, a preemption): with the running jobs, the only ones that can complete or end a
    /// part at an instant.
    pub out_of_work: Vec<JobId>,
    /// Where the run stands in the cores' outages.
    pub outages: Cursor<'w>,
}

impl Side<'_> {
    /// Queues a release at `at` if the run's window contains it.
    pub fn queue_release(&mut self, at: Instant, task: usize) {
        let inside = match self.hosts.source.releases_at_end() {
            true => at <= self.end,
            false => at < self.end,
        };
        if inside {
            self.queue.release(at, task);
        }
    }

    pub fn invalid(&self, at: Instant, reason: String) -> SimError {
        SimError::InvalidDispatch {
            policy: self.policy_name.to_string(),
            at,
            reason,
        }
    }

    /// Hands an event to the trace and the observer, building it only if one of them wants it.
    pub fn trace(&mut self, event: impl FnOnce() -> TraceEvent) {
        if self.trace.is_none() && self.hosts.observer.is_none() {
            return;
        }
        let event = event();
        if let Some(observer) = &mut self.hosts.observer {
            observer.event(&event);
        }
        let Some(trace) = &mut self.trace else {
            return;
        };
        let bounds = self.config.trace_bounds;
        let admitted = match bounds.window {
            Some(window) => self.held_parts.admit(event, window),
            None => [None, Some(event)],
        };
        // A held part end is from before the window; the run stopped in it.
        let from = bounds.window.map_or(Instant::ZERO, |(from, _)| from);
        for event in admitted.into_iter().flatten() {
            if trace.events.len() as u64 >= bounds.max_events {
                self.overflow.get_or_insert(event_start(&event).max(from));
                return;
            }
            trace.events.push(event);
        }
    }

    /// Records the segment `job` ran on `core` from its start to `now` (if not empty) and
    /// starts the next one at `now`.
    pub fn record_segment(&mut self, job: JobId, core: usize, work: &mut JobWork, now: Instant) {
        let start = work.segment_start;
        if now > start {
            self.trace(|| TraceEvent::Segment {
                core,
                task: job.task,
                job: job.number,
                start,
                end: now,
            });
        }
        work.segment_start = now;
    }

    /// Ends `job`'s segment on its core, if it runs.
    fn close_segment(&mut self, job: &JobView, work: &mut JobWork, now: Instant) {
        if let Some(core) = job.running_on {
            self.record_segment(job.id, core, work, now);
        }
    }

    /// A scheduling decision and a context switch, charged at a switch-in and at the end of
    /// a running job's part by execution.
    fn switch_cost(&mut self) -> Duration {
        // Borrowed: the profile holds every overhead kairos measures, and a copy of it per
        // switch cost more than the rest of the switch.
        let overheads = &self.config.overheads;
        self.charges.charge(&overheads.scheduling) + self.charges.charge(&overheads.context_switch)
    }
}

impl Host<JobWork> for Side<'_> {
    fn budget(&self, task: usize, spec: &Task, mode: usize) -> Duration {
        self.hosts.source.budget(task, spec, mode)
    }

    /// A part that ends by execution on a core costs what the runtime's worker pays there: it
    /// hands the job back to its dispatcher (the policy decides what runs next, as at a
    /// completion) and is started again when the decision keeps it, a scheduling decision and
    /// a context switch. Zero with the default (zero) overheads, so the paper's schedules stay
    /// as they are; a cut is not charged, the runtime's worker goes on through it. Overhead of
    /// the current switch still to pay stays to pay. The job's segment is split at the part's
    /// end, so each segment belongs to one part.
    fn next_part(
        &mut self,
        now: Instant,
        job: &JobView,
        work: &mut JobWork,
        change: &PartChange,
    ) -> Duration {
        self.close_segment(job, work, now);
        if !change.cut && job.running_on.is_some() {
            work.overhead_left += self.switch_cost();
        }
        work.remaining = work.overhead_left + change.work;
        if work.remaining.is_zero() {
            self.out_of_work.push(job.id);
        }
        job.executed
    }

    fn record(&mut self, event: TraceEvent) {
        self.trace(|| event);
    }

    fn asked(&mut self, _: Instant, _: usize, _: &[JobView], _: &Decision) {
        self.metrics.scheduling_points += 1;
    }

    fn left(&mut self, now: Instant, job: &JobView, mut work: JobWork, exit: Exit) {
        self.close_segment(job, &mut work, now);
        let id = job.id;
        self.deadlines.left(job.absolute_deadline, id);
        self.held_parts.left(id);
        let task = job.id.task;
        match exit {
            Exit::Completed => {
                self.metrics.record_completion(task, job.release, now);
                let number = job.id.number;
                self.trace(|| TraceEvent::Completion {
                    task,
                    job: number,
                    at: now,
                });
            }
            Exit::Discarded => {
                self.metrics.jobs_discarded += 1;
                self.metrics.tasks[task].jobs_discarded += 1;
            }
            Exit::Removed => {}
        }
    }

    fn stopped(&mut self, now: Instant, job: &JobView, _: &mut JobWork) {
        if let Some(observer) = &mut self.hosts.observer {
            observer.stopped(now, job.id);
        }
    }

    /// Overhead not yet paid is lost with the preemption, not carried over. A job taken off a
    /// core in an outage that took it waits for the outage's end wherever it goes next: its
    /// state is on the held core, as a real run's worker cannot leave a CPU the host holds.
    fn preempted(&mut self, now: Instant, job: &JobView, work: &mut JobWork) {
        let held = (job.running_on)
            .and_then(|core| (self.outages).holds_job_until(core, work.placed_at, now));
        if let Some(end) = held {
            work.held_until = work.held_until.max(end);
        }
        self.close_segment(job, work, now);
        work.remaining -= work.overhead_left;
        work.overhead_left = Duration::ZERO;
        if work.remaining.is_zero() {
            self.out_of_work.push(job.id);
        }
        self.metrics.preemptions += 1;
        self.metrics.tasks[job.id.task].preemptions += 1;
    }

    fn switched_in(&mut self, now: Instant, job: &JobView, work: &mut JobWork, core: usize) {
        let task = job.id.task;
        let migrated = job.last_core.is_some_and(|last| last != core);
        if migrated {
            self.metrics.migrations += 1;
            self.metrics.tasks[task].migrations += 1;
        }
        self.metrics.context_switches += 1;
        let mut cost = self.switch_cost();
        if migrated {
            cost += self.charges.charge(&self.config.overheads.migration);
        }
        work.remaining += cost;
        work.overhead_left = cost;
        work.segment_start = now;
        work.placed_at = now;
        if let Some(observer) = &mut self.hosts.observer {
            observer.started(now, core, job.id);
        }
    }

    fn optional_ended(
        &mut self,
        task: usize,
        requested: Duration,
        executed: Duration,
        outcome: PartOutcome,
    ) {
        (self.metrics).record_optional(task, requested, executed, outcome);
    }

    fn mode_changed(&mut self, now: Instant, _: usize, _: usize, triggers: &[JobId]) {
        if let Some(observer) = &mut self.hosts.observer {
            observer.mode_changed(now, triggers);
        }
    }

    /// A job's segments never straddle two servers.
    fn server_left(&mut self, now: Instant, core: usize, job: Option<(&JobView, &mut JobWork)>) {
        if let Some((job, work)) = job {
            self.record_segment(job.id, core, work, now);
        }
    }
}

/// When `event` begins: a segment's start, a release's instant, a point event's instant.
fn event_start(event: &TraceEvent) -> Instant {
    match *event {
        TraceEvent::Segment { start, .. } | TraceEvent::ServerSegment { start, .. } => start,
        TraceEvent::Release { at, .. }
        | TraceEvent::Completion { at, .. }
        | TraceEvent::DeadlineMiss { at, .. }
        | TraceEvent::Abort { at, .. }
        | TraceEvent::Discard { at, .. }
        | TraceEvent::PartEnd { at, .. }
        | TraceEvent::ModeChange { at, .. }
        | TraceEvent::Replenish { at, .. }
        | TraceEvent::ServerExhausted { at, .. } => at,
    }
}
