//! Replays what the fuzz targets of `kairos check` (`fuzz/fuzz_targets/`) start from and what
//! they found: every seed of each target (the examples of its kind) and every input kept in
//! `fuzz/regressions/TARGET/`, through the same checks the target makes
//! (`fuzz/src/invariants.rs`, compiled into this test too). A crash found once, fixed and kept
//! there cannot come back unseen; running the fuzzers themselves needs nightly
//! (`scripts/fuzz`).

#[path = "../fuzz/src/invariants.rs"]
mod invariants;

use invariants::{check_bytes, file_name, TARGETS};
use std::path::{Path, PathBuf};

fn files(dir: &Path, extension: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = (entries.flatten().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| extension.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    out.sort();
    out
}

fn replay(target: &str, file: &str, inputs: &[PathBuf]) {
    for input in inputs {
        let data = std::fs::read(input).unwrap();
        let run = std::panic::catch_unwind(|| check_bytes(file, &data));
        assert!(run.is_ok(), "{target} breaks on {}", input.display());
    }
}

/// Every folder of `fuzz/regressions/` is a target's: an input kept for another would never
/// be replayed.
#[test]
fn every_kept_input_belongs_to_a_replayed_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            assert!(
                TARGETS.iter().any(|t| t.name == name),
                "{name} is not replayed"
            );
        }
    }
}

#[test]
fn every_seed_and_every_input_a_fuzzer_found_keeps_the_rules_of_kairos_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for target in &TARGETS {
        let seeds: Vec<PathBuf> = (target.seeds.iter())
            .flat_map(|(dir, ext)| files(&root.join(dir), Some(ext)))
            .collect();
        assert!(!seeds.is_empty(), "{} has no seeds", target.name);
        replay(target.name, file_name(target.name), &seeds);
        let found = root.join("fuzz/regressions").join(target.name);
        replay(target.name, file_name(target.name), &files(&found, None));
    }
}

/// The rules themselves can fail: an error without a place is caught.
#[test]
#[should_panic(expected = "an error with neither a line nor a field path")]
fn the_rules_catch_an_unlocated_error() {
    invariants::assert_located(&[kairos_lab::check::Item {
        severity: "error",
        line: None,
        column: None,
        path: None,
        message: "made up".into(),
        hint: None,
    }]);
}
