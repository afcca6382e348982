//! Promises ([`kairos_policy::Ahead`]) published to the cores: each core's promised job and
//! instant, and the jobs released at that instant drawn and loaded ahead so that their workers
//! can start at the instant itself ([`super::percore`] prepares the switch).

use super::shared::encode;
use super::side::{Pass, RunJob};
use kairos_policy::contract::Contract;
use kairos_policy::{Ahead, JobId};
use std::sync::atomic::Ordering;

impl Pass<'_> {
    /// Publishes what the policy promised for a later instant, loading the slots of the jobs it
    /// names that are released only then, so their workers can start at the instant itself.
    pub fn publish_promise(
        &mut self,
        c: &Contract<RunJob>,
        ahead: Option<Ahead>,
    ) -> Result<(), String> {
        let Some(ahead) = ahead.filter(|a| a.at.as_nanos() < self.side.end) else {
            // Written only when a promise stood: the other cores read it at every pass.
            for core in self.shared.cores.iter() {
                if core.ahead_at.load(Ordering::Relaxed) != u64::MAX {
                    core.ahead_at.store(u64::MAX, Ordering::Release);
                }
            }
            return Ok(());
        };
        let at = ahead.at.as_nanos();
        for (core, id) in ahead.cores.iter().enumerate() {
            if let Some(id) = *id {
                self.prepare_promised(c, id, at)?;
            }
            let shared = &self.shared.cores[core];
            shared.ahead.store(encode(*id), Ordering::Relaxed);
            shared.ahead_at.store(at, Ordering::Release);
        }
        Ok(())
    }

    /// A promised job is open now, or is its task's next release at `at`. Then every job
    /// released at `at` is drawn and loaded now, in release order (a job source may draw from
    /// one stream in that order, as the table's demands do), and reported at `at`; unless a
    /// release before `at` is still pending, which must be drawn first: the job then starts
    /// after the pass at `at`.
    fn prepare_promised(&mut self, c: &Contract<RunJob>, id: JobId, at: u64) -> Result<(), String> {
        if c.jobs.index_of(id).is_some() || self.is_preloaded(id) {
            return Ok(());
        }
        let next = (
            self.side.next_number[id.task],
            self.side.next_release[id.task],
        );
        if next != (id.number, at) {
            return Err(format!(
                "a promise names job {}#{}, which is neither released nor released then",
                id.task, id.number
            ));
        }
        if self.earliest_release().is_some_and(|(_, when)| when < at) {
            return Ok(());
        }
        for task in 0..self.tasks.len() {
            let id = JobId {
                task,
                number: self.side.next_number[task],
            };
            if self.side.next_release[task] != at || self.is_preloaded(id) {
                continue;
            }
            let draw = self.draw_job(id);
            if !self.load_slot(id, &draw) {
                return Ok(());
            }
            self.side.preloaded[task] = Some((id.number, draw));
        }
        Ok(())
    }

    /// Whether `id` was drawn and loaded ahead of its release (only ever its task's next job).
    fn is_preloaded(&self, id: JobId) -> bool {
        self.side.preloaded[id.task].is_some_and(|(number, _)| number == id.number)
    }
}
