//! The table file: one time-triggered scheduling table per criticality level, as intervals.
//!
//! Written by `kairos synth`, read by `kairos validate-tables`, the simulator's `table` policy and
//! the runtime. Times are integers in the file's `unit` (`ns`, `us`, `ms` or `s`);
//! [`TableSet::from_json`] converts them to nanoseconds so every consumer works in ns.
//!
//! ```json
//! {"unit": "ns", "hyperperiod": 120000000, "cores": 4, "levels": ["LO", "HI"],
//!  "tables": [{"level": "LO", "intervals": [
//!      {"task": "g1/a", "job": 0, "core": 0, "start": 0, "end": 2000000}]}]}
//! ```
//! `job` counts the jobs of that task from 0 within the hyper-period; `task` is `dag/task`.

use serde::{Deserialize, Serialize};

/// All tables of one system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSet {
    /// Unit of every time in the file.
    pub unit: String,
    pub hyperperiod: u64,
    pub cores: usize,
    /// Level names, lowest first.
    pub levels: Vec<String>,
    /// The slot priority policy that built the tables (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// One table per level, in `levels` order.
    pub tables: Vec<LevelTable>,
}

/// The table of one criticality level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelTable {
    pub level: String,
    pub intervals: Vec<Interval>,
}

/// Job `job` of `task` runs on `core` over `[start, end)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interval {
    /// Shared by every interval of the task: a synthesized table holds tens of thousands of
    /// intervals of a few dozen tasks, and a string each was an allocation each (16 % of a
    /// synthesis's instructions).
    pub task: std::sync::Arc<str>,
    pub job: u64,
    pub core: usize,
    pub start: u64,
    pub end: u64,
}

/// Why a table file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TableFileError {
    #[error("not a table file: {0}")]
    Json(#[from] serde_json::Error),
    #[error("unknown time unit {0:?} (expected ns, us, ms or s)")]
    Unit(String),
    #[error("a time in the table does not fit in 64-bit nanoseconds once converted from {0}")]
    Overflow(String),
}

impl TableSet {
    /// Parses a table file and converts every time to nanoseconds (`unit` becomes `"ns"`).
    pub fn from_json(text: &str) -> Result<TableSet, TableFileError> {
        let mut tables: TableSet = serde_json::from_str(text)?;
        let scale = match tables.unit.as_str() {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            other => return Err(TableFileError::Unit(other.to_string())),
        };
        if scale != 1 {
            let overflow = || TableFileError::Overflow(tables.unit.clone());
            let convert = |v: u64| v.checked_mul(scale);
            tables.hyperperiod = convert(tables.hyperperiod).ok_or_else(overflow)?;
            for table in &mut tables.tables {
                for interval in &mut table.intervals {
                    interval.start = convert(interval.start).ok_or_else(overflow)?;
                    interval.end = convert(interval.end).ok_or_else(overflow)?;
                }
            }
            tables.unit = "ns".to_string();
        }
        Ok(tables)
    }

    /// The table file text (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("tables serialize")
    }

    /// Total number of intervals over every level.
    pub fn interval_count(&self) -> usize {
        self.tables.iter().map(|t| t.intervals.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert_to_nanoseconds() {
        let text = r#"{"unit": "ms", "hyperperiod": 12, "cores": 1, "levels": ["LO"],
            "tables": [{"level": "LO", "intervals": [
                {"task": "g/a", "job": 0, "core": 0, "start": 1, "end": 3}]}]}"#;
        let tables = TableSet::from_json(text).unwrap();
        assert_eq!(tables.unit, "ns");
        assert_eq!(tables.hyperperiod, 12_000_000);
        assert_eq!(tables.tables[0].intervals[0].end, 3_000_000);
        let again = TableSet::from_json(&tables.to_json()).unwrap();
        assert_eq!(again, tables);
    }

    #[test]
    fn bad_unit_and_overflow_are_errors() {
        let bad = r#"{"unit": "min", "hyperperiod": 1, "cores": 1, "levels": [], "tables": []}"#;
        assert!(matches!(
            TableSet::from_json(bad),
            Err(TableFileError::Unit(_))
        ));
        let huge = format!(
            r#"{{"unit": "s", "hyperperiod": {}, "cores": 1, "levels": [], "tables": []}}"#,
            u64::MAX / 2
        );
        assert!(matches!(
            TableSet::from_json(&huge),
            Err(TableFileError::Overflow(_))
        ));
    }
}
