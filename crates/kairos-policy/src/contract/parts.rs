//! Imprecise jobs run by parts (the extended imprecise computation model of Chishiro and
//! Yamasaki's evaluation of G-RMWP and P-RMWP): a job moves from its mandatory part to its
//! optional part (passed over when empty) and its wind-up part, when a part has executed all
//! its work or when the policy cuts its optional part. When each part may run is the
//! policy's; the engine loads each part's work ([`Host::next_part`]).

use super::{Contract, Host};
use crate::job::JobId;
use crate::parts::part_budget;
use kairos_model::{Duration, Instant, Part, Task};
use kairos_trace::{PartOutcome, TraceEvent};

/// A job's move from one part to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartChange {
    pub ended: Part,
    pub next: Part,
    /// The next part's work.
    pub work: Duration,
    /// The policy cut the ended part ([`crate::Action::CutOptional`]); else it executed all its
    /// work.
    pub cut: bool,
}

impl<J> Contract<J> {
    /// Ends job `i`'s current part at `now` (`cut`: on the policy's request) and starts the
    /// next one; returns the part that ended. Records the end, and for an optional part its
    /// figures (a cut at the instant the part began, with nothing executed, is a skip).
    pub(super) fn advance_part<H: Host<J>>(
        &mut self,
        i: usize,
        now: Instant,
        cut: bool,
        tasks: &[Task],
        host: &mut H,
    ) -> Part {
        let id = self.jobs.view(i).id;
        let (work, began) =
            (self.jobs.marks_mut(i).parts).expect("only jobs run by parts change part");
        let spec = tasks[id.task]
            .imprecise
            .expect("a job run by parts is imprecise");
        let ended = self.jobs.view(i).part;
        let mut next = ended.next().expect("the wind-up part is a job's last");
        if next == Part::Optional && work.optional.is_zero() {
            next = Part::Windup;
        }
        let change = PartChange {
            ended,
            next,
            work: work.of(next),
            cut,
        };
        let (view, side) = self.jobs.parts_mut(i);
        let executed = host.next_part(now, view, side, &change);
        let outcome = match (cut, began == now && executed.is_zero()) {
            (false, _) => PartOutcome::Completed,
            (true, false) => PartOutcome::Cut,
            (true, true) => PartOutcome::Skipped,
        };
        if ended == Part::Optional {
            host.optional_ended(id.task, work.optional, executed, outcome);
        }
        host.record(TraceEvent::PartEnd {
            task: id.task,
            job: id.number,
            at: now,
            part: ended,
            outcome,
            next,
        });
        let marks = self.jobs.marks_mut(i);
        marks.parts = Some((work, now));
        marks.exhausted = false;
        let view = self.jobs.view_mut(i);
        view.part = next;
        view.budget = part_budget(&spec, next);
        view.executed = Duration::ZERO;
        ended
    }

    /// Cuts job `i`'s optional part at `now`, on the policy's request.
    pub(super) fn cut_optional<H: Host<J>>(
        &mut self,
        id: JobId,
        now: Instant,
        tasks: &[Task],
        host: &mut H,
    ) -> Result<(), super::Refused> {
        let i = self.find(id, "a cut")?;
        let view = self.jobs.view(i);
        if view.part != Part::Optional || !self.jobs.runs_by_parts(i) {
            return Err(super::Refused(format!(
                "a cut of job {}#{} in its {} part, not an optional one",
                id.task,
                id.number,
                view.part.name()
            )));
        }
        self.advance_part(i, now, true, tasks, host);
        Ok(())
    }
}
