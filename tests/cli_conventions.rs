//! The command line's one convention (docs/cli.md, "Conventions"), checked on every command's
//! `--help` as the binary prints it, so a new command or flag cannot drift from it: `-o, --out
//! FILE` for a file, `--out-dir DIR` for a folder, `--json` on every command with a result, one
//! value name per concept; then every quick command's `--json` parsed.

mod common;

use common::{stdout, Scratch};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `kairos ARGS --help`, as text.
fn help(path: &[String]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(path)
        .arg("--help")
        .output()
        .expect("run kairos");
    assert!(output.status.success(), "{path:?} --help failed");
    stdout(&output)
}

/// The subcommands a help text lists (`help` aside).
fn subcommands(text: &str) -> Vec<String> {
    let Some(section) = text.split("Commands:\n").nth(1) else {
        return Vec::new();
    };
    (section.lines())
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// Every command that runs something (a leaf of the command tree), with its help text.
fn leaves() -> Vec<(Vec<String>, String)> {
    let mut found = Vec::new();
    let mut pending = vec![Vec::new()];
    while let Some(path) = pending.pop() {
        let text = help(&path);
        let children = subcommands(&text);
        // `bench` both runs (the simulator bench) and has subcommands.
        if children.is_empty() || path == ["bench"] {
            found.push((path.clone(), text.clone()));
        }
        for child in children {
            pending.push([path.clone(), vec![child]].concat());
        }
    }
    found.sort();
    found
}

/// One option of a help text: its long name, short letter and value name.
#[derive(Debug)]
struct Flag {
    long: String,
    short: Option<char>,
    value: Option<String>,
}

fn flags(text: &str) -> Vec<Flag> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let (short, rest) = match line.strip_prefix('-') {
            Some(r) if !r.starts_with('-') && r.len() > 3 && &r[1..3] == ", " => {
                (r.chars().next(), &r[3..])
            }
            _ => (None, line),
        };
        let Some(rest) = rest.strip_prefix("--") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let long = words.next().unwrap_or_default().to_string();
        let value = (words.next()).filter(|w| w.starts_with('<')).map(|w| {
            w.trim_matches(|c| c == '<' || c == '>' || c == '.')
                .to_string()
        });
        out.push(Flag { long, short, value });
    }
    out
}

/// Commands without a result to print: `exec` replaces itself with the command it starts.
const NO_RESULT: [&str; 1] = ["exec"];

#[test]
fn every_command_follows_the_convention() {
    let leaves = leaves();
    assert!(leaves.len() >= 25, "found only {} commands", leaves.len());
    let mut value_names: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (path, text) in &leaves {
        let name = path.join(" ");
        let flags = flags(text);
        let has = |long: &str| flags.iter().any(|f| f.long == long);
        if !NO_RESULT.contains(&name.as_str()) && !has("json") {
            problems.push(format!("{name}: no --json"));
        }
        if has("output") {
            problems.push(format!("{name}: --output is shown (write -o, --out FILE)"));
        }
        for f in &flags {
            let value = f.value.clone().unwrap_or_default();
            let wrong = match f.long.as_str() {
                "out" => f.short != Some('o') || !value.starts_with("FILE"),
                "out-dir" => value != "DIR",
                "gantt" => value != "FILE.svg",
                "gantt-window" => value != "START..END",
                _ => false,
            };
            if wrong {
                problems.push(format!("{name}: {f:?} breaks the convention"));
            }
            (value_names.entry(f.long.clone()).or_default().entry(value))
                .or_default()
                .push(name.clone());
        }
    }
    // The parser saw the flags the rules are about (else the rules checked nothing).
    let seen = |long: &str| {
        value_names
            .get(long)
            .map_or(0, |v| v.values().map(Vec::len).sum())
    };
    assert!(
        seen("json") >= 25 && seen("out") >= 7 && seen("out-dir") >= 9,
        "{value_names:?}"
    );
    for concept in [
        "duration", "seed", "exec", "trace", "gantt", "out-dir", "policies",
    ] {
        let names = value_names.get(concept).cloned().unwrap_or_default();
        if names.len() > 1 {
            problems.push(format!("--{concept} has several value names: {names:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_convention_table_of_the_docs_lists_every_command() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"))
        .expect("read docs/cli.md");
    let table = (page.split("## Conventions").nth(1))
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/cli.md has a Conventions section");
    let missing: Vec<String> = (leaves().into_iter())
        .map(|(path, _)| path)
        .filter(|path| {
            let last = path.last().expect("a command");
            !table.contains(&format!("`{last}`"))
                && !table.contains(&format!("`{} {last}", path[0]))
        })
        .map(|path| path.join(" "))
        .collect();
    assert!(
        missing.is_empty(),
        "not in the Conventions table: {missing:?}"
    );
}

/// `kairos ARGS` in `dir`: its standard output parsed as JSON.
fn json_of(dir: &Scratch, args: &[&str]) -> serde_json::Value {
    let output = dir.kairos(args);
    let text = stdout(&output);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?} exited {:?}: {}",
        output.status.code(),
        common::stderr(&output)
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {text}"))
}

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(path)
        .display()
        .to_string()
}

