//! One loader for every kind of input: every example and every input of `tests/data/inputs`
//! is the kind `kairos check` says; a file `check` accepts is not refused as bad input (exit 2)
//! by `analyze` or `simulate` when they take its kind; and a kind they do not take is refused
//! with the command that does.

mod common;

use common::{stderr, stdout, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run kairos")
}

/// Every input file under `dir` (relative to the repository), recursively.
fn inputs(dir: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![repo().join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if path.is_dir() {
                stack.push(path);
            } else if ["toml", "json", "xml"].contains(&ext) {
                let relative = path.strip_prefix(repo()).unwrap();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// `kairos check --json FILE`: its exit code and report.
fn check(file: &str) -> (Option<i32>, Value) {
    let out = kairos(&["check", file, "--json"]);
    let report = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{file}: check --json is not JSON ({e}): {}", stderr(&out)));
    (out.status.code(), report)
}

const ANALYZE_TAKES: [&str; 3] = ["workload", "simso-xml", "vm"];
const SIMULATE_TAKES: [&str; 5] = ["workload", "simso-xml", "mc-dag", "mc-dag-xml", "vm"];

#[test]
fn a_file_check_accepts_is_taken_by_every_command_that_takes_its_kind() {
    let mut files = inputs("examples");
    files.extend(inputs("tests/data/inputs"));
    let (mut accepted, mut refused) = (0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    for file in &files {
        let (code, report) = check(file);
        if code != Some(0) {
            assert_eq!(code, Some(2), "{file}: {report}");
            refused += 1;
            continue;
        }
        accepted += 1;
        let kind = report["kind"]
            .as_str()
            .expect("an accepted file has a kind");
        kinds.insert(kind.to_string());
        for (command, takes) in [
            ("analyze", &ANALYZE_TAKES[..]),
            ("simulate", &SIMULATE_TAKES),
        ] {
            let mut args = vec![command, file.as_str(), "--json"];
            if command == "simulate" && kind == "workload" {
                args.extend(["--policy", "gedf"]);
            }
            let out = kairos(&args);
            let taken = takes.contains(&kind);
            match taken {
                true => assert_ne!(
                    out.status.code(),
                    Some(2),
                    "{command} {file} (a {kind} check accepts): {}",
                    stderr(&out)
                ),
                false => assert!(
                    out.status.code() == Some(2) && stderr(&out).contains("does not take"),
                    "{command} {file} ({kind}): {}",
                    stderr(&out)
                ),
            }
        }
    }
    // Not vacuous: every kind was accepted somewhere, and some files were refused.
    let all = [
        "workload",
        "simso-xml",
        "mc-dag",
        "mc-dag-xml",
        "vm",
        "managed",
        "experiment",
        "overheads",
    ];
    assert!(
        all.iter().all(|k| kinds.contains(*k)),
        "kinds accepted: {kinds:?}"
    );
    assert!(
        accepted >= 30 && refused >= 6,
        "{accepted} accepted, {refused} refused"
    );
}

/// The diagnostics of `kairos check --json` on an input of `tests/data/inputs`.
fn diagnostics(name: &str) -> Vec<Value> {
    let (code, report) = check(&format!("tests/data/inputs/{name}"));
    assert_eq!(code, Some(2), "{name}: {report}");
    report["diagnostics"].as_array().unwrap().clone()
}

fn said(diagnostics: &[Value], words: &str) -> Option<Value> {
    (diagnostics.iter())
        .find(|d| d["message"].as_str().unwrap_or("").contains(words))
        .cloned()
}

#[test]
fn check_refuses_what_a_later_command_would_refuse_and_says_where() {
    let two = diagnostics("vm-rt-partition-two-cores.toml");
    let d = said(&two, "2 cores under rt-partition").expect("the two-core VCPU");
    assert_eq!(
        (d["line"].as_u64(), d["path"].as_str()),
        (Some(13), Some("domains[0].vcpus[0].cpus"))
    );
    let none = diagnostics("vm-no-interface.toml");
    assert!(
        said(&none, "domain `heavy` has no interface").is_some(),
        "{none:?}"
    );
    let fine = diagnostics("mc-fine-grid.toml");
    assert!(
        said(&fine, "the slot grid is too fine").is_some(),
        "{fine:?}"
    );
    let mixed = diagnostics("mixed-kinds.toml");
    let d = said(&mixed, "`vmm` makes it a VM system").expect("the second kind's key");
    assert_eq!(d["line"].as_u64(), Some(8));
    let xml = diagnostics("unknown-root.xml");
    assert!(
        said(&xml, "the root element is <project>").is_some(),
        "{xml:?}"
    );
    // The same refusal from the commands, with the check command that shows it.
    let out = kairos(&["simulate", "tests/data/inputs/mc-fine-grid.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("see `kairos check"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn interface_writes_a_file_every_command_takes() {
    let scratch = Scratch::new("interface-packed");
    let out = scratch.0.join("packed.toml");
    let input = repo().join("tests/data/inputs/vm-rt-partition-packed.toml");
    let written = kairos(&["interface", path(&input), "--out", path(&out)]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("cpus = [").count(), 2, "{text}");
    let (code, report) = check(path(&out));
    assert_eq!(code, Some(0), "{report}");
    let simulated = kairos(&["simulate", path(&out), "--json", "--duration", "100ms"]);
    assert_eq!(simulated.status.code(), Some(0), "{}", stderr(&simulated));
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}
