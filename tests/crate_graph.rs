//! The crate graph of docs/policy.md is the real one, and it keeps the contract's promise: the
//! contract crate sits below both engines and no engine depends on the other. It also keeps the
//! runtime apart from the platform tools, `unsafe` code inside `kairos-os` alone, and the Python
//! extension on the library without the command line.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// `cargo metadata` of the workspace's own packages.
fn metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Normal (non-dev, non-build) dependencies between the workspace's crates.
fn workspace_graph() -> Graph {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = (packages.iter())
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"].as_array().unwrap().iter();
            let normal = deps.filter(|d| d["kind"].is_null());
            let internal = normal
                .map(|d| d["name"].as_str().unwrap().to_string())
                .filter(|name| names.contains(name))
                .collect();
            (p["name"].as_str().unwrap().to_string(), internal)
        })
        .collect()
}

fn documented_graph() -> Graph {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/policy.md"))
        .expect("docs/policy.md");
    let section = page
        .split("## Where the contract sits")
        .nth(1)
        .expect("the section exists");
    let block = section.split("```text\n").nth(1).expect("a text block");
    let block = block.split("```").next().unwrap();
    block
        .lines()
        .map(|line| {
            let (name, deps) = line.split_once(" -> ").expect("`crate -> deps`");
            let deps = match deps {
                "(none)" => BTreeSet::new(),
                deps => deps.split(", ").map(str::to_string).collect(),
            };
            (name.to_string(), deps)
        })
        .collect()
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut stack = vec![from.to_string()];
    let mut seen = BTreeSet::new();
    while let Some(node) = stack.pop() {
        if node == to {
            return true;
        }
        if seen.insert(node.clone()) {
            stack.extend(graph.get(&node).into_iter().flatten().cloned());
        }
    }
    false
}

#[test]
fn the_documented_crate_graph_is_the_real_one() {
    assert_eq!(documented_graph(), workspace_graph());
}

#[test]
fn the_contract_is_below_both_engines_and_no_engine_depends_on_the_other() {
    let graph = workspace_graph();
    assert!(!reaches(&graph, "kairos-sim", "kairos-rt"));
    assert!(!reaches(&graph, "kairos-rt", "kairos-sim"));
    for engine in ["kairos-sim", "kairos-rt"] {
        assert!(graph[engine].contains("kairos-policy"), "{engine}");
    }
    // Below the contract: the model, and the trace format its core records for every engine.
    let below_contract: BTreeSet<String> =
        ["kairos-model".to_string(), "kairos-trace".to_string()].into();
    assert_eq!(graph["kairos-policy"], below_contract);
    for below in &below_contract {
        assert!(!reaches(&graph, below, "kairos-policy"), "{below}");
    }
    // The checker itself can fail: the CLI does reach both engines.
    assert!(reaches(&graph, "kairos", "kairos-rt") && reaches(&graph, "kairos", "kairos-sim"));
}

#[test]
fn the_runtime_needs_no_platform_tool_and_the_os_layer_no_kairos_crate() {
    let graph = workspace_graph();
    assert!(graph["kairos-os"].is_empty(), "{:?}", graph["kairos-os"]);
    assert!(!reaches(&graph, "kairos-rt", "kairos-platform"));
    for user in ["kairos-rt", "kairos-platform"] {
        assert!(graph[user].contains("kairos-os"), "{user}");
    }
    // The simulator never calls the operating system.
    assert!(!reaches(&graph, "kairos-sim", "kairos-os"));
}

#[test]
fn every_crate_but_kairos_os_forbids_unsafe_code() {
    let metadata = metadata();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let targets = package["targets"].as_array().unwrap().iter();
        let roots = targets.filter(|t| {
            let kinds = t["kind"].as_array().unwrap();
            kinds.iter().any(|k| k == "lib" || k == "bin")
        });
        for root in roots {
            let path = root["src_path"].as_str().unwrap();
            let source = std::fs::read_to_string(path).unwrap();
            let forbids = source.contains("#![forbid(unsafe_code)]");
            assert_eq!(forbids, name != "kairos-os", "{name}: {path}");
        }
    }
}

/// Every dependency name (kairos's crates and the external crates they name) reached from
/// the Python extension's own dependencies through the workspace's normal dependencies.
fn python_closure() -> BTreeSet<String> {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/python/Cargo.toml"))
            .expect("python/Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("python/Cargo.toml parses");
    let direct = manifest["dependencies"].as_table().expect("[dependencies]");
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    let deps_of = |name: &str| -> Vec<String> {
        let package = packages.iter().find(|p| p["name"] == name);
        let deps = package.map_or(&[][..], |p| p["dependencies"].as_array().unwrap());
        (deps.iter())
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = direct.keys().cloned().collect();
    while let Some(name) = stack.pop() {
        if seen.insert(name.clone()) {
            stack.extend(deps_of(&name));
        }
    }
    seen
}

#[test]
fn the_python_extension_stands_on_the_library_without_the_command_line() {
    let closure = python_closure();
    assert!(closure.contains("kairos-lab"), "{closure:?}");
    for cli_only in ["kairos", "clap", "indicatif"] {
        assert!(
            !closure.contains(cli_only),
            "the Python extension reaches {cli_only}: {closure:?}"
        );
    }
}
