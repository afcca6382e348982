//! What a table run measured (G-RES / G-MCRES execution, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! sections 5-6). The JSON field names are stable snake_case: scripts read them.
//!
//! Definitions (also in `docs/simulate.md`):
//! - a **deadline miss**: a job neither finished nor discarded at its deadline (once per job);
//!   counted by the task's criticality level and by the mode at the deadline;
//! - a **guaranteed miss**: a miss of a job whose task's criticality is at least the mode at its
//!   deadline and whose work is at most its WCET at its own level. Valid tables never have one;
//! - **discarded**: dropped unfinished (or at release) because the mode rose above its task's
//!   criticality;
//! - **budget exhausted**: unfinished at the end of its last interval of the current mode's table
//!   while its task's criticality is not above the mode: the job is stopped there;
//! - a **preemption**: a job stops unfinished and resumes after a gap; a **migration**: it
//!   resumes on another core, also at the same instant (an instantaneous migration is a
//!   migration only). These are the definitions of the tables' quality in `kairos-mc`, so a
//!   run that follows table 0 counts what table 0 counts;
//! - a **precedence violation**: a job runs while a job of one of its ancestors in the same DAG
//!   activation is released, unfinished and neither discarded nor stopped (once per job).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// Counters per criticality level, in level order; serialized as `{"LO": 0, "HI": 2}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LevelCounts(pub Vec<(String, u64)>);

impl LevelCounts {
    pub(crate) fn zeros(levels: &[String]) -> LevelCounts {
        LevelCounts(levels.iter().map(|l| (l.clone(), 0)).collect())
    }

    pub(crate) fn add(&mut self, level: usize, amount: u64) {
        self.0[level].1 += amount;
    }

    /// The count of level `level` (an index), 0 when out of range.
    pub fn get(&self, level: usize) -> u64 {
        self.0.get(level).map_or(0, |(_, n)| *n)
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }
}

impl Serialize for LevelCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (level, count) in &self.0 {
            map.serialize_entry(level, count)?;
        }
        map.end()
    }
}

/// One change of the system's criticality mode.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModeChangeRecord {
    pub at_ns: u64,
    pub from: String,
    pub to: String,
    /// The overrunning jobs that raised the mode, as `dag/task#job` (job counted since time 0);
    /// empty for the return to the lowest level at a hyper-period boundary.
    pub triggers: Vec<String>,
}

/// A job that missed its deadline.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MissRecord {
    pub task: String,
    /// Counted since time 0.
    pub job: u64,
    pub deadline_ns: u64,
    /// The mode at the deadline.
    pub mode: String,
    /// Whether the tables guaranteed this job (see the module documentation).
    pub guaranteed: bool,
}

/// Everything a table run measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TableMetrics {
    pub policy: String,
    pub cores: usize,
    pub levels: Vec<String>,
    pub duration_ns: u64,
    pub hyperperiod_ns: u64,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    /// By the missing task's criticality level.
    pub deadline_misses_by_level: LevelCounts,
    /// By the mode at the deadline.
    pub deadline_misses_by_mode: LevelCounts,
    pub guaranteed_misses: u64,
    pub jobs_discarded: u64,
    /// By the discarded task's criticality level.
    pub jobs_discarded_by_level: LevelCounts,
    pub budget_exhausted: u64,
    pub mode_changes: Vec<ModeChangeRecord>,
    /// The highest mode reached.
    pub max_mode: String,
    /// Time spent in each mode, in ns.
    pub time_in_mode_ns: LevelCounts,
    pub preemptions: u64,
    pub migrations: u64,
    pub precedence_violations: u64,
    /// Released jobs still unfinished at the end whose deadline is after it.
    pub unfinished_jobs: u64,
    /// Every deadline miss, in deadline order.
    pub misses: Vec<MissRecord>,
}
