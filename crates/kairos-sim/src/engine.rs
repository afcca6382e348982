//! The discrete-event engine: exact integer time, `m` identical cores, any policy written
//! against the execution contract (`kairos-policy`).
//!
//! The engine jumps from one event instant to the next: the earliest of the pending releases and
//! policy timers (one queue, [`crate::queue`]), the completion of a running job, a deadline (only
//! with `--abort-on-miss`) and the end of the run. At an instant it applies, in this order:
//! completions, aborts, releases (by task index), timers (by arming order), reporting each to the
//! policy; then, if anything happened, it asks the policy for one decision, carries out its
//! actions and places the jobs. A job that completes exactly at its deadline meets it. The run
//! covers the closed interval `[0, duration]`: releases and completions at the end instant count
//! (as in SimSo).
//!
//! Cost per event is O(n) in released jobs plus the policy's own cost; memory is O(n + m) unless
//! a trace is recorded.

use crate::charges::Charges;
use crate::job::{released, JobWork};
use crate::metrics::Metrics;
use crate::queue::{Due, EventQueue};
use crate::{SimConfig, SimError, SimOutcome};
use kairos_model::{Duration, Instant, Workload};
use kairos_policy::{Action, JobDraws, JobId, JobView, Policy, View};
use kairos_trace::{Trace, TraceEvent};

pub(crate) struct Engine<'w> {
    workload: &'w Workload,
    config: &'w SimConfig,
    policy_name: &'static str,
    now: Instant,
    end: Instant,
    /// What the policy sees of each released, unfinished job; `work[i]` is the same job's hidden
    /// side. Both shrink by `swap_remove`, together.
    views: Vec<JobView>,
    work: Vec<JobWork>,
    /// Per core, the index (into `views`) of the job running there.
    running: Vec<Option<usize>>,
    queue: EventQueue,
    next_job_number: Vec<u64>,
    draws: JobDraws,
    charges: Charges,
    metrics: Metrics,
    trace: Option<Trace>,
}

impl<'w> Engine<'w> {
    pub(crate) fn new(
        workload: &'w Workload,
        config: &'w SimConfig,
        policy_name: &'static str,
    ) -> Self {
        let end = Instant::ZERO + config.duration;
        let trace = config.record_trace.then(|| Trace {
            levels: Vec::new(),
            task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
            cores: workload.cores,
            end,
            events: Vec::new(),
        });
        let mut queue = EventQueue::default();
        for (task, t) in workload.tasks.iter().enumerate() {
            let first = Instant::ZERO + t.offset;
            if first <= end {
                queue.release(first, task);
            }
        }
        Engine {
            workload,
            config,
            policy_name,
            now: Instant::ZERO,
            end,
            views: Vec::new(),
            work: Vec::new(),
            running: vec![None; workload.cores],
            queue,
            next_job_number: vec![0; workload.tasks.len()],
            draws: JobDraws::new(config.seed, config.execution_times),
            charges: Charges::new(config.seed),
            metrics: Metrics::new(
                policy_name,
                workload.tasks.iter().map(|t| t.name.clone()),
                workload.cores,
            ),
            trace,
        }
    }

    pub(crate) fn run(mut self, policy: &mut dyn Policy) -> Result<SimOutcome, SimError> {
        loop {
            let mut changed = self.complete_finished_jobs(policy);
            if self.config.abort_on_miss {
                changed |= self.abort_late_jobs();
            }
            changed |= self.apply_due_events(policy);
            if changed {
                self.dispatch(policy)?;
            }
            if self.now >= self.end {
                break;
            }
            let next = self.next_event_time();
            self.advance_to(next);
        }
        Ok(self.finish())
    }

    fn record(&mut self, event: impl FnOnce() -> TraceEvent) {
        if let Some(trace) = &mut self.trace {
            trace.events.push(event());
        }
    }

    /// Removes job `i` from both lists, closing its running segment first.
    fn remove(&mut self, i: usize) -> JobView {
        self.close_segment(i);
        self.work.swap_remove(i);
        let job = self.views.swap_remove(i);
        // The last job moved into slot `i`: its core must point at its new index.
        if let Some(core) = self.views.get(i).and_then(|moved| moved.running_on) {
            self.running[core] = Some(i);
        }
        job
    }

