//! A SimSo configuration as a periodic workload ([`crate::simso_xml`]), with the run SimSo
//! would make of it (its scheduler's kairos policy and its simulated time).

use super::{Input, InputKind, Loaded};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::simso_xml::{import_simso, to_toml};
use crate::time::Duration;
use crate::{check_source, Format};
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
}

pub(super) fn load(path: &Path, source: &str) -> Loaded {
    let import = match import_simso(source) {
        Ok(import) => import,
        Err(e) => {
            let refused =
                Diagnostic::error(e).with_hint("`kairos import simso --help` says what it reads");
            return Loaded::of(InputKind::SimsoXml, None, Diagnostics(vec![refused]));
        }
    };
    let stem = (path.file_stem()).map_or("simso".into(), |n| {
        n.to_string_lossy().replace(char::is_control, "?")
    });
    let checked = check_source(&to_toml(&import, &stem), Format::Toml);
    // The checker read the workload written from the XML: its positions are not the file's.
    let diagnostics = (checked.diagnostics.0.into_iter())
        .map(|d| d.at_position(None))
        .collect();
    let mut loaded = Loaded::of(
        InputKind::SimsoXml,
        checked.workload.map(Input::Workload),
        Diagnostics(diagnostics),
    );
    loaded.simso = Some(SimsoRun {
        scheduler: import.scheduler,
        policy: import.policy,
        duration: import.duration,
        notes: import.notes,
    });
    loaded
}
