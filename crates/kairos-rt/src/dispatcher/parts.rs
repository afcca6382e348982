//! Imprecise jobs run by parts on real cores (the extended imprecise computation model of
//! Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP), the runtime's side of what the
//! simulator's engine does in `kairos_sim::engine::parts`: a job's body executes its parts one
//! after the other, each part's work loaded into the job's slot by the scheduler.
//!
//! - **The end of a part by execution**: the worker finds no work left in a part that is not
//!   the job's last, lets the job go and stamps the end in the slot ([`super::shared`]); the
//!   next pass reports it at that time ([`Policy::part_completed`], timed per part), loads the
//!   next part and the decision places the job again (its core's dispatcher resumes the worker
//!   if it stays there).
//! - **A cut** ([`kairos_policy::Action::CutOptional`]): the scheduler replaces the optional
//!   part's work by the wind-up's while the worker may still be executing it; the worker goes
//!   on with the wind-up, its segment split at the cut. A cut at the instant the optional part
//!   began, with nothing executed, is a skip, as in the simulator.

use super::scheduler::Scheduler;
use super::shared::{part_word, Shared};
use crate::platform::clock;
use kairos_model::{Duration, Instant, Part};
use kairos_policy::parts::{part_budget, PartWork};
use kairos_policy::{JobId, Reported};
use kairos_trace::{PartOutcome, TraceEvent};
use std::sync::atomic::Ordering;

/// Histogram of [`kairos_policy::Policy::part_completed`] for a mandatory part (G-RMWP's and
/// P-RMWP's `end_mandatory`), ns.
pub const END_MANDATORY: &str = "policy.part_completed.mandatory";
/// The same for an optional part (`end_optional`), ns.
pub const END_OPTIONAL: &str = "policy.part_completed.optional";

/// A released job's work as its body executes it: its first part's and, for a job run by
/// parts, each part's.
#[derive(Clone, Copy, Debug)]
pub(super) struct JobDraw {
    pub first: u64,
    pub parts: Option<PartWork>,
}

/// A job run by parts: each part's work, how many parts it has ended, and when its current
/// part began.
#[derive(Clone, Copy, Debug)]
pub(super) struct JobParts {
    work: PartWork,
    count: u64,
    began: u64,
}

impl JobParts {
    pub fn new(work: PartWork, released: u64) -> Self {
        JobParts {
            work,
            count: 0,
            began: released,
        }
    }
}

impl Scheduler {
    /// The work of a job as its body executes it: the source's draw (one per job, in release
    /// order), scaled, and split into parts as the simulator splits it when the policy runs
    /// the task by parts.
    pub(super) fn draw_job(&mut self, id: JobId) -> JobDraw {
        let spec = &self.tasks[id.task];
        let drawn = self.source.work(id.task, spec, id.number);
        let scale = self.work_scale;
        let scaled =
            |d: Duration| Duration::from_nanos((d.as_nanos() as f64 * scale).round() as u64);
        match spec.imprecise.as_ref().filter(|_| self.runs_parts) {
            Some(p) => {
                let split = PartWork::split(drawn, p);
                let work = PartWork {
                    mandatory: scaled(split.mandatory).max(Duration::from_nanos(1)),
                    optional: scaled(split.optional),
                    windup: scaled(split.windup).max(Duration::from_nanos(1)),
                };
                JobDraw {
                    first: work.mandatory.as_nanos(),
                    parts: Some(work),
                }
            }
            None => JobDraw {
                first: scaled(drawn).as_nanos(),
                parts: None,
            },
        }
    }

