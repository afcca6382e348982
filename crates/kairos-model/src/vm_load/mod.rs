//! Virtual-machine systems in the kairos format (TOML or JSON), checked with located
//! diagnostics like every kairos file.
//!
//! ```toml
//! name = "two-vms"
//! cores = 2
//!
//! [vmm]
//! scheduler = "rt-global"      # or "rt-partition", "credit"
//! priority = "edf"             # or "dm"
//! server = "deferrable"        # or "periodic"
//! quantum = "1ms"              # absent: event driven (upstream RTDS)
//! vcpu_period = "10ms"         # period of computed VCPUs (default 10ms)
//!
//! [[domains]]
//! name = "control"
//! guest = "pedf"               # or "gedf", "pdm", "gdm"
//! vcpus = "auto"               # or [[domains.vcpus]] tables (the default: auto)
//!
//! [[domains.tasks]]
//! name = "loop"
//! wcet = "2ms"
//! period = "10ms"
//! ```
//!
//! A file is a VM system when its top level has `domains` or `vmm` ([`crate::input`]).
//! Explicit VCPUs are `[[domains.vcpus]]` with `budget`, `period`, optional `name` and `cpus`
//! (core indices); a partitioned guest's task may name its VCPU by index with `core`.

pub(crate) mod decode;
mod rules;
mod write;

pub use write::to_toml;

use crate::decode::Decoder;
use crate::diagnostics::{Diagnostics, Position};
use crate::document::{self, Format};
use crate::vm::VmSystem;

/// Keys of a VM system file.
pub const VM_TOP_LEVEL_KEYS: [&str; 4] = ["name", "cores", "vmm", "domains"];

/// The result of checking a VM system: the system when there is no error, and every
/// diagnostic in source order.
#[derive(Debug)]
pub struct VmChecked {
    pub system: Option<VmSystem>,
    pub diagnostics: Diagnostics,
}

/// Parses and checks a VM system.
pub fn check_vm_source(source: &str, format: Format) -> VmChecked {
    let root = match document::parse(source, format) {
        Ok(root) => root,
        Err(diagnostics) => {
            return VmChecked {
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
    if let Some(system) = &decoded {
        rules::apply(system, &source_map, &mut diagnostics);
    }
    diagnostics.sort_by_position();
    VmChecked {
        system: decoded.filter(|_| !diagnostics.has_errors()),
        diagnostics,
    }
}

/// Where `source` gives the field at `path` or, for a table, its first field: for a refusal
/// found after the checks (a domain the compositional analysis gives no interface).
pub fn locate(source: &str, format: Format, path: &str) -> Option<Position> {
    let root = document::parse(source, format).ok()?;
    let mut decoder = Decoder::default();
    decode::system(&mut decoder, &root);
    decoder.source_map.first_within(path)
}

#[cfg(test)]
mod tests;
