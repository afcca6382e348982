//! The guarantees study's result at one utilization: per family, sums over its sets, as the
//! resume file records them, `--json` prints them and the table and `results.csv` show them.

use super::family::Family;
use super::set::Judged;
use crate::experiment::resume::Point;
use serde::{Deserialize, Serialize};

/// One utilization, every family.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StudyPoint {
    pub utilization: f64,
    pub families: Vec<FamilySums>,
}

impl Point for StudyPoint {
    fn utilization(&self) -> f64 {
        self.utilization
    }
}

/// One family's sets at one utilization.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FamilySums {
    pub family: String,
    pub sets: u64,
    /// Accepted by the ideal analysis.
    pub ideal: u64,
    /// Accepted by the overhead-aware analysis.
    pub aware: u64,
    /// Run (accepted by either).
    pub run: u64,
    /// Runs with at least one deadline miss.
    pub missed: u64,
    /// Of those, sets the overhead-aware analysis accepted: a broken guarantee.
    pub aware_missed: u64,
    /// Jobs released in the runs.
    pub jobs: u64,
    /// Deadlines missed in the runs.
    pub misses: u64,
    /// Runs the watchdog ended early (counted with what they ran).
    pub stopped: u64,
}

impl FamilySums {
    pub fn new(family: Family) -> FamilySums {
        FamilySums {
            family: family.name().to_string(),
            ..FamilySums::default()
        }
    }

    pub fn add(&mut self, judged: Judged) {
        self.sets += 1;
        self.ideal += u64::from(judged.ideal);
        self.aware += u64::from(judged.aware);
        let Some(ran) = judged.ran else { return };
        let missed = ran.misses > 0;
        self.run += 1;
        self.missed += u64::from(missed);
        self.aware_missed += u64::from(missed && judged.aware);
        self.jobs += ran.jobs;
        self.misses += ran.misses;
        self.stopped += u64::from(ran.stopped);
    }
}

/// The columns of the table and of `results.csv` after the family and the utilization: header
/// (CSV's, the table's) and value.
pub type Column = (&'static str, &'static str, fn(&FamilySums) -> u64);

pub const COLUMNS: [Column; 9] = [
    ("sets", "sets", |s| s.sets),
    ("ideal", "ideal", |s| s.ideal),
    ("aware", "aware", |s| s.aware),
    ("run", "run", |s| s.run),
    ("missed", "missed", |s| s.missed),
    ("aware_missed", "aware-missed", |s| s.aware_missed),
    ("jobs", "jobs", |s| s.jobs),
    ("misses", "misses", |s| s.misses),
    ("stopped", "stopped", |s| s.stopped),
];