    /// Removes every job with no work left; returns whether any did.
    fn complete_finished_jobs(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        for i in (0..self.views.len()).rev() {
            if !self.work[i].remaining.is_zero() {
                continue;
            }
            any = true;
            let job = self.remove(i);
            let now = self.now;
            self.metrics
                .record_completion(job.id.task, job.release, now);
            self.record(|| TraceEvent::Completion {
                task: job.id.task,
                job: job.id.number,
                at: now,
            });
            if now > job.absolute_deadline {
                self.report_miss(&job);
            }
            policy.job_completed(now, &job);
        }
        any
    }

    /// Removes unfinished jobs whose deadline has come (`--abort-on-miss`).
    fn abort_late_jobs(&mut self) -> bool {
        let mut any = false;
        for i in (0..self.views.len()).rev() {
            if self.views[i].absolute_deadline > self.now {
                continue;
            }
            any = true;
            self.abort(i);
        }
        any
    }

    /// Removes job `i` unfinished: aborted, and a miss once its deadline is within the run.
    fn abort(&mut self, i: usize) {
        let job = self.remove(i);
        if job.absolute_deadline <= self.end {
            self.report_miss(&job);
        }
        self.metrics.jobs_aborted += 1;
        self.metrics.tasks[job.id.task].jobs_aborted += 1;
        let at = self.now;
        self.record(|| TraceEvent::Abort {
            task: job.id.task,
            job: job.id.number,
            at,
        });
    }

    fn report_miss(&mut self, job: &JobView) {
        self.metrics.record_miss(job.id.task);
        self.record(|| TraceEvent::DeadlineMiss {
            task: job.id.task,
            job: job.id.number,
            at: job.absolute_deadline,
        });
    }

    /// Releases every job due now and fires every timer due now; returns whether any was.
    fn apply_due_events(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        while let Some(due) = self.queue.pop_due(self.now) {
            any = true;
            match due {
                Due::Release { task } => self.release(task, policy),
                Due::Timer(timer) => policy.timer_fired(self.now, timer),
            }
        }
        any
    }

    /// Releases the next job of `task` now and queues the one after.
    fn release(&mut self, task_index: usize, policy: &mut dyn Policy) {
        let at = self.now;
        let task = &self.workload.tasks[task_index];
        let number = self.next_job_number[task_index];
        self.next_job_number[task_index] += 1;
        let work = self.draws.execution_time(task_index, task, number);
        let deadline = at + task.deadline;
        let view = released(
            JobId {
                task: task_index,
                number,
            },
            at,
            deadline,
            task.wcet,
        );
        let next = at + self.draws.inter_arrival(task_index, task, number);
        self.metrics.jobs_released += 1;
        self.metrics.tasks[task_index].jobs_released += 1;
        self.record(|| TraceEvent::Release {
            task: task_index,
            job: number,
            at,
            deadline,
        });
        if next <= self.end {
            self.queue.release(next, task_index);
        }
        policy.job_released(at, &view);
        if work.is_zero() {
            // A job with nothing to do (bcet = 0 under --exec uniform) completes at its release
            // without taking a core, so no other event decides its completion.
            self.metrics.record_completion(task_index, at, at);
            self.record(|| TraceEvent::Completion {
                task: task_index,
                job: number,
                at,
            });
            policy.job_completed(at, &view);
            return;
        }
        self.views.push(view);
        self.work.push(JobWork {
            remaining: work,
            overhead_left: Duration::ZERO,
            segment_start: at,
        });
    }

    fn dispatch(&mut self, policy: &mut dyn Policy) -> Result<(), SimError> {
        let view = View {
            now: self.now,
            cores: self.workload.cores,
            jobs: &self.views,
            tasks: &self.workload.tasks,
        };
        let decision = policy.decide(&view);
        self.metrics.scheduling_points += 1;
        (decision.check(&view, &self.running)).map_err(|reason| self.invalid(reason))?;
        for action in decision.actions {
            self.carry_out(action)?;
        }
        self.place(&decision.cores);
        Ok(())
    }

    fn invalid(&self, reason: String) -> SimError {
        SimError::InvalidDispatch {
            policy: self.policy_name.to_string(),
            at: self.now,
            reason,
        }
    }

    fn carry_out(&mut self, action: Action) -> Result<(), SimError> {
        match action {
            Action::ArmTimer { timer, at } if at > self.now => self.queue.arm(timer, at),
            Action::ArmTimer { at, .. } => {
                return Err(self.invalid(format!("a timer armed for {at}, not after now")))
            }
            Action::CancelTimer(timer) => self.queue.cancel(timer),
            Action::Discard(id) => {
                let i = self.index_of(id).ok_or_else(|| {
                    self.invalid(format!(
                        "discard of job {}#{}, not released or finished",
                        id.task, id.number
                    ))
                })?;
                self.abort(i);
            }
        }
        Ok(())
    }

