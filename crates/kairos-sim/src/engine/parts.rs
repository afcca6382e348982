//! Imprecise jobs run by parts (the extended imprecise computation model of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP): the end of a
//! part by execution, reported to the policy, and the cut of an optional part the policy asks
//! for. The engine moves a job from part to part; when each part may run is the policy's.

use super::Engine;
use crate::SimError;
use kairos_model::{Duration, Part};
use kairos_policy::parts::part_budget;
use kairos_policy::Policy;
use kairos_trace::{PartOutcome, TraceEvent};

impl Engine<'_> {
    /// Moves every job whose current part has no work left (and is not its last) to its next
    /// part, reporting each end by task index; returns whether any ended. Runs after the
    /// instant's completions.
    pub(super) fn end_finished_parts(&mut self, policy: &mut dyn Policy) -> bool {
        let mut ended: Vec<usize> = (0..self.views.len())
            .filter(|&i| self.work[i].remaining.is_zero())
            .collect();
        ended.sort_unstable_by_key(|&i| (self.views[i].id.task, self.views[i].id.number));
        for &i in &ended {
            let part = self.views[i].part;
            self.advance_part(i, PartOutcome::Completed);
            policy.part_completed(self.now, &self.views[i], part);
        }
        !ended.is_empty()
    }

    /// Ends job `i`'s optional part unfinished, on the policy's request.
    pub(super) fn cut_optional(&mut self, i: usize) -> Result<(), SimError> {
        let (view, work) = (&self.views[i], &self.work[i]);
        if view.part != Part::Optional || work.parts.is_none() {
            return Err(self.invalid(format!(
                "a cut of job {}#{} in its {} part, not an optional one",
                view.id.task,
                view.id.number,
                view.part.name()
            )));
        }
        let outcome = match work.part_began == self.now && view.executed.is_zero() {
            true => PartOutcome::Skipped,
            false => PartOutcome::Cut,
        };
        self.advance_part(i, outcome);
        Ok(())
    }

    /// Ends job `i`'s current part with `outcome` and starts the next one (passing over an
    /// empty optional part). A running job keeps its core; its segment is split at the part's
    /// end so that each segment belongs to one part.
    fn advance_part(&mut self, i: usize, outcome: PartOutcome) {
        let (now, id, ended) = (self.now, self.views[i].id, self.views[i].part);
        let parts = self.work[i]
            .parts
            .expect("only jobs run by parts change part");
        let spec = (self.workload.tasks[id.task].imprecise)
            .expect("a job run by parts belongs to an imprecise task");
        if ended == Part::Optional {
            let executed = self.views[i].executed;
            (self.metrics).record_optional(id.task, parts.optional, executed, outcome);
        }
        let mut next = ended.next().expect("the wind-up part is a job's last");
        if next == Part::Optional && parts.optional.is_zero() {
            next = Part::Windup;
        }
        self.split_segment(i);
        self.record(|| TraceEvent::PartEnd {
            task: id.task,
            job: id.number,
            at: now,
            part: ended,
            outcome,
            next,
        });
        let handback = match outcome {
            PartOutcome::Completed if self.views[i].running_on.is_some() => self.handback_cost(),
            _ => Duration::ZERO,
        };
        let (view, work) = (&mut self.views[i], &mut self.work[i]);
        view.part = next;
        view.budget = part_budget(&spec, next);
        view.executed = Duration::ZERO;
        // Overhead of the current switch still to pay stays to pay.
        work.overhead_left += handback;
        work.remaining = work.overhead_left + parts.of(next);
        work.exhausted = false;
        work.part_began = now;
    }

    /// What a running job pays when a part ends by execution: the runtime's worker hands the
    /// job back to its dispatcher there (the policy decides what runs next, as at a
    /// completion) and is started again when the decision keeps it: a scheduling decision and
    /// a context switch. Zero with the default (zero) overheads, so the paper's schedules stay
    /// as they are; a cut is not charged, the runtime's worker goes on through it.
    fn handback_cost(&mut self) -> Duration {
        let overheads = self.config.overheads;
        self.charges.charge(overheads.scheduling) + self.charges.charge(overheads.context_switch)
    }

    /// Closes the running segment of job `i` at now and opens the next one on the same core.
    fn split_segment(&mut self, i: usize) {
        if let Some(core) = self.views[i].running_on {
            self.record_segment(i, core);
        }
    }
}
