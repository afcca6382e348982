//! What the validator returns: every violation found, each with its kind, where and when.
//!
//! The kinds follow the validity conditions of the shared table semantics (docs/validate-tables.md,
//! after Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2): the file's shape, each interval on its own,
//! each job's budget and window, exclusivity of tasks and cores, precedence, and the
//! safe-transition property between consecutive levels.

use kairos_model::Instant;
use serde::Serialize;
use std::fmt;

/// Which validity condition a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// The tables' time unit is not nanoseconds (read files with `TableSet::from_json`).
    Unit,
    /// The system itself cannot be checked against (hyper-period overflow, cyclic DAG).
    System,
    /// The level names, their order or the number of tables differ from the system's.
    Levels,
    /// The file's hyper-period is not the lcm of the DAG periods.
    Hyperperiod,
    /// The file's core count differs from the system's.
    Cores,
    /// An interval names a task the system does not have.
    UnknownTask,
    /// An interval belongs to a task that does not run at that level (discarded there).
    TaskAbsent,
    /// An interval names a job index outside `0..H/T`.
    JobOutOfRange,
    /// An interval has `end <= start`.
    EmptyInterval,
    /// An interval uses a core `>= cores`.
    CoreOutOfRange,
    /// Part of an interval lies outside its job's window `[release, deadline]`.
    OutsideWindow,
    /// A job does not receive exactly its WCET at that level.
    Budget,
    /// A task runs twice at the same time (two cores, or two overlapping intervals).
    TaskOverlap,
    /// Two intervals share a core at the same time.
    CoreOverlap,
    /// A job starts before the job of an ancestor in its DAG has ended.
    Precedence,
    /// A mode change at some instant would leave a job less than its WCET at the next level.
    UnsafeTransition,
}

/// One broken condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Level name (for a transition: the level it leaves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// `dag/task`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<usize>,
    /// When it happens, in nanoseconds from the start of the hyper-period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    /// What is wrong, for a person: a whole sentence, ending with the time when there is one.
    pub message: String,
}

impl Violation {
    pub(crate) fn new(kind: ViolationKind, message: impl Into<String>) -> Self {
        Violation {
            kind,
            level: None,
            task: None,
            job: None,
            core: None,
            at: None,
            message: message.into(),
        }
    }

    pub(crate) fn level(mut self, level: &str) -> Self {
        self.level = Some(level.to_string());
        self
    }

    pub(crate) fn job(mut self, task: &str, job: u64) -> Self {
        self.task = Some(task.to_string());
        self.job = Some(job);
        self
    }

    pub(crate) fn core(mut self, core: usize) -> Self {
        self.core = Some(core);
        self
    }

    /// Sets when it happens; the message ends with that time, so it reads whole on its own
    /// (in JSON too): "... but it starts at 1ms".
    pub(crate) fn at(mut self, at: u64) -> Self {
        self.at = Some(at);
        self.message
            .push_str(&format!(" at {}", Instant::from_nanos(at)));
        self
    }
}

/// `level HI: g1/a job 3: <message> at 12ms`.
impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(level) = &self.level {
            write!(f, "level {level}: ")?;
        }
        match (&self.task, self.job) {
            (Some(task), Some(job)) => write!(f, "{task} job {job}: ")?,
            (Some(task), None) => write!(f, "{task}: ")?,
            _ => {}
        }
        write!(f, "{}", self.message)
    }
}

/// What was checked and what failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Levels checked (tables matched to a system level).
    pub levels: usize,
    /// Jobs expected over all levels (one per job of each task running at each level).
    pub jobs: u64,
    /// Intervals read over all tables.
    pub intervals: usize,
    /// Every violation, in check order.
    pub violations: Vec<Violation>,
}

impl Report {
    /// Whether the tables satisfy every condition.
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty()
    }

    /// Whether some violation has this kind.
    pub fn has(&self, kind: ViolationKind) -> bool {
        self.violations.iter().any(|v| v.kind == kind)
    }

    /// Number of violations of each kind present, in kind order.
    pub fn counts(&self) -> Vec<(ViolationKind, usize)> {
        let mut counts: std::collections::BTreeMap<ViolationKind, usize> = Default::default();
        for v in &self.violations {
            *counts.entry(v.kind).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}
