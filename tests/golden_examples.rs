//! Golden outputs: the `--json` of check, analyze, simulate, synth and experiment on every
//! example (and on variants of the VM example for each VMM scheduler and server kind) is the
//! one committed under `tests/golden/examples/`. The library's redesign moves code between
//! crates; this is what shows that it kept what every command computes.
//!
//! A change that alters an output on purpose rewrites the files with
//! `KAIROS_BLESS=1 cargo test --profile tests --test golden_examples` and the diff is reviewed with
//! the change. Each file holds the arguments, the exit code and the parsed standard output (the
//! standard error's lines instead when the command printed nothing).

mod common;
#[path = "golden_examples/harness.rs"]
mod harness;

use common::Scratch;
use harness::{case, check, repo, Case};

/// A file name's stem for golden names: `examples/mcdag/xml/test-6-0.xml` -> `mcdag-xml-test-6-0`.
fn slug(path: &str) -> String {
    let rest = path.strip_prefix("examples/").unwrap_or(path);
    let stem = rest.rsplit_once('.').map_or(rest, |(s, _)| s);
    stem.replace('/', "-")
}

const PERIODIC: [&str; 7] = [
    "examples/demo.toml",
    "examples/imprecise.toml",
    "examples/partitioned-fp.toml",
    "examples/runtime-2cores.toml",
    "examples/simso-n20-m4-u3.toml",
    "examples/uniprocessor-rm.toml",
    "examples/sporadic.json",
];

const POLICIES: [&str; 5] = ["gedf", "pedf", "gfp", "pfp", "edzl"];

fn periodic_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for file in PERIODIC {
        let s = slug(file);
        cases.push(case(&format!("check-{s}"), &["check", file, "--json"]));
        cases.push(case(&format!("analyze-{s}"), &["analyze", file, "--json"]));
        cases.push(case(
            &format!("analyze-all-{s}"),
            &["analyze", file, "--tests", "all", "--json"],
        ));
        for policy in POLICIES {
            cases.push(case(
                &format!("simulate-{policy}-{s}"),
                &["simulate", file, "--policy", policy, "--json"],
            ));
        }
        cases.push(case(
            &format!("simulate-gedf-uniform-{s}"),
            &[
                "simulate", file, "--policy", "gedf", "--exec", "uniform", "--seed", "7", "--json",
            ],
        ));
    }
    cases
}

fn imprecise_cases() -> Vec<Case> {
    let file = "examples/imprecise.toml";
    let mut cases = vec![case(
        "analyze-rmwp-imprecise",
        &[
            "analyze",
            file,
            "--tests",
            "rmwp,g-rmwp,p-rmwp-ff,p-rmwp-nf,p-rmwp-bf,p-rmwp-cnf",
            "--json",
        ],
    )];
    for policy in ["grmwp", "prmwp", "grm", "prm"] {
        cases.push(case(
            &format!("simulate-{policy}-imprecise"),
            &["simulate", file, "--policy", policy, "--json"],
        ));
        cases.push(case(
            &format!("simulate-{policy}-uniform-imprecise"),
            &[
                "simulate", file, "--policy", policy, "--exec", "uniform", "--seed", "3", "--json",
            ],
        ));
    }
    cases
}

/// The engine's options: overheads, priority orders, aborts, sporadic draws.
fn option_cases() -> Vec<Case> {
    vec![
        case(
            "simulate-gfp-overheads-demo",
            &[
                "simulate",
                "examples/demo.toml",
                "--policy",
                "gfp",
                "--priorities",
                "dm",
                "--exec",
                "uniform",
                "--seed",
                "7",
                "--overhead-context-switch",
                "20us",
                "--overhead-migration",
                "50us",
                "--overhead-scheduling",
                "5us",
                "--json",
            ],
        ),
        case(
            "simulate-gedf-abort-simso-n20-m4-u3",
            &[
                "simulate",
                "examples/simso-n20-m4-u3.toml",
                "--policy",
                "gedf",
                "--cores",
                "3",
                "--abort-on-miss",
                "--duration",
                "2s",
                "--json",
            ],
        ),
        case(
            "simulate-pfp-explicit-partitioned-fp",
            &[
                "simulate",
                "examples/partitioned-fp.toml",
                "--policy",
                "pfp",
                "--priorities",
                "explicit",
                "--json",
            ],
        ),
        case(
            "simulate-edzl-sporadic-long",
            &[
                "simulate",
                "examples/sporadic.json",
                "--policy",
                "edzl",
                "--exec",
                "uniform",
                "--seed",
                "11",
                "--duration",
                "5s",
                "--json",
            ],
        ),
    ]
}

const MC: [&str; 12] = [
    "examples/mcdag/two-levels.toml",
    "examples/mcdag/three-levels.toml",
    "examples/mcdag/test-6-0.toml",
    "examples/mcdag/test-6-2.toml",
    "examples/mcdag/test-6-5.toml",
    "examples/mcdag/test-6-8.toml",
    "examples/mcdag/xml/test-6-0.xml",
    "examples/mcdag/xml/test-6-1.xml",
    "examples/mcdag/xml/test-6-2.xml",
    "examples/mcdag/xml/test-6-3.xml",
    "examples/mcdag/xml/test-6-5.xml",
    "examples/mcdag/xml/test-6-8.xml",
];

