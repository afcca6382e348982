//! The discrete-event engine: exact integer time, `m` identical cores.
//!
//! The engine jumps from one event instant to the next: the earliest of the next release, the
//! completion of a running job, a wake-up the policy asked for, a deadline (only with
//! `--abort-on-miss`) and the end of the run. At an instant it applies, in this order:
//! completions, aborts, releases (by task index), then calls the policy once and applies its
//! decision. A job that completes exactly at its deadline meets it. The run covers the closed
//! interval `[0, duration]`: releases and completions at the end instant count (as in SimSo).
//!
//! Cost per event is O(n) in released jobs plus the policy's own cost; memory is O(n + m) unless
//! a trace is recorded.

use crate::exec::RandomSource;
use crate::job::JobState;
use crate::metrics::Metrics;
use crate::policy::{Dispatch, Policy, View};
use crate::{SimConfig, SimError, SimOutcome};
use kairos_model::{Duration, Instant, Workload};
use kairos_trace::{Trace, TraceEvent};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) struct Engine<'w> {
    workload: &'w Workload,
    config: &'w SimConfig,
    now: Instant,
    end: Instant,
    jobs: Vec<JobState>,
    /// Next release instant of each task, smallest first; ties by task index.
    releases: BinaryHeap<Reverse<(Instant, usize)>>,
    next_job_index: Vec<u64>,
    random: RandomSource,
    metrics: Metrics,
    trace: Option<Trace>,
    wake_at: Option<Instant>,
}

