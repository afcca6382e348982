//! Managed systems ([`crate::managed`]) in the kairos format (TOML or JSON), checked with
//! located diagnostics like every kairos file.
//!
//! ```toml
//! name = "control-beside-builds"
//! cores = 2
//!
//! [manager]
//! execution = "free"        # or "constrained"
//! period = "10ms"           # P; free execution: the RT period
//! margin = "1ms"            # keep the predicted T_RT within deadline - margin
//! hold = "200ms"            # least time between two allocation changes
//!
//! [rt]
//! name = "control"
//! core = 0
//! period = "10ms"           # A
//! deadline = "10ms"         # D
//! work = "proc"             # each job calls one OS service again and again
//! length = "3ms"            # as many calls as take 3ms in isolation (or calls = 20)
//!
//! [[allocations]]
//! core = 1
//! be = "10ms"               # S_BE: the most best-effort time per P
//!
//! [[best_effort]]
//! name = "load"
//! core = 1
//! stress = "fork,mmap"      # or command = ["make", "-j1"]
//! ```
//!
//! A file is a managed system when its top level has `manager` ([`crate::input`]).

mod decode;
mod rules;

pub use decode::{DEFAULT_HOLD, DEFAULT_PROBE};

use crate::decode::Decoder;
use crate::diagnostics::Diagnostics;
use crate::document::{self, Format};
use crate::managed::ManagedSystem;

/// Keys of a managed system file.
pub const MANAGED_TOP_LEVEL_KEYS: [&str; 6] = [
    "name",
    "cores",
    "manager",
    "rt",
    "allocations",
    "best_effort",
];

/// The result of checking a managed system.
#[derive(Debug)]
pub struct ManagedChecked {
    pub system: Option<ManagedSystem>,
    pub diagnostics: Diagnostics,
}

/// Parses and checks a managed system.
pub fn check_managed_source(source: &str, format: Format) -> ManagedChecked {
    let root = match document::parse(source, format) {
        Ok(root) => root,
        Err(diagnostics) => {
            return ManagedChecked {
                system: None,
                diagnostics,
            }
        }
    };
    let mut decoder = Decoder::default();
    let decoded = decode::system(&mut decoder, &root);
    let Decoder {
        mut diagnostics,
        source_map,
    } = decoder;
    let system = decoded.map(|(mut system, given)| {
        rules::apply(&mut system, &given, &source_map, &mut diagnostics);
        system
    });
    diagnostics.sort_by_position();
    ManagedChecked {
        system: system.filter(|_| !diagnostics.has_errors()),
        diagnostics,
    }
}

#[cfg(test)]
mod tests;
