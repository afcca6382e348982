//! What the engine finds out by itself at an instant ([`Occurrences`]): the jobs whose work
//! is done, the parts that ended, the jobs to abort at their deadline, the releases; and, after
//! the decision, deadline misses and the end of a frame.

use super::side::Side;
use crate::job::JobWork;
use crate::queue::Due;
use kairos_model::Instant;
use kairos_policy::contract::{Contract, Occurrences};
use kairos_policy::{JobId, PartWork, Policy};
use kairos_trace::TraceEvent;

type C = Contract<JobWork>;

impl Side<'_> {
    /// Keeps in `found` the ids of the jobs `pick` selects among `ids`, by task index, then
    /// job number.
    fn find(
        &mut self,
        ids: impl Iterator<Item = JobId>,
        pick: impl Fn(JobId) -> bool,
    ) -> Vec<JobId> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        found.extend(ids.filter(|&id| pick(id)));
        found.sort_unstable_by_key(|id| (id.task, id.number));
        found.dedup();
        found
    }

    /// Keeps in `found` the jobs `pick` selects (by index) among those that can have no work
    /// left: the running jobs and those noted out of work; by task index, then job number.
    fn find_out_of_work(&mut self, c: &C, pick: impl Fn(usize) -> bool) -> Vec<JobId> {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let running = c.jobs.running().iter().flatten().copied();
        let noted = (self.out_of_work.iter()).filter_map(|&id| c.jobs.index_of(id));
        found.extend((running.chain(noted).filter(|&i| pick(i))).map(|i| c.jobs.view(i).id));
        found.sort_unstable_by_key(|id| (id.task, id.number));
        found.dedup();
        found
    }

    /// Records a miss of every job still unfinished at its deadline, now, by task index.
    pub fn observe_deadlines(&mut self, c: &C, now: Instant) {
        let mut late = std::mem::take(&mut self.found);
        late.clear();
        self.deadlines.due(c, now, false, &mut late);
        for id in &late {
            self.report_miss(*id, now);
        }
        self.found = late;
        // With --abort-on-miss, `late_jobs` removes at the next instant a job due now that
        // was released now.
        (self.deadlines).observed(c, now, self.config.abort_on_miss);
    }

    fn report_miss(&mut self, job: JobId, deadline: Instant) {
        self.metrics.record_miss(job.task);
        self.trace(|| TraceEvent::DeadlineMiss {
            task: job.task,
            job: job.number,
            at: deadline,
        });
    }

    /// At a frame boundary, forgets the jobs released before it, by task index: each has
    /// missed its deadline.
    pub fn forget_previous_frame(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) {
        let Some(frame) = self.hosts.source.frame() else {
            return;
        };
        let since = now.since_origin();
        if since.is_zero() || !(since.as_nanos()).is_multiple_of(frame.as_nanos()) {
            return;
        }
        let open = c.jobs.views().iter().map(|v| v.id);
        let old = self.find(open, |id| {
            c.jobs
                .index_of(id)
                .is_some_and(|i| c.jobs.view(i).release < now)
        });
        for id in &old {
            let i = c.jobs.index_of(*id).expect("found among the open jobs");
            c.remove(i, now, self, policy);
        }
        self.found = old;
    }

    /// Each job `ids` names, in order, by `each` (its index at the time).
    fn each_found(
        &mut self,
        c: &mut C,
        ids: Vec<JobId>,
        mut each: impl FnMut(&mut Self, &mut C, usize),
    ) {
        for id in &ids {
            let i = c.jobs.index_of(*id).expect("found among the open jobs");
            each(self, c, i);
        }
        self.found = ids;
    }

    /// Releases the next job of `task` now and queues the one after.
    fn release(&mut self, c: &mut C, task: usize, now: Instant, policy: &mut dyn Policy) {
        let workload = self.workload;
        let spec = &workload.tasks[task];
        let number = self.next_job_number[task];
        self.next_job_number[task] += 1;
        let drawn = self.hosts.source.work(task, spec, number);
        let gap = self.hosts.source.inter_arrival(task, spec, number);
        let parts = (spec.imprecise.as_ref()).filter(|_| c.runs_parts());
        let part_work = parts.map(|p| PartWork::split(drawn, p));
        let work = part_work.map_or(drawn, |w| w.mandatory);
        let id = JobId { task, number };
        let deadline = now + spec.deadline;
        self.metrics.jobs_released += 1;
        self.metrics.tasks[task].jobs_released += 1;
        self.trace(|| TraceEvent::Release {
            task,
            job: number,
            at: now,
            deadline,
        });
        if let Some(observer) = &mut self.hosts.observer {
            observer.released(id, drawn);
        }
        self.queue_release(now + gap, task);
        self.deadlines.released(deadline, id);
        let workload = self.workload;
        let side = JobWork::new(now, work);
        let i = c.release(id, now, part_work, side, &workload.tasks, self, policy);
        if work.is_zero() {
            // A job with nothing to do (bcet = 0 under --exec uniform) completes at its release
            // without taking a core, so no other event decides its completion.
            c.complete(i, now, self, policy);
        }
    }
}

impl Occurrences<JobWork> for Side<'_> {
    fn completions(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        let done = self.find_out_of_work(c, |i| {
            c.jobs.side(i).remaining.is_zero() && c.jobs.in_last_part(i)
        });
        let any = !done.is_empty();
        self.each_found(c, done, |side, c, i| _ = c.complete(i, now, side, policy));
        any
    }

    /// Runs after the instant's completions: every job left with no work is in a part that is
    /// not its last.
    fn part_ends(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        if !c.runs_parts() {
            // Every job is in its last part: those with no work left have just completed.
            self.out_of_work.clear();
            return false;
        }
        let ended = self.find_out_of_work(c, |i| c.jobs.side(i).remaining.is_zero());
        // Every job noted is now done with or found; ending these parts notes afresh.
        self.out_of_work.clear();
        let any = !ended.is_empty();
        let workload = self.workload;
        let tasks = workload.tasks.as_slice();
        self.each_found(c, ended, |side, c, i| {
            c.end_part(i, now, tasks, side, policy)
        });
        any
    }

    /// With `--abort-on-miss`, removes every unfinished job whose deadline has come (a miss),
    /// so that its core goes to another job at this instant.
    fn late_jobs(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        if !self.config.abort_on_miss {
            return false;
        }
        let mut late = std::mem::take(&mut self.found);
        late.clear();
        self.deadlines.due(c, now, true, &mut late);
        let any = !late.is_empty();
        self.each_found(c, late, |side, c, i| {
            let job = c.remove(i, now, side, policy);
            let (task, number) = (job.id.task, job.id.number);
            side.report_miss(job.id, job.absolute_deadline);
            side.metrics.jobs_aborted += 1;
            side.metrics.tasks[task].jobs_aborted += 1;
            side.trace(|| TraceEvent::Abort {
                task,
                job: number,
                at: now,
            });
        });
        any
    }

    fn releases(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        while let Some(Due::Release { task }) = self.queue.pop_due(now) {
            any = true;
            self.release(c, task, now, policy);
        }
        any
    }
}
