//! How the optional parts of imprecise jobs went, the same figures for a simulated and a
//! measured run (the extended imprecise computation model of Chishiro and Yamasaki's evaluation
//! of G-RMWP and P-RMWP): the optional time **requested** (each job's optional part, counted
//! when it ends) and **executed**, and how each optional part ended: **completed**, **cut**
//! (unfinished, at its optional deadline) or **skipped** (cut at the instant it began). Jobs
//! with an empty optional part count in none.

use crate::PartOutcome;
use kairos_model::Duration;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OptionalMetrics {
    pub optional_requested_ns: u64,
    pub optional_executed_ns: u64,
    pub optional_completed: u64,
    pub optional_cut: u64,
    pub optional_skipped: u64,
}

impl OptionalMetrics {
    /// One optional part ended with `outcome` after executing `executed` of `requested`.
    pub fn add(&mut self, requested: Duration, executed: Duration, outcome: PartOutcome) {
        self.optional_requested_ns += requested.as_nanos();
        self.optional_executed_ns += executed.as_nanos();
        match outcome {
            PartOutcome::Completed => self.optional_completed += 1,
            PartOutcome::Cut => self.optional_cut += 1,
            PartOutcome::Skipped => self.optional_skipped += 1,
        }
    }

    /// Adds `other`'s figures (another task's, for a total).
    pub fn merge(&mut self, other: &OptionalMetrics) {
        self.optional_requested_ns += other.optional_requested_ns;
        self.optional_executed_ns += other.optional_executed_ns;
        self.optional_completed += other.optional_completed;
        self.optional_cut += other.optional_cut;
        self.optional_skipped += other.optional_skipped;
    }

    /// The QoS ratio, optional time executed / requested (none when nothing was requested).
    pub fn qos(&self) -> Option<f64> {
        (self.optional_requested_ns > 0)
            .then(|| self.optional_executed_ns as f64 / self.optional_requested_ns as f64)
    }
}