impl<'w> Engine<'w> {
    pub(crate) fn new(workload: &'w Workload, config: &'w SimConfig, policy_name: &str) -> Self {
        let end = Instant::ZERO + config.duration;
        let trace = config.record_trace.then(|| Trace {
            levels: Vec::new(),
            task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
            cores: workload.cores,
            end,
            events: Vec::new(),
        });
        let releases = workload
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| Reverse((Instant::ZERO + t.offset, i)))
            .filter(|Reverse((at, _))| *at <= end)
            .collect();
        Engine {
            workload,
            config,
            now: Instant::ZERO,
            end,
            jobs: Vec::new(),
            releases,
            next_job_index: vec![0; workload.tasks.len()],
            random: RandomSource::new(config.seed, config.execution_times),
            metrics: Metrics::new(
                policy_name,
                workload.tasks.iter().map(|t| t.name.clone()),
                workload.cores,
            ),
            trace,
            wake_at: None,
        }
    }

    pub(crate) fn run(mut self, policy: &mut dyn Policy) -> Result<SimOutcome, SimError> {
        loop {
            let mut changed = self.complete_finished_jobs();
            if self.config.abort_on_miss {
                changed |= self.abort_late_jobs();
            }
            changed |= self.release_due_jobs();
            if changed || self.wake_at == Some(self.now) {
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

    /// Removes every job with no work left; returns whether any did.
    fn complete_finished_jobs(&mut self) -> bool {
        let mut any = false;
        for i in (0..self.jobs.len()).rev() {
            if !self.jobs[i].remaining.is_zero() {
                continue;
            }
            any = true;
            self.close_segment(i);
            let job = self.jobs.swap_remove(i);
            let now = self.now;
            self.metrics.record_completion(job.task, job.release, now);
            self.record(|| TraceEvent::Completion {
                task: job.task,
                job: job.index,
                at: now,
            });
            if now > job.absolute_deadline {
                self.report_miss(&job);
            }
        }
        any
    }

    /// Removes unfinished jobs whose deadline has come (`--abort-on-miss`).
    fn abort_late_jobs(&mut self) -> bool {
        let mut any = false;
        for i in (0..self.jobs.len()).rev() {
            if self.jobs[i].absolute_deadline > self.now {
                continue;
            }
            any = true;
            self.close_segment(i);
            let job = self.jobs.swap_remove(i);
            self.report_miss(&job);
            self.metrics.jobs_aborted += 1;
            self.metrics.tasks[job.task].jobs_aborted += 1;
            let at = self.now;
            self.record(|| TraceEvent::Abort {
                task: job.task,
                job: job.index,
                at,
            });
        }
        any
    }

    fn report_miss(&mut self, job: &JobState) {
        self.metrics.record_miss(job.task);
        self.record(|| TraceEvent::DeadlineMiss {
            task: job.task,
            job: job.index,
            at: job.absolute_deadline,
        });
    }

    /// Releases every job due now; returns whether any was.
    fn release_due_jobs(&mut self) -> bool {
        let mut any = false;
        while let Some(&Reverse((at, task_index))) = self.releases.peek() {
            if at > self.now {
                break;
            }
            self.releases.pop();
            any = true;
            let task = &self.workload.tasks[task_index];
            let index = self.next_job_index[task_index];
            self.next_job_index[task_index] += 1;
            let work = self.random.execution_time(task);
            let deadline = at + task.deadline;
            self.metrics.jobs_released += 1;
            self.metrics.tasks[task_index].jobs_released += 1;
            self.record(|| TraceEvent::Release {
                task: task_index,
                job: index,
                at,
                deadline,
            });
            if work.is_zero() {
                // A job with nothing to do (bcet = 0 under --exec uniform) completes at its
                // release without taking a core, so no other event decides its completion.
                self.metrics.record_completion(task_index, at, at);
                self.record(|| TraceEvent::Completion {
                    task: task_index,
                    job: index,
                    at,
                });
            } else {
                self.jobs
                    .push(JobState::new(task_index, index, at, deadline, work));
            }
            let next = at + self.random.inter_arrival(task);
            if next <= self.end {
                self.releases.push(Reverse((next, task_index)));
            }
        }
        any
    }

    fn dispatch(&mut self, policy: &mut dyn Policy) -> Result<(), SimError> {
        let view = View {
            now: self.now,
            cores: self.workload.cores,
            jobs: &self.jobs,
            tasks: &self.workload.tasks,
        };
        let decision = policy.schedule(&view);
        self.metrics.scheduling_points += 1;
        self.check_decision(&decision, policy.name())?;
        self.wake_at = decision.wake_at.filter(|&t| t > self.now);
        for i in 0..self.jobs.len() {
            if let Some(core) = self.jobs[i].running_on {
                if decision.cores[core] != Some(i) {
                    self.preempt(i);
                }
            }
        }
        for (core, job) in decision.cores.iter().enumerate() {
            if let Some(i) = *job {
                if self.jobs[i].running_on != Some(core) {
                    self.switch_in(i, core);
                }
            }
        }
        Ok(())
    }

    /// Rejects decisions no machine could carry out.
    fn check_decision(&self, decision: &Dispatch, policy: &str) -> Result<(), SimError> {
        let invalid = |reason: String| {
            Err(SimError::InvalidDispatch {
                policy: policy.to_string(),
                at: self.now,
                reason,
            })
        };
        if decision.cores.len() != self.workload.cores {
            return invalid(format!(
                "{} core entries for {} cores",
                decision.cores.len(),
                self.workload.cores
            ));
        }
        let chosen: Vec<usize> = decision.cores.iter().flatten().copied().collect();
        if let Some(&bad) = chosen.iter().find(|&&i| i >= self.jobs.len()) {
            return invalid(format!(
                "job index {bad} but only {} jobs are ready",
                self.jobs.len()
            ));
        }
        for (k, i) in chosen.iter().enumerate() {
            if chosen[k + 1..].contains(i) {
                let job = &self.jobs[*i];
                return invalid(format!(
                    "job {}#{} on two cores at once",
                    self.workload.tasks[job.task].name, job.index
                ));
            }
        }
        Ok(())
    }

    fn preempt(&mut self, i: usize) {
        self.close_segment(i);
        let job = &mut self.jobs[i];
        // Overhead not yet paid is lost with the preemption, not carried over.
        job.remaining -= job.overhead_left;
        job.overhead_left = Duration::ZERO;
        self.metrics.preemptions += 1;
        self.metrics.tasks[job.task].preemptions += 1;
    }

    fn switch_in(&mut self, i: usize, core: usize) {
        let overheads = &self.config.overheads;
        let job = &mut self.jobs[i];
        let migrated = job.last_core.is_some_and(|last| last != core);
        if migrated {
            self.metrics.migrations += 1;
            self.metrics.tasks[job.task].migrations += 1;
        }
        self.metrics.context_switches += 1;
        let mut cost = overheads.scheduling + overheads.context_switch;
        if migrated {
            cost += overheads.migration;
        }
        job.remaining += cost;
        job.overhead_left = cost;
        job.running_on = Some(core);
        job.last_core = Some(core);
        job.segment_start = self.now;
    }

    /// Ends the running segment of job `i`, if it is running.
    fn close_segment(&mut self, i: usize) {
        let job = &mut self.jobs[i];
        let Some(core) = job.running_on.take() else {
            return;
        };
        let (task, index, start, end) = (job.task, job.index, job.segment_start, self.now);
        if end > start {
            self.record(|| TraceEvent::Segment {
                core,
                task,
                job: index,
                start,
                end,
            });
        }
    }

    fn next_event_time(&self) -> Instant {
        let mut next = self.end;
        if let Some(&Reverse((at, _))) = self.releases.peek() {
            next = next.min(at);
        }
        if let Some(wake) = self.wake_at {
            next = next.min(wake);
        }
        for job in &self.jobs {
            if job.running_on.is_some() {
                next = next.min(self.now + job.remaining);
            }
            if self.config.abort_on_miss && job.absolute_deadline > self.now {
                next = next.min(job.absolute_deadline);
            }
        }
        next
    }

    fn advance_to(&mut self, next: Instant) {
        let elapsed = next - self.now;
        for job in &mut self.jobs {
            let Some(core) = job.running_on else { continue };
            job.remaining -= elapsed;
            let overhead_paid = elapsed.min(job.overhead_left);
            job.overhead_left -= overhead_paid;
            let usage = &mut self.metrics.core_usage[core];
            usage.busy_ns += elapsed.as_nanos();
            usage.overhead_ns += overhead_paid.as_nanos();
        }
        self.now = next;
    }

    fn finish(mut self) -> SimOutcome {
        for i in 0..self.jobs.len() {
            self.close_segment(i);
        }
        let late: Vec<JobState> = self
            .jobs
            .iter()
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
            unfinished_jobs: self.jobs.len(),
        }
    }
}
