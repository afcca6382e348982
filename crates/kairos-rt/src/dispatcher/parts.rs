//! Imprecise jobs run by parts on real cores (the extended imprecise computation model of
//! Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP): a job's body executes its parts
//! one after the other, each part's work loaded into the job's slot by the scheduler (the
//! contract core moves the job from part to part, [`kairos_policy::contract`]).
//!
//! - **The end of a part by execution**: the worker finds no work left in a part that is not
//!   the job's last, lets the job go and stamps the end in the slot ([`super::shared`]); the
//!   next pass reports it at that time, loads the next part and the decision places the job
//!   again (its core's dispatcher resumes the worker if it stays there).
//! - **A cut** ([`kairos_policy::Action::CutOptional`]): the scheduler replaces the optional
//!   part's work by the wind-up's while the worker may still be executing it; the worker goes
//!   on with the wind-up, its segment split at the cut. A cut at the instant the optional part
//!   began, with nothing executed, is a skip, as in the simulator.

use super::side::Pass;
use kairos_model::Duration;
use kairos_policy::parts::PartWork;
use kairos_policy::JobId;
use std::sync::atomic::Ordering;

/// A released job's work as its body executes it: its first part's and, for a job run by
/// parts, each part's.
#[derive(Clone, Copy, Debug)]
pub(super) struct JobDraw {
    pub first: u64,
    pub parts: Option<PartWork>,
}

impl Pass<'_> {
    /// The work of a job as its body executes it: the source's draw (one per job, in release
    /// order), scaled, and split into parts as the simulator splits it when the policy runs
    /// the task by parts.
    pub fn draw_job(&mut self, id: JobId) -> JobDraw {
        let spec = &self.tasks[id.task];
        let drawn = self.side.source.work(id.task, spec, id.number);
        let scale = self.side.work_scale;
        let scaled =
            |d: Duration| Duration::from_nanos((d.as_nanos() as f64 * scale).round() as u64);
        match spec.imprecise.as_ref().filter(|_| self.side.runs_parts) {
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

    /// Lets the workers of the jobs whose part ends this pass took in run their next parts:
    /// called once the decision that followed is published, so that a worker that sees the
    /// part end gone also sees where the job is wanted now (see `super::worker`).
    pub fn release_part_ends(&mut self) {
        for id in self.side.part_ends_taken.drain(..) {
            self.shared.slot(id).part_end_at.store(0, Ordering::Release);
        }
    }
}
