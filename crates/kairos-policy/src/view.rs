//! The read-only picture of the system a policy decides from.

use crate::job::{JobId, JobView};
use crate::server::ServerView;
use kairos_model::{Instant, Task};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What a policy sees at a scheduling point.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub now: Instant,
    /// Cores `0..cores`.
    pub cores: usize,
    /// The system's criticality mode (an index into its levels; always 0 for a workload of
    /// one criticality level). Budgets in `jobs` are those of this mode.
    pub mode: usize,
    /// Every released, unfinished job, in no particular order.
    pub jobs: &'a [JobView],
    /// Where each job of `jobs` is, by id, so that [`View::job`] costs O(1) however many jobs
    /// are open (an engine's view has it once many jobs were open); `None`: [`View::job`]
    /// searches `jobs`.
    pub index: Option<&'a JobIndex>,
    /// The workload's tasks: `JobId::task` indexes this.
    pub tasks: &'a [Task],
    /// The servers the policy declared ([`crate::Policy::servers`]), indexed by
    /// [`crate::ServerId`]; empty for a policy without servers.
    pub servers: &'a [ServerView],
}

impl View<'_> {
    /// The job with this id, if it is released and unfinished.
    pub fn job(&self, id: JobId) -> Option<&JobView> {
        self.position(id).map(|i| &self.jobs[i])
    }

    /// Where the job with this id is in `jobs`, if it is released and unfinished.
    pub fn position(&self, id: JobId) -> Option<usize> {
        match self.index {
            Some(index) => index.get(id),
            None => self.jobs.iter().position(|j| j.id == id),
        }
    }
}

/// Positions of jobs in a list, by id: what an engine keeps beside its open jobs.
#[derive(Clone, Debug, Default)]
pub struct JobIndex {
    positions: HashMap<JobId, usize, BuildHasherDefault<IdHasher>>,
}

impl JobIndex {
    pub fn get(&self, id: JobId) -> Option<usize> {
        self.positions.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Room for `jobs` ids at once, removals included, without growing: twice as many slots,
    /// so that the table's tidying after removals happens in place and never allocates.
    pub fn reserve(&mut self, jobs: usize) {
        self.positions.reserve(2 * jobs);
    }

    pub(crate) fn set(&mut self, id: JobId, position: usize) {
        self.positions.insert(id, position);
    }

    pub(crate) fn remove(&mut self, id: JobId) {
        self.positions.remove(&id);
    }
}

/// A multiplicative hash of a job id's two words (Fibonacci hashing, Knuth, TAOCP vol. 3,
/// section 6.4): ids are not chosen by an adversary, and a cryptographic hash would cost more
/// than the rest of a lookup.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }

    fn write_u64(&mut self, word: u64) {
        const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(GOLDEN);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}
