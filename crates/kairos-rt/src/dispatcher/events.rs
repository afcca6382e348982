//! The events a pass reports, in the contract's order at one instant: completions (the workers
//! stamp them), budget overruns, releases (from the job source, at their nominal instants) and
//! policy timers; and the end of a frame, after the instant's decision.

use super::parts::{JobDraw, JobParts};
use super::scheduler::{Scheduler, JOB_COMPLETED, JOB_RELEASED, TIMER_FIRED};
use super::shared::{part_word, Shared, SLOTS_PER_TASK};
use crate::measure::JobRecord;
use crate::platform::clock;
use kairos_model::{Duration, Instant};
use kairos_policy::parts::part_budget;
use kairos_policy::{JobId, JobView, Part, Reported};
use std::sync::atomic::Ordering;

impl Scheduler {
    /// Execution received by each job, from its slot (the workers' progress).
    pub(super) fn refresh_progress(&mut self, shared: &Shared) {
        for view in &mut self.views {
            let remaining = shared.slot(view.id).remaining.load(Ordering::Relaxed);
            let work = self.work[self.record_of[&view.id]];
            view.executed = Duration::from_nanos(work.saturating_sub(remaining));
        }
    }

    /// Reports and removes every job whose worker finished it by `at` (stamps before the last
    /// decision count as at it: a pass never goes back in time).
    pub(super) fn complete(&mut self, shared: &Shared, at: u64, events: &mut Vec<Reported>) {
        let mut done: Vec<(usize, u64)> = Vec::new();
        for (i, view) in self.views.iter().enumerate() {
            let stamp = shared.slot(view.id).completed_at.load(Ordering::Acquire);
            if stamp != 0 && stamp - 1 <= at {
                done.push((i, stamp - 1));
            }
        }
        // Removed from the back so earlier indices stay valid; reported by task index.
        let mut finished: Vec<(JobView, u64)> = Vec::with_capacity(done.len());
        for &(i, stamp) in done.iter().rev() {
            finished.push((self.views.swap_remove(i), stamp));
        }
        finished.sort_by_key(|(v, _)| (v.id.task, v.id.number));
        for (view, stamp) in finished {
            let record = self.record_of[&view.id];
            self.records[record].completion = Some(stamp);
            self.stopped.remove(&view.id);
            self.exhausted.remove(&view.id);
            self.parts.remove(&view.id);
            let when = Instant::from_nanos(stamp.max(self.last_at));
            events.push(Reported::Completed(view.id, when));
            let began = clock::now_ns();
            self.policy.job_completed(when, &view);
            (self.measurements).record(JOB_COMPLETED, clock::now_ns().saturating_sub(began));
        }
    }

    /// Reports every unfinished job that has executed its whole budget, once per budget.
    pub(super) fn report_exhausted(&mut self, at: u64, events: &mut Vec<Reported>) {
        let now = Instant::from_nanos(at);
        for i in 0..self.views.len() {
            let view = &self.views[i];
            if view.budget_left().is_zero() && self.exhausted.insert(view.id) {
                events.push(Reported::BudgetExhausted(view.id, now));
                self.policy.budget_exhausted(now, &self.views[i]);
            }
        }
    }

    /// Releases every job due by `at`, earliest first (ties by task index).
    pub(super) fn release_due(&mut self, shared: &Shared, at: u64, events: &mut Vec<Reported>) {
        while let Some((task, when)) = self.earliest_release().filter(|&(_, w)| w <= at) {
            let number = self.next_number[task];
            let id = JobId { task, number };
            let draw = match self.preloaded.remove(&id) {
                Some(draw) => draw,
                None => {
                    let draw = self.draw_job(id);
                    if !self.load_slot(shared, id, &draw) {
                        return;
                    }
                    draw
                }
            };
            let spec = &self.tasks[task];
            self.next_number[task] += 1;
            let gap = self.source.inter_arrival(task, spec, number).as_nanos();
            let next = when + gap.max(1);
            self.next_release[task] = if next < self.end { next } else { u64::MAX };
            let deadline = when + spec.deadline.as_nanos();
            let budget = match (&spec.imprecise, draw.parts) {
                (Some(parts), Some(work)) => {
                    self.parts.insert(id, JobParts::new(work, when));
                    part_budget(parts, Part::Mandatory)
                }
                _ => self.source.budget(task, spec, self.mode),
            };
            let view = JobView {
                id,
                release: Instant::from_nanos(when),
                absolute_deadline: Instant::from_nanos(deadline),
                part: Part::Mandatory,
                budget,
                executed: Duration::ZERO,
                running_on: None,
                last_core: None,
            };
            self.record_of.insert(id, self.records.len());
            self.work.push(draw.first);
            self.records.push(JobRecord {
                task,
                job: number,
                release: when,
                deadline,
                start: None,
                completion: None,
                discarded: None,
                cpu: None,
            });
            events.push(Reported::Released(id, view.release));
            let began = clock::now_ns();
            self.policy.job_released(view.release, &view);
            (self.measurements).record(JOB_RELEASED, clock::now_ns().saturating_sub(began));
            self.views.push(view);
        }
    }