    /// Reports every part whose worker finished it by `at` (by the end's time, by task index)
    /// and moves its job to its next part. A stamp of a part a cut has replaced is
    /// dropped (after the decision, as every part end).
    pub(super) fn end_finished_parts(
        &mut self,
        shared: &Shared,
        at: u64,
        events: &mut Vec<Reported>,
    ) {
        let mut ended: Vec<(JobId, u64)> = Vec::new();
        for view in &self.views {
            let Some(parts) = self.parts.get(&view.id) else {
                continue;
            };
            let slot = shared.slot(view.id);
            let stamp = slot.part_end_at.load(Ordering::Acquire);
            if stamp == 0 || stamp - 1 > at {
                continue;
            }
            let word = part_word(parts.count, false, view.part == Part::Optional);
            if slot.part_end_word.load(Ordering::Relaxed) == word {
                ended.push((view.id, stamp - 1));
            } else {
                // A part a cut replaced: nothing to report, but its worker let the job go, and
                // may take it again only under the decision that follows (as after a part end).
                self.part_ends_taken.push(view.id);
            }
        }
        ended.sort_by_key(|&(id, _)| (id.task, id.number));
        for (id, stamp) in ended {
            let when = stamp.max(self.last_at);
            let Some(i) = self.views.iter().position(|v| v.id == id) else {
                continue;
            };
            let part = self.views[i].part;
            self.advance_part(shared, i, when, false);
            self.part_ends_taken.push(id);
            events.push(Reported::PartCompleted(id, part, Instant::from_nanos(when)));
            let cost = match part {
                Part::Mandatory => END_MANDATORY,
                _ => END_OPTIONAL,
            };
            let began = clock::now_ns();
            (self.policy).part_completed(Instant::from_nanos(when), &self.views[i], part);
            (self.measurements).record(cost, clock::now_ns().saturating_sub(began));
        }
    }

    /// Lets the workers of the jobs whose part ends this pass took in run their next parts:
    /// called once the decision that followed is published, so that a worker that sees the
    /// part end gone also sees where the job is wanted now (see `super::worker`).
    pub(super) fn release_part_ends(&mut self, shared: &Shared) {
        for id in self.part_ends_taken.drain(..) {
            shared.slot(id).part_end_at.store(0, Ordering::Release);
        }
    }

    /// Cuts job `id`'s optional part at `at`, on the policy's request.
    pub(super) fn cut_optional(
        &mut self,
        shared: &Shared,
        id: JobId,
        at: u64,
    ) -> Result<(), String> {
        let i = self.find(id, "a cut")?;
        if self.views[i].part != Part::Optional || !self.parts.contains_key(&id) {
            return Err(format!(
                "a cut of job {}#{} in its {} part, not an optional one",
                id.task,
                id.number,
                self.views[i].part.name()
            ));
        }
        self.advance_part(shared, i, at, true);
        if let Some(core) = self.views[i].running_on {
            // Its worker runs the wind-up as a real-time thread again (see `super::percore`).
            shared.cores[core].ring();
        }
        Ok(())
    }

    /// Ends job `i`'s current part at `at` (by execution, or `cut`) and loads its next one
    /// (passing over an empty optional part); records the end in the trace and, for an
    /// optional part, in the run's optional figures.
    fn advance_part(&mut self, shared: &Shared, i: usize, at: u64, cut: bool) {
        let id = self.views[i].id;
        let ended = self.views[i].part;
        let spec = (self.tasks[id.task].imprecise).expect("a job run by parts is imprecise");
        let parts = self.parts.get_mut(&id).expect("a job run by parts");
        let mut next = ended.next().expect("the wind-up part is a job's last");
        if next == Part::Optional && parts.work.optional.is_zero() {
            next = Part::Windup;
        }
        parts.count += 1;
        let work = parts.work.of(next).as_nanos();
        let slot = shared.slot(id);
        // The work first, then the part's word: see the cut in `super::shared`.
        let left = slot.remaining.swap(work, Ordering::AcqRel);
        let word = part_word(parts.count, next == Part::Windup, next == Part::Optional);
        slot.part.store(word, Ordering::Release);
        let record = self.record_of[&id];
        let executed = self.work[record].saturating_sub(left);
        let skipped = cut && parts.began == at && executed == 0;
        parts.began = at;
        let outcome = match (cut, skipped) {
            (false, _) => PartOutcome::Completed,
            (true, false) => PartOutcome::Cut,
            (true, true) => PartOutcome::Skipped,
        };
        if ended == Part::Optional {
            let requested = parts.work.optional;
            if let Some(figures) = &mut self.optional[id.task] {
                figures.add(requested, Duration::from_nanos(executed), outcome);
            }
        }
        self.work[record] = work;
        self.part_events.push(TraceEvent::PartEnd {
            task: id.task,
            job: id.number,
            at: Instant::from_nanos(at),
            part: ended,
            outcome,
            next,
        });
        let view = &mut self.views[i];
        view.part = next;
        view.budget = part_budget(&spec, next);
        view.executed = Duration::ZERO;
        self.exhausted.remove(&id);
    }
}
