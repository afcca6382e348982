//! Job orders: how a global or partitioned policy ranks the jobs it may run.

use super::core_order::CoreOrder;
use crate::job::JobView;
use kairos_model::{Instant, Workload};

/// Where a job stands in an order: the smaller runs first. Orders build it from the job's
/// times and identity (never from a bare priority number) and make it distinct for distinct
/// jobs, so every run is deterministic (`docs/simulate.md`, ties).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Precedence([u64; 4]);

/// Field by field, the first most significant, as a derived order would: written out because
/// the derived one compares the array as a slice, element by element in a loop, and this
/// comparison is the inner step of every global decision's sort.
impl Ord for Precedence {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (self.0, other.0);
        (a0, a1, a2, a3).cmp(&(b0, b1, b2, b3))
    }
}

impl PartialOrd for Precedence {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Precedence {
    /// Compared field by field, the first most significant.
    pub fn new(fields: [u64; 4]) -> Precedence {
        Precedence(fields)
    }

    /// Whether a job with this precedence runs before one with `other`.
    pub fn runs_before(self, other: Precedence) -> bool {
        self < other
    }
}

/// Ranks jobs by importance.
pub trait JobOrder {
    fn name(&self) -> &'static str;

    /// Called once before the run.
    fn prepare(&mut self, _workload: &Workload) {}

    /// The precedence of `job` at `now`.
    fn precedence(&self, job: &JobView, now: Instant) -> Precedence;

    /// Whether a job's precedence never changes while it is open (it depends only on its
    /// release, deadline and identity, not on `now`, its budget or its execution) and
    /// [`JobOrder::reorder_at`] is always `None`: a policy may then keep its jobs in order as
    /// they are released and leave (`super::ready::Ready`) instead of ordering them at each
    /// decision.
    fn is_static(&self) -> bool {
        false
    }

    /// The order as data, for a static order once prepared ([`CoreOrder`]); `None` otherwise.
    fn core_order(&self) -> Option<CoreOrder> {
        None
    }

    /// The earliest instant after `now` at which the order of `waiting` jobs against the running
    /// ones may change with no job event (EDZL: a waiting job's laxity reaching zero).
    fn reorder_at(
        &self,
        _now: Instant,
        _waiting: &mut dyn Iterator<Item = &JobView>,
    ) -> Option<Instant> {
        None
    }
}