#[test]
fn quick_commands_print_json_that_parses() {
    let dir = Scratch::new("cli-json");
    let (demo, mc, vm, simso) = (
        example("demo.toml"),
        example("mcdag/two-levels.toml"),
        example("vm/two-domains.toml"),
        example("simso/edf-2cores.xml"),
    );
    let report = json_of(&dir, &["report", &demo, "-o", "r.html", "--json"]);
    assert_eq!(report["kind"], "workload");
    assert_eq!(report["runs"].as_array().map(Vec::len), Some(5));
    assert!(dir.read("r.html").starts_with("<!DOCTYPE html>"));
    let report = json_of(&dir, &["report", &vm, "-o", "vm.html", "--json"]);
    assert_eq!(report["kind"], "vm");
    let export = json_of(&dir, &["export", "rt-app", &demo, "-o", "a.json", "--json"]);
    assert_eq!(export["tasks"], 9);
    let interfaces = json_of(&dir, &["interface", &vm, "--json"]);
    assert_eq!(interfaces["interfaces"].as_array().map(Vec::len), Some(2));
    let imported = json_of(&dir, &["import", "simso", &simso, "-o", "s.toml", "--json"]);
    assert!(imported["tasks"].as_u64() > Some(0));
    let xml = example("mcdag/xml/test-6-2.xml");
    let imported = json_of(&dir, &["import", "mcdag", &xml, "-o", "m.toml", "--json"]);
    assert!(imported["dags"].as_u64() > Some(0));
    let synth = json_of(&dir, &["synth", &mc, "-o", "t.json", "--json"]);
    assert!(synth.is_object());
    json_of(&dir, &["validate-tables", &mc, "t.json", "--json"]);
    json_of(&dir, &["check", &vm, "--json"]);
    json_of(&dir, &["analyze", &demo, "--json"]);
    json_of(&dir, &["simulate", &demo, "--json"]);
    json_of(
        &dir,
        &[
            "gen",
            "--utilization",
            "2",
            "--tasks",
            "4",
            "-o",
            "g.toml",
            "--json",
        ],
    );
}

#[test]
fn the_old_spellings_still_work() {
    let dir = Scratch::new("cli-aliases");
    let demo = example("demo.toml");
    let out = dir.kairos(&["report", &demo, "--output", "r.html", "--policies", "gedf"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let out = dir.kairos(&["export", "rt-app", &demo, "--output", "a.json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(dir.read("a.json").contains("\"tasks\""));
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn real_time_commands_print_json_that_parses() {
    let _turn = common::serial();
    let dir = Scratch::new("cli-json-rt");
    let demo = json_of(&dir, &["demo", "--out-dir", "d", "--json"]);
    let stages: Vec<&str> = (demo["stages"].as_array().expect("stages").iter())
        .map(|s| s["stage"].as_str().expect("a stage name"))
        .collect();
    for stage in [
        "check",
        "analyze",
        "simulate",
        "synthesize",
        "run",
        "vm",
        "measure",
        "report",
    ] {
        assert!(
            stages.contains(&stage),
            "the demo has no {stage} stage: {stages:?}"
        );
    }
    assert!(dir.read("d/report.html").starts_with("<!DOCTYPE html>"));
    let overheads = json_of(&dir, &["bench", "overheads", "--duration", "1s", "--json"]);
    assert!(overheads["decisions"].as_u64() > Some(0));
    let vmm = json_of(&dir, &["bench", "vmm", "--duration", "1s", "--json"]);
    assert_eq!(vmm.as_array().map(|rows| rows.len() >= 3), Some(true));
}