fn mc_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for file in MC {
        let s = slug(file);
        cases.push(case(&format!("check-{s}"), &["check", file, "--json"]));
        cases.push(case(&format!("analyze-{s}"), &["analyze", file, "--json"]));
        cases.push(case(
            &format!("simulate-{s}"),
            &["simulate", file, "--json"],
        ));
        for policy in ["gedzl", "gedf", "gllf", "federated"] {
            cases.push(case(
                &format!("synth-{policy}-{s}"),
                &["synth", file, "--policy", policy, "--json"],
            ));
        }
    }
    // Mode changes: one scripted overrun, and overruns drawn with a probability.
    for (file, overrun) in [
        ("examples/mcdag/two-levels.toml", "flight/sense@1"),
        ("examples/mcdag/three-levels.toml", "nav/fuse@0:MID"),
    ] {
        let s = slug(file);
        cases.push(case(
            &format!("simulate-overrun-{s}"),
            &["simulate", file, "--overrun", overrun, "--json"],
        ));
        cases.push(case(
            &format!("simulate-overrun-probability-{s}"),
            &[
                "simulate",
                file,
                "--overrun-probability",
                "0.3",
                "--seed",
                "5",
                "--duration",
                "400ms",
                "--json",
            ],
        ));
    }
    cases
}

/// Other input kinds: the VM example, SimSo XML and managed systems.
fn other_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for file in [
        "examples/vm/two-domains.toml",
        "examples/simso/edf-2cores.xml",
        "examples/manage/constrained.toml",
        "examples/manage/free.toml",
        "examples/manage/kernel-load.toml",
    ] {
        let s = slug(file);
        cases.push(case(&format!("check-{s}"), &["check", file, "--json"]));
        cases.push(case(&format!("analyze-{s}"), &["analyze", file, "--json"]));
        cases.push(case(
            &format!("simulate-{s}"),
            &["simulate", file, "--json"],
        ));
    }
    cases.push(case(
        "simulate-uniform-vm-two-domains",
        &[
            "simulate",
            "examples/vm/two-domains.toml",
            "--exec",
            "uniform",
            "--seed",
            "2",
            "--json",
        ],
    ));
    cases
}

/// The VM example under each VMM scheduler, priority and server kind: `(name, replacements)`
/// applied to its text.
const VM_VARIANTS: [(&str, &[(&str, &str)]); 4] = [
    ("rt-partition", &[("\"rt-global\"", "\"rt-partition\"")]),
    ("credit", &[("scheduler = \"rt-global\"\npriority = \"edf\"\nserver = \"deferrable\"\nvcpu_period = \"5ms\"", "scheduler = \"credit\"")]),
    ("periodic-dm", &[("\"deferrable\"", "\"periodic\""), ("\"edf\"", "\"dm\"")]),
    ("rt-partition-periodic", &[("\"rt-global\"", "\"rt-partition\""), ("\"deferrable\"", "\"periodic\"")]),
];

fn vm_variant_cases(scratch: &Scratch) -> Vec<Case> {
    let text = std::fs::read_to_string(repo().join("examples/vm/two-domains.toml")).unwrap();
    let mut cases = Vec::new();
    for (name, replacements) in VM_VARIANTS {
        let mut variant = text.clone();
        for (from, to) in replacements {
            assert!(
                variant.contains(from),
                "{name}: {from:?} not in the example"
            );
            variant = variant.replace(from, to);
        }
        let file = scratch.0.join(format!("vm-{name}.toml"));
        std::fs::write(&file, variant).unwrap();
        let file = file.to_string_lossy().into_owned();
        for command in ["check", "analyze", "simulate"] {
            cases.push(case(
                &format!("{command}-vm-{name}"),
                &[command, &file, "--json"],
            ));
        }
    }
    cases
}

#[test]
fn periodic_workloads_keep_their_outputs() {
    let scratch = Scratch::new("golden-periodic");
    let mut cases = periodic_cases();
    cases.extend(imprecise_cases());
    cases.extend(option_cases());
    check(&cases, &scratch);
}

#[test]
fn mixed_criticality_systems_keep_their_outputs() {
    let scratch = Scratch::new("golden-mc");
    check(&mc_cases(), &scratch);
}

#[test]
fn vm_simso_and_managed_files_keep_their_outputs() {
    let scratch = Scratch::new("golden-other");
    let mut cases = other_cases();
    cases.extend(vm_variant_cases(&scratch));
    check(&cases, &scratch);
}

/// Every experiment config but the real-core one (`execution = "real"` measures this machine:
/// no two runs agree) and its outputs' list of files.
#[test]
fn experiments_keep_their_outputs() {
    let scratch = Scratch::new("golden-experiment");
    let configs = std::fs::read_dir(repo().join("examples/experiments")).unwrap();
    let mut names: Vec<String> = configs
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut cases = Vec::new();
    for name in names {
        let file = format!("examples/experiments/{name}");
        let text = std::fs::read_to_string(repo().join(&file)).unwrap();
        if text.lines().any(|l| l.trim() == "execution = \"real\"") {
            continue;
        }
        let out = scratch.0.join(slug(&file));
        let out = out.to_string_lossy().into_owned();
        cases.push(case(
            &format!(
                "experiment-{}",
                slug(&file).trim_start_matches("experiments-")
            ),
            &[
                "experiment",
                &file,
                "--out-dir",
                &out,
                "--fresh",
                "--quiet",
                "--json",
            ],
        ));
    }
    assert!(cases.len() >= 9, "{} experiment configs", cases.len());
    check(&cases, &scratch);
}
