//! `kairos gen` end to end: reproducible files, a provenance line that reruns to the same file,
//! and the output format chosen by the file name.

mod common;

use common::{stdout, Scratch};
use std::path::Path;

#[test]
fn gen_writes_a_valid_workload_and_the_same_seed_gives_the_same_file() {
    let scratch = Scratch::new("gen-test");
    let dir = &scratch.0;
    let args = [
        "gen",
        "--method",
        "uunifast-discard",
        "--tasks",
        "8",
        "--utilization",
        "2.5",
        "--seed",
        "9",
        "--out",
    ];
    let first = scratch.kairos(&[&args[..], &["a.toml"]].concat());
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    scratch.kairos(&[&args[..], &["b.toml"]].concat());
    let (a, b) = (
        std::fs::read_to_string(dir.join("a.toml")).unwrap(),
        std::fs::read_to_string(dir.join("b.toml")).unwrap(),
    );
    assert_eq!(a, b);
    let check = scratch.kairos(&["check", "a.toml"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(stdout(&check).contains("8 task(s) on 4 core(s)"));
}

/// The command in a generated file's first line, as arguments (without `kairos`).
fn provenance(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let first = text.lines().next().unwrap();
    let command = first
        .strip_prefix("# kairos ")
        .and_then(|c| c.split(" (").next())
        .unwrap_or_else(|| panic!("no provenance line: {first}"));
    command.split_whitespace().map(String::from).collect()
}

/// Runs `kairos ARGS --out a.toml`, then the command in a.toml's first line with
/// `--out b.toml`: the two files must be equal.
fn assert_provenance_reruns(args: &[&str]) {
    let scratch = Scratch::new("gen-test");
    let dir = &scratch.0;
    let first = scratch.kairos(&[args, &["--out", "a.toml"]].concat());
    assert!(first.status.success());
    let mut again = provenance(&dir.join("a.toml"));
    again.extend(["--out".into(), "b.toml".into()]);
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    assert!(scratch.kairos(&again).status.success(), "{again:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.toml")).unwrap(),
        std::fs::read_to_string(dir.join("b.toml")).unwrap()
    );
}

#[test]
fn gen_provenance_reruns_to_the_same_file() {
    assert_provenance_reruns(&[
        "gen",
        "--tasks",
        "6",
        "--utilization",
        "1.5",
        "--cores",
        "2",
        "--periods",
        "log-uni-short",
        "--deadlines",
        "uni-constrained",
        "--seed",
        "4",
    ]);
}

#[test]
fn gen_mcdag_provenance_reruns_to_the_same_file() {
    assert_provenance_reruns(&[
        "gen",
        "--mcdag",
        "--tasks",
        "8",
        "--utilization",
        "1.2",
        "--cores",
        "3",
        "--levels",
        "3",
        "--edge-probability",
        "0.3",
        "--seed",
        "11",
    ]);
}

#[test]
fn gen_refuses_a_batch_in_a_single_set_format_and_reports_json() {
    let scratch = Scratch::new("gen-test");
    let dir = &scratch.0;
    let base = [
        "gen",
        "--tasks",
        "4",
        "--utilization",
        "1",
        "--count",
        "3",
        "--out",
    ];
    for file in ["three.toml", "three.json", "three.txt"] {
        let out = scratch.kairos(&[&base[..], &[file]].concat());
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(!dir.join(file).exists(), "{file} written");
    }
    let out = scratch.kairos(&[&base[..], &["three.jsonl", "--json"]].concat());
    assert_eq!(out.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["format"], "jsonl");
    assert_eq!(summary["sets"], 3);
    assert_eq!(summary["utilizations"].as_array().unwrap().len(), 3);
    let lines = std::fs::read_to_string(dir.join("three.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 3);
}

/// `--method imprecise` is `--imprecise` (the same file), and refuses a task count it could not
/// honour.
#[test]
fn gen_method_imprecise_is_the_imprecise_flag_and_refuses_a_task_count() {
    let scratch = Scratch::new("gen-imprecise");
    let common = [
        "--utilization",
        "0.8",
        "--cores",
        "2",
        "--seed",
        "5",
        "--out",
    ];
    let flag = scratch.kairos(&[&["gen", "--imprecise"][..], &common, &["a.toml"]].concat());
    let method =
        scratch.kairos(&[&["gen", "--method", "imprecise"][..], &common, &["b.toml"]].concat());
    assert!(flag.status.success() && method.status.success());
    let read = |f: &str| std::fs::read_to_string(scratch.0.join(f)).unwrap();
    assert_eq!(read("a.toml"), read("b.toml"));
    assert!(read("a.toml").contains("mandatory"));
    let counted = scratch.kairos(&[
        "gen",
        "--method",
        "imprecise",
        "--tasks",
        "5",
        "--utilization",
        "1",
    ]);
    assert_eq!(counted.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&counted.stderr).contains("--tasks: the imprecise generator"));
}
