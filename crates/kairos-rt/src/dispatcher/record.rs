//! The record of a run's decisions ([`Step`]: each question to the policy with the events and
//! the view that led to it), what replay and the comparison of engines read
//! (`kairos_sim::replay`). A copy of the view and of the decision per question costs
//! allocations and time under the scheduler's lock, so a run records only when asked
//! ([`super::UserRunConfig::record_steps`]), into a list reserved for the decisions the run is
//! expected to make; a run that makes more keeps recording (the list grows, allocating under
//! the lock) and says so in its notes.

use kairos_model::Instant;
use kairos_policy::{Decision, JobView, Reported, Step};

pub(super) struct StepRecord {
    on: bool,
    steps: Vec<Step>,
    /// The steps reserved up front.
    reserved: usize,
    /// Events reported since the last question (a frame's end reports after its decision).
    pending: Vec<Reported>,
    /// Questions asked so far, recorded or not.
    asked: u64,
}

impl StepRecord {
    /// A record of up to `expected` steps without growing if `on`, else one that counts.
    pub fn new(on: bool, expected: usize) -> Self {
        let reserved = if on { expected } else { 0 };
        StepRecord {
            on,
            steps: Vec::with_capacity(reserved),
            reserved,
            pending: Vec::new(),
            asked: 0,
        }
    }

    /// Whether the policy has been asked anything yet.
    pub fn asked_any(&self) -> bool {
        self.asked > 0
    }

    pub fn reported(&mut self, event: Reported) {
        if self.on {
            self.pending.push(event);
        }
    }

    /// The policy answered a question asked from `jobs` in `mode` at `now` with `decision`.
    pub fn asked(&mut self, now: Instant, mode: usize, jobs: &[JobView], decision: &Decision) {
        self.asked += 1;
        if !self.on {
            return;
        }
        self.steps.push(Step {
            at: now,
            mode,
            events: std::mem::take(&mut self.pending),
            jobs: jobs.to_vec(),
            decision: decision.cores.clone(),
            actions: decision.actions.clone(),
            ahead: decision.ahead.clone(),
        });
    }

    /// The steps recorded (none unless asked), and a note if they outgrew their reservation.
    pub fn finish(self) -> (Vec<Step>, Vec<String>) {
        let mut notes = Vec::new();
        if self.steps.len() > self.reserved {
            notes.push(format!(
                "the record of decisions outgrew the {} steps reserved for it ({} recorded): \
                 the decisions after the {}th allocated while recording",
                self.reserved,
                self.steps.len(),
                self.reserved
            ));
        }
        (self.steps, notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_policy::TimerId;

    fn ask(record: &mut StepRecord, at: u64) {
        let decision = Decision::idle(2);
        record.asked(Instant::from_nanos(at), 0, &[], &decision);
    }

    #[test]
    fn records_nothing_unless_asked_but_counts_questions() {
        let mut record = StepRecord::new(false, 8);
        assert!(!record.asked_any());
        record.reported(Reported::Timer(TimerId(0), Instant::from_nanos(1)));
        ask(&mut record, 1);
        assert!(record.asked_any());
        assert_eq!(record.finish(), (Vec::new(), Vec::new()));
    }

    #[test]
    fn each_step_takes_the_events_reported_since_the_last_question() {
        let mut record = StepRecord::new(true, 8);
        let fired = |at| Reported::Timer(TimerId(0), Instant::from_nanos(at));
        record.reported(fired(1));
        record.reported(fired(2));
        ask(&mut record, 2);
        ask(&mut record, 3);
        let (steps, notes) = record.finish();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].events, vec![fired(1), fired(2)]);
        assert!(steps[1].events.is_empty());
        assert_eq!(steps[1].at, Instant::from_nanos(3));
        assert!(notes.is_empty());
    }

    #[test]
    fn a_record_beyond_its_reservation_keeps_every_step_and_says_so() {
        let mut record = StepRecord::new(true, 2);
        for at in 0..5 {
            ask(&mut record, at);
        }
        let (steps, notes) = record.finish();
        let times: Vec<u64> = steps.iter().map(|s| s.at.as_nanos()).collect();
        assert_eq!(times, vec![0, 1, 2, 3, 4]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("2 steps reserved") && notes[0].contains("5 recorded"));
    }
}
