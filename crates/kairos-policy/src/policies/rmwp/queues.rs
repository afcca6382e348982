//! RMWP's queues and the three functions of section 5.2 of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP (Algorithms 1-3), on job
//! events instead of inside an OS kernel:
//! - the real-time queue (RTQ): jobs ready to run their mandatory or wind-up part, by RM rank;
//! - the non-real-time queue (NRTQ): jobs ready to run their optional part, by RM rank, all
//!   below every RTQ job;
//! - the sleep queue (SQ): wind-up parts waiting for their optional deadline;
//! - the optional-deadline queue (ODQ): jobs whose optional deadline is still to come while they
//!   are in their optional part or asleep, by absolute optional deadline.
//!
//! One queue set per core for P-RMWP, one for all cores for G-RMWP. A job is in at most one of
//! RTQ, NRTQ and SQ, so it never runs two parts at once.

use crate::job::JobId;
use kairos_model::Instant;
use std::collections::BTreeSet;

/// A job's place in RTQ or NRTQ: its task's rate-monotonic rank (tasks above it), then its
/// number, then its task (distinct for distinct jobs).
pub(super) type Key = (usize, u64, usize);

pub(super) fn job_of(key: Key) -> JobId {
    JobId {
        task: key.2,
        number: key.1,
    }
}

/// The queues of one scheduler (one core for P-RMWP, all of them for G-RMWP).
#[derive(Clone, Debug, Default)]
pub(super) struct Queues {
    pub rtq: BTreeSet<Key>,
    pub nrtq: BTreeSet<Key>,
    pub sq: BTreeSet<Key>,
}

impl Queues {
    /// Jobs that may run, most important first: RTQ, then NRTQ.
    pub fn ready(&self) -> impl Iterator<Item = JobId> + '_ {
        self.rtq.iter().chain(&self.nrtq).map(|&k| job_of(k))
    }
}

/// What ends a job's optional part that the engine must be told (a cut), collected by the
/// functions below and carried out by the next decision.
#[derive(Clone, Debug, Default)]
pub(super) struct Pending {
    pub cuts: Vec<JobId>,
}

/// The optional-deadline queue, shared by all cores (the policy arms one timer at its head).
#[derive(Clone, Debug, Default)]
pub(super) struct OdQueue(BTreeSet<(Instant, Key)>);

impl OdQueue {
    pub fn head(&self) -> Option<Instant> {
        self.0.first().map(|&(at, _)| at)
    }
    fn insert(&mut self, at: Instant, key: Key) {
        self.0.insert((at, key));
    }
    pub fn remove(&mut self, at: Instant, key: Key) {
        self.0.remove(&(at, key));
    }
    /// Removes and returns the head if its optional deadline is at or before `now`.
    fn pop_expired(&mut self, now: Instant) -> Option<Key> {
        let &(at, key) = self.0.first()?;
        (at <= now).then(|| {
            self.0.pop_first();
            key
        })
    }
}

/// Algorithm 1, `end_mandatory`: the mandatory part of `key` ended at `now`. Before the
/// optional deadline `od` the job drops to its optional part (NRTQ; with an empty optional
/// part, straight to Algorithm 2: asleep until `od`). At or after it the optional part is
/// skipped and the wind-up is ready at once. (The paper's listing prints
/// `SleepUntil(release + period)` in this branch; its text and figure 3 say the wind-up runs
/// at once, which is what is implemented.)
pub(super) fn end_mandatory(
    queues: &mut Queues,
    odq: &mut OdQueue,
    pending: &mut Pending,
    (key, now, od, has_optional): (Key, Instant, Instant, bool),
) {
    queues.rtq.remove(&key);
    if now < od {
        odq.insert(od, key);
        match has_optional {
            true => queues.nrtq.insert(key),
            false => queues.sq.insert(key),
        };
    } else {
        if has_optional {
            pending.cuts.push(job_of(key));
        }
        queues.rtq.insert(key);
    }
}

/// Algorithm 2, `end_optional`: the optional part of `key` completed at `now`; the wind-up
/// sleeps until the optional deadline `od`. An optional part that completes exactly at `od`
/// has completed, and its wind-up is ready at once.
pub(super) fn end_optional(
    queues: &mut Queues,
    odq: &mut OdQueue,
    (key, now, od): (Key, Instant, Instant),
) {
    queues.nrtq.remove(&key);
    if now < od {
        queues.sq.insert(key);
    } else {
        odq.remove(od, key);
        queues.rtq.insert(key);
    }
}

/// Algorithm 3, `terminate_optional`: at `now`, every job at the head of the ODQ whose optional
/// deadline has come is cut if it is still in its optional part, or woken if its wind-up
/// sleeps; its wind-up joins the RTQ. `schedulers[scheduler_of(task)]` holds a task's queues.
pub(super) fn terminate_optional(
    odq: &mut OdQueue,
    pending: &mut Pending,
    now: Instant,
    schedulers: &mut [Queues],
    scheduler_of: impl Fn(usize) -> usize,
) {
    while let Some(key) = odq.pop_expired(now) {
        let queues = &mut schedulers[scheduler_of(key.2)];
        if queues.nrtq.remove(&key) {
            pending.cuts.push(job_of(key));
        } else {
            queues.sq.remove(&key);
        }
        queues.rtq.insert(key);
    }
}
