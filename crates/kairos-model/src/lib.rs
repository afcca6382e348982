//! # kairos-model
//!
//! The workload model every kairos stage consumes: time newtypes in integer nanoseconds,
//! periodic and sporadic tasks on identical cores, and loading from TOML or JSON with every
//! problem reported at once, each with a location and a hint (`kairos check`).
//!
//! ```
//! use kairos_model::{check_source, Format};
//! let checked = check_source("cores = 2\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n", Format::Toml);
//! let workload = checked.workload.expect("valid");
//! assert_eq!(workload.tasks[0].deadline.to_string(), "4ms");
//! ```
#![forbid(unsafe_code)]

pub mod decode;
pub mod diagnostics;
pub mod document;
pub mod duration_text;
pub mod imprecise_load;
pub mod input;
pub mod load;
pub mod managed;
pub mod managed_load;
pub mod mc;
pub mod mc_load;
pub mod mcdag_xml;
pub mod names;
pub mod nesting;
pub mod overheads;
mod overheads_load;
mod positions;
pub mod simso_xml;
pub mod tables;
pub mod time;
pub mod validate;
pub mod vm;
pub mod vm_load;
pub mod workload;
pub mod workload_write;
mod xml;

pub use diagnostics::{Diagnostic, Diagnostics, Position, Severity};
pub use document::Format;
pub use duration_text::parse_duration;
pub use input::{Input, InputKind, LoadOptions, Loaded};
pub use load::{check_source, Checked};
pub use mc::{Dag, McSystem, McTask, TaskRef};
pub use overheads::{Cost, ExecutionLoss, Overheads, Quantiles, RtThrottle};
pub use overheads_load::{distributions_lacking, overheads_from_source};
pub use tables::{Interval, LevelTable, TableSet};
pub use time::{Duration, Instant};
pub use vm::{
    Domain, GuestScheduler, ServerKind, ServerPriority, Vcpu, VmSystem, Vmm, VmmScheduler,
};
pub use vm_load::{check_vm_source, VmChecked};
pub use workload::{Arrival, CoreId, ImpreciseParts, Part, Priority, Task, Workload};

/// Reads and checks a workload file; the format follows the extension (`.json` or TOML).
pub fn check_file(path: &std::path::Path) -> std::io::Result<Checked> {
    let source = std::fs::read_to_string(path)?;
    Ok(check_source(
        &source,
        Format::from_path(&path.to_string_lossy()),
    ))
}
