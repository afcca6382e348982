//! Mixed-criticality systems in the kairos format (TOML or JSON): decoding with located
//! diagnostics, the rules `kairos check` applies to MC-DAG systems, and writing a system back.
//!
//! ```toml
//! name = "uav"
//! cores = 2
//! levels = ["LO", "HI"]             # lowest (the start mode) first
//!
//! [[dags]]
//! name = "flight"
//! period = "20ms"
//! deadline = "20ms"                 # default: the period; at most the period
//! edges = [["sense", "act"]]        # precedence, by task name within the DAG
//!
//! [[dags.tasks]]
//! name = "sense"
//! wcet = ["2ms", "5ms"]             # one budget per level, up to the task's own level
//!
//! [[dags.tasks]]
//! name = "act"
//! wcet = ["1ms"]                    # a LO task: discarded at HI
//! ```
//!
//! A file is a mixed-criticality system when its top level has `dags` or `levels`
//! ([`crate::input`], the loader of every kind).
//! Decoding first builds format-neutral parts ([`SystemParts`]), which the MC-DAG XML importer
//! ([`crate::mcdag_xml`]) builds too, so both formats share every rule.
//!
//! ```
//! use kairos_model::mc_load::{check_mc_source, to_toml};
//! use kairos_model::Format;
//! let source = "cores = 1\nlevels = [\"LO\", \"HI\"]\n[[dags]]\nname = \"g\"\nperiod = \"10ms\"\n\
//!               [[dags.tasks]]\nname = \"a\"\nwcet = [\"1ms\", \"2ms\"]\n";
//! let system = check_mc_source(source, Format::Toml).system.expect("valid");
//! assert_eq!(system.dags[0].tasks[0].criticality(), 1);
//! let again = check_mc_source(&to_toml(&system), Format::Toml).system;
//! assert_eq!(again.as_ref(), Some(&system));
//! ```

use crate::decode::{
    join, Decoder, ZeroAllowed, DAG_KEYS, MAX_CORES, MAX_DURATION, MAX_LEVELS, MC_TASK_KEYS,
    MC_TOP_LEVEL_KEYS,
};
use crate::diagnostics::{Diagnostic, Diagnostics, Position};
use crate::document::{self, Entry, Format, Node, Value};
use crate::mc::{Dag, McSystem, McTask};
use crate::time::{checked_lcm, Duration};
use std::collections::HashMap;

/// The result of checking a mixed-criticality system: the system when there is no error, and
/// every diagnostic (errors and warnings) in source order.
#[derive(Debug)]
pub struct McChecked {
    pub system: Option<McSystem>,
    pub diagnostics: Diagnostics,
}

/// Parses and checks a mixed-criticality system written in the kairos format.
pub fn check_mc_source(source: &str, format: Format) -> McChecked {
    let root = match document::parse(source, format) {
        Ok(root) => root,
        Err(diagnostics) => {
            return McChecked {
                system: None,
                diagnostics,
            }
        }
    };
    let mut decoder = Decoder::default();
    let parts = decode_system(&mut decoder, &root);
    let mut diagnostics = decoder.diagnostics;
    let system = parts.and_then(|parts| apply_rules(&parts, &mut diagnostics));
    finish(system, diagnostics)
}

/// Sorts the diagnostics and keeps the system only when there is no error.
pub(crate) fn finish(system: Option<McSystem>, mut diagnostics: Diagnostics) -> McChecked {
    diagnostics.sort_by_position();
    McChecked {
        system: system.filter(|_| !diagnostics.has_errors()),
        diagnostics,
    }
}

// ---- format-neutral parts ---------------------------------------------------------------

/// Where something is in the input: its field path and, when the format gives one, position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    pub path: String,
    pub position: Option<Position>,
}

impl Loc {
    pub fn new(path: impl Into<String>, position: Option<Position>) -> Loc {
        Loc {
            path: path.into(),
            position,
        }
    }
    /// `d` located here.
    pub fn put(&self, d: Diagnostic) -> Diagnostic {
        let d = d.at_position(self.position);
        if self.path.is_empty() {
            d
        } else {
            d.at_path(self.path.clone())
        }
    }
}

/// A decoded value and where it came from.
pub type Located<T> = (T, Loc);

/// What could be decoded of a system, even where other parts could not: the rules run on
/// these parts so that one bad field does not hide problems elsewhere. Every `None` and every
/// `false` below has been reported already.
#[derive(Clone, Debug, Default)]
pub struct SystemParts {
    pub name: Option<String>,
    pub cores: Option<Located<usize>>,
    /// The level names; `None` when missing or unreadable.
    pub levels: Option<Vec<Located<String>>>,
    pub levels_loc: Loc,
    pub dags: Vec<DagParts>,
    /// Whether the DAG list and every DAG decoded completely.
    pub dags_complete: bool,
    pub dags_loc: Loc,
}

/// One DAG's decoded parts.
#[derive(Clone, Debug, Default)]
pub struct DagParts {
    /// The DAG itself (its table or element); its path names it in messages.
    pub loc: Loc,
    pub name: Option<Located<String>>,
    pub period: Option<Located<Duration>>,
    /// `Some(None)` when the deadline is not given (it is the period).
    pub deadline: Option<Option<Located<Duration>>>,
    pub tasks: Vec<TaskParts>,
    /// Whether the task list and every task decoded completely.
    pub tasks_complete: bool,
    /// Whether the task list decoded and every task has a name (edges can be resolved).
    pub all_named: bool,
    pub tasks_loc: Loc,
    pub edges: Vec<EdgeParts>,
    /// Whether the edge list and every edge decoded completely.
    pub edges_complete: bool,
    pub edges_loc: Loc,
}

/// One task's decoded parts.
#[derive(Clone, Debug, Default)]
pub struct TaskParts {
    pub loc: Loc,
    pub name: Option<Located<String>>,
    /// One budget per level; zero is kept here so the rules can report it.
    pub wcet: Option<Vec<Located<Duration>>>,
    pub wcet_loc: Loc,
}

/// One precedence edge, by task name.
#[derive(Clone, Debug, Default)]
pub struct EdgeParts {
    pub loc: Loc,
    pub from: Located<String>,
    pub to: Located<String>,
}

impl DagParts {
    fn complete(&self) -> bool {
        self.name.is_some()
            && self.period.is_some()
            && self.deadline.is_some()
            && self.tasks_complete
            && self.edges_complete
    }
}

// ---- decoding the kairos format ---------------------------------------------------------

mod decode;
mod rules;
mod whole;
mod write;
pub(crate) use write::toml_string;

use decode::*;
use rules::*;
pub use rules::{apply_rules, closest_name};
use whole::*;
pub use write::{to_json, to_toml};