    /// Loads a new job's work into its slot; false (and the run fails) if the slot's previous
    /// job is still unfinished or a worker still holds it (then more than [`SLOTS_PER_TASK`]
    /// jobs of the task are pending: the run is overloaded beyond what it can track).
    pub(super) fn load_slot(&mut self, shared: &Shared, id: JobId, draw: &JobDraw) -> bool {
        let slot = shared.slot(id);
        let used = slot.job.load(Ordering::Acquire) != 0;
        let open = used && slot.completed_at.load(Ordering::Acquire) == 0;
        let held = shared
            .holders
            .holder(super::shared::slot_index(id))
            .is_some();
        if open || held {
            let name = &self.tasks[id.task].name;
            self.fail(format!(
                "task {name} has {SLOTS_PER_TASK} released, unfinished jobs at {}: the run is overloaded",
                Instant::from_nanos(self.next_release[id.task])
            ));
            return false;
        }
        slot.completed_at.store(0, Ordering::Relaxed);
        slot.last_core.store(0, Ordering::Relaxed);
        slot.remaining.store(draw.first, Ordering::Relaxed);
        (slot.part).store(part_word(0, draw.parts.is_none(), false), Ordering::Relaxed);
        slot.part_end_at.store(0, Ordering::Relaxed);
        slot.job.store(id.number + 1, Ordering::Release);
        true
    }

    pub(super) fn earliest_release(&self) -> Option<(usize, u64)> {
        (self.next_release.iter().copied().enumerate())
            .filter(|&(_, at)| at != u64::MAX)
            .min_by_key(|&(task, at)| (at, task))
    }

    pub(super) fn fire_due_timers(&mut self, at: u64, events: &mut Vec<Reported>) {
        while let Some(i) = (self.timers.iter().enumerate())
            .filter(|(_, &(_, when))| when <= at)
            .min_by_key(|&(i, &(_, when))| (when, i))
            .map(|(i, _)| i)
        {
            let (timer, when) = self.timers.remove(i);
            events.push(Reported::Timer(timer, Instant::from_nanos(when)));
            let began = clock::now_ns();
            self.policy.timer_fired(Instant::from_nanos(when), timer);
            (self.measurements).record(TIMER_FIRED, clock::now_ns().saturating_sub(began));
        }
    }

    /// Removes an open job from the view and closes its slot for good: its worker stops at its
    /// core's next request and never runs it again.
    pub(super) fn remove_open(
        &mut self,
        id: JobId,
        at: u64,
        shared: &Shared,
        what: &str,
    ) -> Result<(), String> {
        let i = self.find(id, what)?;
        self.views.swap_remove(i);
        self.parts.remove(&id);
        self.stopped.remove(&id);
        self.exhausted.remove(&id);
        (shared.slot(id).completed_at).store(at + 1, Ordering::Release);
        Ok(())
    }

    /// At each frame boundary up to `at`, after the instant's decision, the jobs released
    /// before it are forgotten unfinished: each has missed its deadline (at most the boundary).
    /// Reported to the policy now, and recorded with the next question's events.
    pub(super) fn forget_ended_frames(&mut self, shared: &Shared, at: u64) {
        let Some(frame) = self.source.frame().map(|f| f.as_nanos()) else {
            return;
        };
        while let Some(boundary) = self.frame_end.filter(|&b| b <= at) {
            let old: Vec<JobId> = (self.views.iter())
                .filter(|v| v.release.as_nanos() < boundary)
                .map(|v| v.id)
                .collect();
            for id in old {
                if let Some(job) = self.views.iter().find(|v| v.id == id).cloned() {
                    self.removed
                        .push(Reported::Removed(id, Instant::from_nanos(at)));
                    self.policy.job_removed(Instant::from_nanos(at), &job);
                }
                // Found: `old` comes from the view.
                let _ = self.remove_open(id, at, shared, "forget");
            }
            self.frame_end = Some(boundary + frame);
        }
    }
}
