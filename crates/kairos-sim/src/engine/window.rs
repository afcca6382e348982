//! Recording only a window `[from, to]` of a run (`TraceBounds::window`): what a Gantt chart of
//! that window draws, in memory that does not grow with the time simulated before it.
//!
//! A segment's part is read from its job's last part end before it, and that part end may lie
//! before the window. Keeping every part end before the window would let a late window of a long
//! run pass the trace's cap on part ends alone, so each open job's last one is held back and
//! recorded just before the job's first segment in the window, unless a later part end of the
//! job comes first (in the window, where it is recorded as it happens); a job that leaves
//! drops its own.

use kairos_model::Instant;
use kairos_policy::JobId;
use kairos_trace::TraceEvent;
use std::collections::HashMap;

/// The last part end before the window of each job still open.
#[derive(Default)]
pub(super) struct HeldParts(HashMap<(usize, u64), TraceEvent>);

impl HeldParts {
    /// The events to record for `event` in the window `[from, to]`, in order: none, the event,
    /// or its job's held part end and then the event (its first segment in the window).
    pub fn admit(
        &mut self,
        event: TraceEvent,
        (from, to): (Instant, Instant),
    ) -> [Option<TraceEvent>; 2] {
        if let TraceEvent::PartEnd { task, job, at, .. } = event {
            if at < from {
                self.0.insert((task, job), event);
                return [None, None];
            }
            // A later part end says the part of the job's next segments.
            self.0.remove(&(task, job));
        }
        if !event.drawn_in(from, to) {
            return [None, None];
        }
        let held = match event {
            TraceEvent::Segment { task, job, .. } => self.0.remove(&(task, job)),
            _ => None,
        };
        [held, Some(event)]
    }

    /// `job` left the open jobs (whatever it recorded): its part ends say nothing more.
    pub fn left(&mut self, job: JobId) {
        // Every job leaves; without a window nothing is ever held, and a removal from an
        // empty map would still hash the key.
        if !self.0.is_empty() {
            self.0.remove(&(job.task, job.number));
        }
    }

    /// How many part ends are held (bounded by the jobs open at once).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::Part;
    use kairos_trace::PartOutcome;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    fn part_end(job: u64, ms: u64) -> TraceEvent {
        TraceEvent::PartEnd {
            task: 0,
            job,
            at: at(ms),
            part: Part::Mandatory,
            outcome: PartOutcome::Completed,
            next: Part::Optional,
        }
    }

    fn segment(job: u64, from: u64, to: u64) -> TraceEvent {
        TraceEvent::Segment {
            core: 0,
            task: 0,
            job,
            start: at(from),
            end: at(to),
        }
    }

    fn recorded(held: &mut HeldParts, events: Vec<TraceEvent>) -> Vec<TraceEvent> {
        let window = (at(100), at(200));
        (events.into_iter())
            .flat_map(|e| held.admit(e, window))
            .flatten()
            .collect()
    }

    #[test]
    fn a_part_end_before_the_window_comes_just_before_its_jobs_first_segment_in_it() {
        let mut held = HeldParts::default();
        let events = vec![
            part_end(1, 50),
            part_end(1, 90),
            segment(1, 95, 120),
            segment(1, 130, 140),
        ];
        let kept = recorded(&mut held, events);
        assert_eq!(
            kept,
            vec![part_end(1, 90), segment(1, 95, 120), segment(1, 130, 140)]
        );
        assert_eq!(held.len(), 0);
    }

    #[test]
    fn part_ends_of_jobs_that_left_before_the_window_are_not_kept() {
        let mut held = HeldParts::default();
        for job in 0..1000 {
            assert!(recorded(&mut held, vec![part_end(job, job / 20)]).is_empty());
            held.left(JobId {
                task: 0,
                number: job,
            });
        }
        assert_eq!(held.len(), 0);
    }

    /// A part of job 3 ends before the window, another in it while the job waits: its bar in
    /// the window belongs to the later one, so the earlier one is never recorded.
    #[test]
    fn a_part_end_in_the_window_replaces_the_held_one() {
        let mut held = HeldParts::default();
        let events = vec![part_end(3, 90), part_end(3, 110), segment(3, 120, 130)];
        let kept = recorded(&mut held, events);
        assert_eq!(kept, vec![part_end(3, 110), segment(3, 120, 130)]);
        assert_eq!(held.len(), 0);
    }

    #[test]
    fn part_ends_inside_the_window_are_recorded_where_they_happen() {
        let mut held = HeldParts::default();
        let kept = recorded(&mut held, vec![segment(2, 110, 150), part_end(2, 150)]);
        assert_eq!(kept, vec![segment(2, 110, 150), part_end(2, 150)]);
    }
}
