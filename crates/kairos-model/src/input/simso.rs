//! A SimSo configuration as a periodic workload ([`crate::simso_xml`]), with the run SimSo
//! would make of it (its scheduler's kairos policy and its simulated time).

use super::{Input, InputKind, Loaded};
use crate::simso_xml::check_simso;
use crate::time::Duration;
use std::path::Path;

/// The run a SimSo configuration describes, in kairos terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimsoRun {
    /// SimSo's scheduler class, as written.
    pub scheduler: String,
    /// The kairos policy with the same rules, if there is one.
    pub policy: Option<&'static str>,
    /// The simulated time.
    pub duration: Duration,
    /// What kairos cannot carry (processor speeds, cache models, execution-time models).
    pub notes: Vec<String>,
    /// The workload as a kairos file, which `kairos import simso` writes.
    pub toml: String,
}

pub(super) fn load(path: &Path, source: &str) -> Loaded {
    let stem = (path.file_stem()).map_or("simso".into(), |n| {
        n.to_string_lossy().replace(char::is_control, "?")
    });
    let checked = check_simso(source, &stem);
    let mut loaded = Loaded::of(
        InputKind::SimsoXml,
        checked.workload.map(Input::Workload),
        checked.diagnostics,
    );
    loaded.simso = (checked.import.zip(checked.text)).map(|(import, toml)| SimsoRun {
        scheduler: import.scheduler,
        policy: import.policy,
        duration: import.duration,
        notes: import.notes,
        toml,
    });
    loaded
}
