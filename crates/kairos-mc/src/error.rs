//! Why synthesis produced no tables: either the input cannot be put on a slot grid (bad input),
//! or the heuristic of Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2 found no schedule (the
//! "no" answer), with the job, level, instant and reason.

use kairos_model::Duration;

/// A synthesis that produced no tables.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SynthFailure {
    /// The system cannot be synthesized at all: no DAG, a cycle, a deadline above the period,
    /// a slot grid too fine, an overflow. The input is at fault, not the heuristic.
    #[error("{0}")]
    Input(String),
    /// More jobs must run in one slot than there are cores.
    #[error("level {level}: at {at}, {count} job(s) have zero laxity but there are only {cores} core(s): {jobs}")]
    TooManyUrgent {
        level: String,
        at: Duration,
        count: usize,
        cores: usize,
        /// The first few of them, `dag/task#job`.
        jobs: String,
    },
    /// A job can no longer receive its budget in time.
    #[error("level {level}: job {job} cannot get its budget: at {at} it still needs {needed}, but {reason}")]
    Late {
        level: String,
        /// `dag/task#job`.
        job: String,
        at: Duration,
        needed: Duration,
        reason: String,
    },
    /// A job never got all its budget (its predecessors finished too late, or nothing was left).
    #[error(
        "level {level}: job {job} left unfinished with {missing} of its budget not placed ({why})"
    )]
    Unfinished {
        level: String,
        job: String,
        missing: Duration,
        why: String,
    },
    /// The table of the level above leaves no room for a safe transition, whatever this level does.
    #[error("level {level}: job {job} cannot have a safe transition to level {above}: the table of {above} gives it its budget too early ({detail})")]
    UnsafeTransition {
        level: String,
        above: String,
        job: String,
        detail: String,
    },
    /// The federated baseline ran out of cores.
    #[error("federated: {0}")]
    OutOfCores(String),
}

impl SynthFailure {
    /// Whether the input, rather than the heuristic, is at fault (exit code 2 rather than 1).
    pub fn is_input_error(&self) -> bool {
        matches!(self, SynthFailure::Input(_))
    }
}
