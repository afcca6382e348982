//! Mixed-criticality systems end to end: `kairos check` on MC-DAG systems in TOML, JSON and the
//! MC-DAG framework's XML (the exact report and exit code for every rule), `kairos import
//! mcdag`, and the shipped examples. Expected outputs are inline on purpose: changing a message
//! must make a test fail, so that the change is deliberate.

#[path = "../common/mod.rs"]
mod common;
mod examples;
mod formats;
mod graphs;
mod structure;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// Asserts the exact report and exit code of `kairos check name` on `contents`.
#[track_caller]
fn expect(name: &str, contents: &str, report: &str, code: i32) {
    let scratch = Scratch::new("check-mc-test");
    scratch.write(name, contents);
    let output = scratch.kairos(&["check", name]);
    assert_eq!(text(&output.stderr), "", "kairos check wrote to stderr");
    let out = text(&output.stdout);
    assert_eq!(out, report, "report of {name}:\n{contents}");
    assert_eq!(
        output.status.code(),
        Some(code),
        "exit code for {name}; report:\n{out}"
    );
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The reference MC-DAG framework files, vendored under `examples/mcdag/xml/`.
fn reference_xml(n: usize) -> PathBuf {
    repo(&format!("examples/mcdag/xml/test-6-{n}.xml"))
}