    fn index_of(&self, id: JobId) -> Option<usize> {
        self.views.iter().position(|j| j.id == id)
    }

    /// Preempts the running jobs the decision moves or leaves out, then switches in the new
    /// ones (a job the same decision discarded leaves its core idle). Only jobs that change
    /// core are looked up by id, so a decision that keeps its jobs costs O(m).
    fn place(&mut self, cores: &[Option<JobId>]) {
        for (core, want) in cores.iter().enumerate() {
            if let Some(i) = self.running[core] {
                if *want != Some(self.views[i].id) {
                    self.preempt(i);
                }
            }
        }
        for (core, want) in cores.iter().enumerate() {
            if self.running[core].is_some() {
                continue;
            }
            if let Some(i) = want.and_then(|id| self.index_of(id)) {
                self.switch_in(i, core);
            }
        }
    }

    fn preempt(&mut self, i: usize) {
        self.close_segment(i);
        let work = &mut self.work[i];
        // Overhead not yet paid is lost with the preemption, not carried over.
        work.remaining -= work.overhead_left;
        work.overhead_left = Duration::ZERO;
        let task = self.views[i].id.task;
        self.metrics.preemptions += 1;
        self.metrics.tasks[task].preemptions += 1;
    }

    fn switch_in(&mut self, i: usize, core: usize) {
        let overheads = self.config.overheads;
        let view = &self.views[i];
        let (task, migrated) = (view.id.task, view.last_core.is_some_and(|l| l != core));
        if migrated {
            self.metrics.migrations += 1;
            self.metrics.tasks[task].migrations += 1;
        }
        self.metrics.context_switches += 1;
        let charges = &mut self.charges;
        let mut cost =
            charges.charge(overheads.scheduling) + charges.charge(overheads.context_switch);
        if migrated {
            cost += charges.charge(overheads.migration);
        }
        let view = &mut self.views[i];
        view.running_on = Some(core);
        view.last_core = Some(core);
        self.running[core] = Some(i);
        let work = &mut self.work[i];
        work.remaining += cost;
        work.overhead_left = cost;
        work.segment_start = self.now;
    }

    /// Ends the running segment of job `i`, if it is running.
    fn close_segment(&mut self, i: usize) {
        let Some(core) = self.views[i].running_on.take() else {
            return;
        };
        self.running[core] = None;
        let id = self.views[i].id;
        let (start, end) = (self.work[i].segment_start, self.now);
        if end > start {
            self.record(|| TraceEvent::Segment {
                core,
                task: id.task,
                job: id.number,
                start,
                end,
            });
        }
    }

    fn next_event_time(&mut self) -> Instant {
        let mut next = self.end;
        if let Some(at) = self.queue.next_time() {
            next = next.min(at);
        }
        for (view, work) in self.views.iter().zip(&self.work) {
            if view.running_on.is_some() {
                next = next.min(self.now + work.remaining);
            }
            if self.config.abort_on_miss && view.absolute_deadline > self.now {
                next = next.min(view.absolute_deadline);
            }
        }
        next
    }

    fn advance_to(&mut self, next: Instant) {
        let elapsed = next - self.now;
        for (view, work) in self.views.iter_mut().zip(&mut self.work) {
            let Some(core) = view.running_on else {
                continue;
            };
            work.remaining -= elapsed;
            let overhead_paid = elapsed.min(work.overhead_left);
            work.overhead_left -= overhead_paid;
            view.executed += elapsed - overhead_paid;
            let usage = &mut self.metrics.core_usage[core];
            usage.busy_ns += elapsed.as_nanos();
            usage.overhead_ns += overhead_paid.as_nanos();
        }
        self.now = next;
    }

    fn finish(mut self) -> SimOutcome {
        for i in 0..self.views.len() {
            self.close_segment(i);
        }
        let late: Vec<JobView> = (self.views.iter())
            .filter(|j| j.absolute_deadline <= self.end)
            .cloned()
            .collect();
        for job in &late {
            self.report_miss(job);
        }
        self.metrics.finish(self.end.since_origin());
        SimOutcome {
            metrics: self.metrics,
            trace: self.trace,
            unfinished_jobs: self.views.len(),
        }
    }
}
