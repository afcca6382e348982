//! The life of a job in the engine: release, completion, deadline, abort, discard, stop, and
//! the end of its frame.

use super::Engine;
use crate::job::{released, JobWork};
use crate::queue::Due;
use kairos_policy::{JobId, JobView, PartWork, Policy};
use kairos_trace::TraceEvent;

impl Engine<'_> {
    /// Removes job `i` from both lists, closing its running segment first.
    pub(super) fn remove(&mut self, i: usize) -> JobView {
        self.close_segment(i);
        self.work.swap_remove(i);
        let job = self.views.swap_remove(i);
        // The last job moved into slot `i`: its core must point at its new index.
        if let Some(core) = self.views.get(i).and_then(|moved| moved.running_on) {
            self.running[core] = Some(i);
        }
        job
    }

    pub(super) fn index_of(&self, id: JobId) -> Option<usize> {
        self.views.iter().position(|j| j.id == id)
    }

    /// Removes every job with no work left; returns whether any did.
    pub(super) fn complete_finished_jobs(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        for i in (0..self.views.len()).rev() {
            let work = &self.work[i];
            if !work.remaining.is_zero() || !work.in_last_part(&self.views[i]) {
                continue;
            }
            any = true;
            let job = self.remove(i);
            self.report_completion(&job, policy);
        }
        any
    }

    fn report_completion(&mut self, job: &JobView, policy: &mut dyn Policy) {
        let now = self.now;
        (self.metrics).record_completion(job.id.task, job.release, now);
        self.record(|| TraceEvent::Completion {
            task: job.id.task,
            job: job.id.number,
            at: now,
        });
        policy.job_completed(now, job);
    }

    /// Reports every job whose budget just ran out with work left; returns whether any did.
    pub(super) fn report_overruns(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        for i in 0..self.views.len() {
            if self.work[i].exhausted || !self.views[i].budget_left().is_zero() {
                continue;
            }
            any = true;
            self.work[i].exhausted = true;
            policy.budget_exhausted(self.now, &self.views[i]);
        }
        any
    }

    /// Removes unfinished jobs whose deadline has come (`--abort-on-miss`).
    pub(super) fn abort_late_jobs(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        for i in (0..self.views.len()).rev() {
            if self.views[i].absolute_deadline > self.now {
                continue;
            }
            any = true;
            let job = self.remove(i);
            self.report_miss(&job);
            self.metrics.jobs_aborted += 1;
            self.metrics.tasks[job.id.task].jobs_aborted += 1;
            let at = self.now;
            self.record(|| TraceEvent::Abort {
                task: job.id.task,
                job: job.id.number,
                at,
            });
            policy.job_removed(at, &job);
        }
        any
    }

    /// Records a miss of every job still unfinished at its deadline, now, by task index.
    pub(super) fn observe_deadlines(&mut self) {
        let mut late: Vec<JobView> = (self.views.iter())
            .filter(|j| j.absolute_deadline == self.now)
            .cloned()
            .collect();
        late.sort_unstable_by_key(|j| (j.id.task, j.id.number));
        for job in &late {
            self.report_miss(job);
        }
    }

    fn report_miss(&mut self, job: &JobView) {
        self.metrics.record_miss(job.id.task);
        self.record(|| TraceEvent::DeadlineMiss {
            task: job.id.task,
            job: job.id.number,
            at: job.absolute_deadline,
        });
    }

    /// At a frame boundary, forgets the jobs released before it: each has missed its deadline.
    pub(super) fn forget_previous_frame(&mut self, policy: &mut dyn Policy) {
        let Some(frame) = self.hosts.source.frame() else {
            return;
        };
        let now = self.now.since_origin();
        if now.is_zero() || !(now.as_nanos()).is_multiple_of(frame.as_nanos()) {
            return;
        }
        for i in (0..self.views.len()).rev() {
            if self.views[i].release < self.now {
                let job = self.remove(i);
                policy.job_removed(self.now, &job);
            }
        }
    }

    /// Removes job `i` unfinished on the policy's request: discarded, not a miss.
    pub(super) fn discard(&mut self, i: usize) {
        let job = self.remove(i);
        self.metrics.jobs_discarded += 1;
        self.metrics.tasks[job.id.task].jobs_discarded += 1;
        let at = self.now;
        self.record(|| TraceEvent::Discard {
            task: job.id.task,
            job: job.id.number,
            at,
        });
    }

    /// Marks job `i` stopped: no decision may place it again.
    pub(super) fn stop(&mut self, i: usize) {
        self.work[i].stopped = true;
        let (at, id) = (self.now, self.views[i].id);
        if let Some(observer) = self.observer() {
            observer.stopped(at, id);
        }
    }

    /// Replenishes every server, releases every job and fires every timer due now; returns
    /// whether any was.
    pub(super) fn apply_due_events(&mut self, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        while let Some(due) = self.queue.pop_due(self.now) {
            any = true;
            match due {
                Due::Replenish { server } => self.replenish(server, policy),
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
        let source = &mut self.hosts.source;
        let drawn = source.work(task_index, task, number);
        let gap = source.inter_arrival(task_index, task, number);
        let parts = (task.imprecise.as_ref()).filter(|_| self.runs_parts);
        let part_work = parts.map(|p| PartWork::split(drawn, p));
        let (work, budget) = match (part_work, parts) {
            (Some(w), Some(p)) => (w.mandatory, p.mandatory),
            _ => (drawn, source.budget(task_index, task, self.mode)),
        };
        let deadline = at + task.deadline;
        let id = JobId {
            task: task_index,
            number,
        };
        let view = released(id, at, deadline, budget);
        self.metrics.jobs_released += 1;
        self.metrics.tasks[task_index].jobs_released += 1;
        self.record(|| TraceEvent::Release {
            task: task_index,
            job: number,
            at,
            deadline,
        });
        if let Some(observer) = self.observer() {
            observer.released(id, drawn);
        }
        self.queue_release(at + gap, task_index);
        policy.job_released(at, &view);
        if work.is_zero() {
            // A job with nothing to do (bcet = 0 under --exec uniform) completes at its release
            // without taking a core, so no other event decides its completion.
            self.report_completion(&view, policy);
            return;
        }
        self.views.push(view);
        self.work.push(JobWork::new(at, work, part_work));
    }
}
