//! One instant of a user-dispatched run, from its events to the publication of its decision:
//! the contract core reports the events and decides ([`kairos_policy::contract`]); the run
//! then writes the jobs the decision placed to the cores ([`super::shared::CoreShared`]) with
//! its promise, lets the workers of ended parts go on, records the mode changes, and forgets
//! the jobs of an ended frame.

use super::scheduler::ModeChangeRecord;
use super::shared::encode;
use super::side::{Pass, RunJob};
use kairos_model::Instant;
use kairos_os::clock;
use kairos_policy::contract::Contract;
use kairos_policy::{Ahead, Policy};
use std::sync::atomic::Ordering;

type C = Contract<RunJob>;

impl Pass<'_> {
    /// The events of instant `at`, its decision and what follows it; a refusal fails the run.
    pub fn instant(&mut self, c: &mut C, at: u64, detected_at: u64, policy: &mut dyn Policy) {
        let now = Instant::from_nanos(at);
        c.report_instant(now, self, policy);
        if self.side.failure.is_some() {
            return;
        }
        let tasks = self.tasks;
        let decided = c.decide(now, tasks, self, policy).map_err(|r| r.0);
        let published = decided.and_then(|ahead| self.publish(c, ahead, at, detected_at));
        if let Err(reason) = published {
            let name = policy.name();
            self.side.fail(format!("policy {name} at {now}: {reason}"));
            return;
        }
        self.forget_ended_frames(c, at, policy);
    }

    /// Publishes a placed decision: each core's job, the part ends it follows, its promise,
    /// and the mode changes made on the way.
    fn publish(
        &mut self,
        c: &C,
        ahead: Option<Ahead>,
        at: u64,
        detected_at: u64,
    ) -> Result<(), String> {
        for (core, i) in c.jobs.running().iter().enumerate() {
            let word = encode(i.map(|i| c.jobs.view(i).id));
            // Written only when it changes: the other cores read it at every pass. Its start
            // time first, so that a core that reads the new job (`wanted` first, acquiring)
            // reads when it may start, even while this pass goes on.
            let core = &self.shared.cores[core];
            if core.wanted.load(Ordering::Relaxed) != word {
                core.not_before.store(at, Ordering::Relaxed);
                core.wanted.store(word, Ordering::Release);
            }
        }
        self.release_part_ends();
        self.publish_promise(c, ahead)?;
        self.record_mode_changes(at, detected_at);
        Ok(())
    }

    fn record_mode_changes(&mut self, at: u64, detected_at: u64) {
        if self.side.changes.is_empty() {
            return;
        }
        let shared = self.shared;
        let epoch = shared.mode_epoch.fetch_add(1, Ordering::AcqRel) + 1;
        let decided_at = clock::now_ns().saturating_sub(shared.origin.load(Ordering::Relaxed));
        for (from, to, triggers) in self.side.changes.drain(..) {
            self.side.mode_changes.push(ModeChangeRecord {
                nominal: at,
                from,
                to,
                triggers,
                detected_at,
                decided_at,
                epoch,
            });
        }
    }
}
