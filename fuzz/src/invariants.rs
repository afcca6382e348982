//! What `kairos check` must do with any bytes, for every input kind: return (never panic), say
//! `ok` exactly when it found no error, give a summary exactly when the file is ok (but for an
//! experiment config, which has none), and locate every error by a line or a field path.
//! Shared by the fuzz targets (`fuzz/fuzz_targets/`) and the test that replays their seeds and
//! every crash they found (`tests/fuzz_replay.rs`), so a fixed crash stays fixed.

use kairos_lab::check::{evaluate, Item};
use kairos_model::Duration;
use std::path::Path;

/// A fuzz target of `kairos check`.
pub struct Target {
    pub name: &'static str,
    /// The file name its inputs are read as: the extension gives the format, the content the
    /// kind.
    pub file: &'static str,
    /// Where its seeds are, from the repository's root: folders and the extension of the files
    /// of the kind in them (the examples, so the seeds follow the formats).
    pub seeds: &'static [(&'static str, &'static str)],
}

/// Every fuzz target: the six of `kairos check`, one per input kind, and the model's own two
/// (`check_source`, `check_mc`), whose inputs the replay also puts through `kairos check`.
pub const TARGETS: [Target; 8] = [
    Target {
        name: "check_source",
        file: "fuzz.toml",
        seeds: &[("examples", "toml"), ("examples", "json")],
    },
    Target {
        name: "check_mc",
        file: "fuzz.toml",
        seeds: &[("examples/mcdag", "toml"), ("examples/mcdag/xml", "xml")],
    },
    Target {
        name: "check_vm",
        file: "fuzz.toml",
        seeds: &[("examples/vm", "toml")],
    },
    Target {
        name: "check_managed",
        file: "fuzz.toml",
        seeds: &[("examples/manage", "toml")],
    },
    Target {
        name: "check_mcdag_xml",
        file: "fuzz.xml",
        seeds: &[("examples/mcdag/xml", "xml")],
    },
    Target {
        name: "check_simso",
        file: "fuzz.xml",
        seeds: &[("examples/simso", "xml")],
    },
    Target {
        name: "check_experiment",
        file: "fuzz.toml",
        seeds: &[("examples/experiments", "toml")],
    },
    Target {
        name: "check_overheads",
        file: "fuzz.toml",
        seeds: &[("examples/overheads", "toml")],
    },
];

/// The file name the inputs of the target `name` are read as.
pub fn file_name(name: &str) -> &'static str {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .map_or("fuzz.toml", |t| t.file)
}

/// Checks `data`, decoded lossily, as a file named `name`, and panics if `kairos check` broke
/// one of the rules of the module documentation.
pub fn check_bytes(name: &str, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let evaluated = evaluate(Path::new(name), &text, Duration::from_millis(1));
    let report = &evaluated.report;
    assert_eq!(report.ok, report.errors == 0, "{}", evaluated.text);
    let errors = report.diagnostics.iter().filter(|d| d.severity == "error");
    assert_eq!(errors.clone().count(), report.errors, "{}", evaluated.text);
    if report.kind != Some("experiment") {
        assert_eq!(report.summary.is_some(), report.ok, "{}", evaluated.text);
    }
    assert_located(&report.diagnostics);
}

/// Panics on an error of `diagnostics` with neither a line nor a field path.
pub fn assert_located(diagnostics: &[Item]) {
    for d in diagnostics.iter().filter(|d| d.severity == "error") {
        assert!(
            d.line.is_some() || d.path.is_some(),
            "an error with neither a line nor a field path: {}",
            d.message
        );
    }
}
