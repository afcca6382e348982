//! What a pass finds out by itself ([`Occurrences`]): completions and part ends (the workers
//! stamp them in the slots), releases (from the job source, at their nominal instants); the
//! next instant with something due; and the end of a frame, after the instant's decision.

use super::parts::JobDraw;
use super::shared::{part_word, Shared, SLOTS_PER_TASK};
use super::side::{Pass, RunJob};
use crate::measure::JobRecord;
use kairos_model::{Duration, Instant, Part};
use kairos_policy::contract::{Contract, Occurrences};
use kairos_policy::{JobId, Policy};
use std::sync::atomic::Ordering;

type C = Contract<RunJob>;

/// How the reason of a run stopped by too many unfinished jobs of a task ends.
pub const OVERLOADED: &str = "the run is overloaded";

impl Pass<'_> {
    /// Execution received by each job, from its slot (the workers' progress). Only the views
    /// of jobs that executed since are written: a line another core's pass reads next stays
    /// shared.
    pub fn refresh_progress(&mut self, c: &mut C) {
        for (view, run) in c.jobs.each_mut() {
            let remaining = self.shared.slot(view.id).remaining.load(Ordering::Relaxed);
            let executed = Duration::from_nanos(run.work.saturating_sub(remaining));
            if view.executed != executed {
                view.executed = executed;
            }
        }
    }

    /// The earliest instant up to `now` with an event (a completion or part end, a release, a
    /// timer, a server's exhaustion or replenishment) not yet decided on; `now` itself at the
    /// first pass.
    pub fn next_instant(&self, c: &C, now: u64, decided: bool) -> Option<u64> {
        let last = self.side.last_at;
        let slots = c.jobs.views().iter().map(|v| self.shared.slot(v.id));
        let completion = (slots.flat_map(|s| [&s.completed_at, &s.part_end_at]))
            .map(|stamp| stamp.load(Ordering::Acquire))
            .filter(|&stamp| stamp != 0)
            .map(|stamp| (stamp - 1).max(last))
            .min();
        let release = self.earliest_release().map(|(_, at)| at);
        let timer = c.timers.earliest().map(Instant::as_nanos);
        let first = !decided && !self.side.steps.asked_any();
        let servers = &c.servers;
        let exhaustion = servers
            .next_exhaustion(c.jobs.running())
            .map(|(at, _)| at.as_nanos());
        let replenishment = servers.next_replenishment().map(|(at, _)| at.as_nanos());
        [
            completion,
            release,
            timer,
            exhaustion,
            replenishment,
            first.then_some(now),
        ]
        .into_iter()
        .flatten()
        .filter(|&at| at <= now)
        .min()
    }

    /// The stamp (time + 1) a worker left in a slot word, if it is due by `at`.
    fn stamped(word: &std::sync::atomic::AtomicU64, at: u64) -> Option<u64> {
        let stamp = word.load(Ordering::Acquire);
        (stamp != 0 && stamp - 1 <= at).then(|| stamp - 1)
    }

    /// Loads a new job's work into its slot; false (and the run fails) if the slot's previous
    /// job is still unfinished or a worker still holds it (then more than [`SLOTS_PER_TASK`]
    /// jobs of the task are pending: the run is overloaded beyond what it can track).
    pub fn load_slot(&mut self, id: JobId, draw: &JobDraw) -> bool {
        let shared: &Shared = self.shared;
        let slot = shared.slot(id);
        let used = slot.job.load(Ordering::Acquire) != 0;
        let open = used && slot.completed_at.load(Ordering::Acquire) == 0;
        let held = (shared.holders)
            .holder(super::shared::slot_index(id))
            .is_some();
        if open || held {
            let name = &self.tasks[id.task].name;
            let at = Instant::from_nanos(self.side.next_release[id.task]);
            self.side.fail(format!(
                "task {name} has {SLOTS_PER_TASK} released, unfinished jobs at {at}: {OVERLOADED}",
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

    pub fn earliest_release(&self) -> Option<(usize, u64)> {
        (self.side.next_release.iter().copied().enumerate())
            .filter(|&(_, at)| at != u64::MAX)
            .min_by_key(|&(task, at)| (at, task))
    }

    /// Releases the next job of `task`, due at `when`, with its drawn work; false if its slot
    /// could not be loaded (the run fails).
    fn release(&mut self, c: &mut C, task: usize, when: u64, policy: &mut dyn Policy) -> bool {
        let number = self.side.next_number[task];
        let id = JobId { task, number };
        let preloaded = self.side.preloaded[task].take();
        let draw = match preloaded.filter(|&(n, _)| n == number) {
            Some((_, draw)) => draw,
            None => {
                let draw = self.draw_job(id);
                if !self.load_slot(id, &draw) {
                    return false;
                }
                draw
            }
        };
        let spec = &self.tasks[task];
        self.side.next_number[task] += 1;
        let gap = self
            .side
            .source
            .inter_arrival(task, spec, number)
            .as_nanos();
        let next = when + gap.max(1);
        self.side.next_release[task] = if next < self.side.end { next } else { u64::MAX };
        let record = self.side.records.len();
        self.side.records.push(JobRecord {
            task,
            job: number,
            release: when,
            deadline: when + spec.deadline.as_nanos(),
            requested: None,
            start: None,
            completion: None,
            discarded: None,
            cpu: None,
            release_core: Some(self.side.home[task]),
        });
        let run = RunJob {
            record,
            work: draw.first,
            part_changes: 0,
        };
        let tasks = self.tasks;
        c.release(
            id,
            Instant::from_nanos(when),
            draw.parts,
            run,
            tasks,
            self,
            policy,
        );
        true
    }

    /// At each frame boundary up to `at`, after the instant's decision, the jobs released
    /// before it are forgotten unfinished (by task index, then job number): each has missed
    /// its deadline (at most the boundary). Reported to the policy now, and recorded with the
    /// next question's events.
    pub fn forget_ended_frames(&mut self, c: &mut C, at: u64, policy: &mut dyn Policy) {
        let Some(frame) = self.side.source.frame().map(|f| f.as_nanos()) else {
            return;
        };
        while let Some(boundary) = self.side.frame_end.filter(|&b| b <= at) {
            let mut old = std::mem::take(&mut self.side.due);
            old.extend(
                (c.jobs.views().iter())
                    .filter(|v| v.release.as_nanos() < boundary)
                    .map(|v| (v.id, boundary)),
            );
            old.sort_unstable_by_key(|(id, _)| (id.task, id.number));
            for &(id, _) in &old {
                let i = c.jobs.index_of(id).expect("found among the open jobs");
                c.remove(i, Instant::from_nanos(at), self, policy);
            }
            old.clear();
            self.side.due = old;
            self.side.frame_end = Some(boundary + frame);
        }
    }
}

impl Occurrences<RunJob> for Pass<'_> {
    /// Every job whose worker finished it by `now`, reported at its completion time (a stamp
    /// before the last decision counts as at it: a pass never goes back in time).
    fn completions(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        let at = now.as_nanos();
        let mut done = std::mem::take(&mut self.side.due);
        done.extend((c.jobs.views().iter()).filter_map(|v| {
            Some((
                v.id,
                Self::stamped(&self.shared.slot(v.id).completed_at, at)?,
            ))
        }));
        done.sort_unstable_by_key(|(id, _)| (id.task, id.number));
        for &(id, stamp) in &done {
            let i = c.jobs.index_of(id).expect("found among the open jobs");
            self.side.records[c.jobs.side(i).record].completion = Some(stamp);
            let when = Instant::from_nanos(stamp.max(self.side.last_at));
            c.complete(i, when, self, policy);
        }
        let any = !done.is_empty();
        done.clear();
        self.side.due = done;
        any
    }

    /// Every part whose worker finished it by `now` (by the end's time): its job moves on. A
    /// stamp of a part a cut has replaced is dropped (after the decision, as every part end).
    fn part_ends(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        let at = now.as_nanos();
        let mut ended = std::mem::take(&mut self.side.due);
        for i in 0..c.jobs.len() {
            let view = c.jobs.view(i);
            if !c.jobs.runs_by_parts(i) {
                continue;
            }
            let slot = self.shared.slot(view.id);
            let Some(stamp) = Self::stamped(&slot.part_end_at, at) else {
                continue;
            };
            let word = part_word(
                c.jobs.side(i).part_changes,
                false,
                view.part == Part::Optional,
            );
            if slot.part_end_word.load(Ordering::Relaxed) == word {
                ended.push((view.id, stamp));
            } else {
                // A part a cut replaced: nothing to report, but its worker let the job go, and
                // may take it again only under the decision that follows (as after a part end).
                self.side.part_ends_taken.push(view.id);
            }
        }
        ended.sort_unstable_by_key(|(id, _)| (id.task, id.number));
        for &(id, stamp) in &ended {
            let i = c.jobs.index_of(id).expect("found among the open jobs");
            let when = Instant::from_nanos(stamp.max(self.side.last_at));
            let tasks = self.tasks;
            c.end_part(i, when, tasks, self, policy);
            self.side.part_ends_taken.push(id);
        }
        let any = !ended.is_empty();
        ended.clear();
        self.side.due = ended;
        any
    }

    /// Every job due by `now`, earliest first (ties by task index).
    fn releases(&mut self, c: &mut C, now: Instant, policy: &mut dyn Policy) -> bool {
        let mut any = false;
        while let Some((task, when)) = self
            .earliest_release()
            .filter(|&(_, w)| w <= now.as_nanos())
        {
            if !self.release(c, task, when, policy) {
                return any;
            }
            any = true;
        }
        any
    }
}
