//! VM files end to end: `kairos check`, `kairos analyze` (compositional analysis) and
//! `kairos interface`, whose written VCPUs must analyse to the same verdict as explicit ones.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn kairos(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("kairos runs")
}

/// A fresh folder, removed when the test ends.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("vm-{name}"))
}

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vm/two-domains.toml");
    std::fs::read_to_string(path).unwrap()
}

fn analyze_json(path: &Path) -> (Value, i32) {
    let out = kairos(&["analyze", path.to_str().unwrap(), "--json"]);
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (json, out.status.code().unwrap())
}

/// The example under each VMM scheduler and priority, and with a heavier gEDF domain.
fn variants() -> Vec<(String, String)> {
    let base = example();
    let mut all = Vec::new();
    for scheduler in ["rt-global", "rt-partition"] {
        for priority in ["edf", "dm"] {
            let text = base
                .replace(
                    "scheduler = \"rt-global\"",
                    &format!("scheduler = \"{scheduler}\""),
                )
                .replace("priority = \"edf\"", &format!("priority = \"{priority}\""));
            all.push((format!("{scheduler}-{priority}"), text.clone()));
            let heavy = text.replace("wcet = \"25ms\"", "wcet = \"70ms\"");
            all.push((format!("{scheduler}-{priority}-heavy"), heavy));
        }
    }
    all
}

#[test]
fn written_vcpus_analyse_as_the_computed_ones() {
    let dir = scratch("roundtrip");
    let mut multi_vcpu = 0;
    for (name, text) in variants() {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        let (computed, code) = analyze_json(&file);
        let out = dir.join(format!("{name}-vcpus.toml"));
        let written = kairos(&[
            "interface",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            written.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&written.stderr)
        );
        let check = kairos(&["check", out.to_str().unwrap()]);
        assert!(
            check.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
        let (given, given_code) = analyze_json(&out);
        assert_eq!(code, given_code, "{name}");
        assert_eq!(computed["schedulable"], given["schedulable"], "{name}");
        let pairs = computed["interfaces"]
            .as_array()
            .unwrap()
            .iter()
            .zip(given["interfaces"].as_array().unwrap());
        for (c, g) in pairs {
            assert_eq!(g["model"], "explicit", "{name}");
            assert_eq!(c["budget_ns"], g["budget_ns"], "{name}");
            assert_eq!(
                c["vcpus"], g["vcpus"],
                "{name}: names, budgets, cores and tasks"
            );
            assert_eq!(
                g["schedulable"], true,
                "{name}: the guest on its computed VCPUs"
            );
            multi_vcpu += usize::from(c["parallelism"].as_u64().unwrap() > 1);
        }
        if name.starts_with("rt-partition") {
            for v in given["interfaces"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|i| i["vcpus"].as_array().unwrap())
            {
                assert_eq!(
                    v["cpus"].as_array().map(Vec::len),
                    Some(1),
                    "{name}: one core per VCPU"
                );
            }
        }
    }
    assert!(
        multi_vcpu >= 4,
        "the heavy variants need more than one VCPU: {multi_vcpu}"
    );
}

#[test]
fn the_json_report_has_every_documented_field() {
    let (report, code) = analyze_json(Path::new("examples/vm/two-domains.toml"));
    assert_eq!(code, 0);
    for domain in report["interfaces"].as_array().unwrap() {
        for key in [
            "domain",
            "guest",
            "model",
            "period_ns",
            "budget_ns",
            "parallelism",
            "vcpus",
            "schedulable",
        ] {
            assert!(domain.get(key).is_some(), "{key} in {domain}");
        }
        for vcpu in domain["vcpus"].as_array().unwrap() {
            for key in ["name", "budget_ns", "period_ns", "cpus", "tasks"] {
                assert!(vcpu.get(key).is_some(), "{key} in {vcpu}");
            }
        }
    }
    for key in ["scheduler", "priority", "schedulable", "test"] {
        assert!(report["vmm"].get(key).is_some(), "{key}");
    }
}

#[test]
fn a_domain_without_interface_is_refused_and_said_unschedulable() {
    let dir = scratch("none");
    let file = dir.join("over.toml");
    let over = example()
        .replace("wcet = \"25ms\"", "wcet = \"95ms\"")
        .replace("wcet = \"12ms\"", "wcet = \"49ms\"")
        .replace("wcet = \"6ms\"", "wcet = \"32ms\"");
    std::fs::write(&file, over).unwrap();
    let (report, code) = analyze_json(&file);
    assert_eq!(code, 1);
    assert_eq!(report["schedulable"], false);
    assert_eq!(report["interfaces"][1]["model"], "none");
    let note = report["interfaces"][1]["note"].as_str().unwrap();
    assert!(
        note.contains("no MPR of period 5ms and at most 2 VCPUs"),
        "{note}"
    );
    let out = kairos(&["interface", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("domain `vision` has no interface"));
    // `check` places it at the domain: the line of its first field, its name.
    let text = std::fs::read_to_string(&file).unwrap();
    let line = 1
        + (text.lines())
            .position(|l| l.trim() == "name = \"vision\"")
            .expect("the domain's name");
    let out = kairos(&["check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!(
            "over.toml:{line}:8: error: domains[1]: domain `vision` has no interface"
        )),
        "{said}"
    );
}

#[test]
fn check_reports_a_broken_vm_file_with_positions() {
    let dir = scratch("broken");
    let file = dir.join("broken.toml");
    std::fs::write(
        &file,
        example().replace("guest = \"gedf\"", "guest = \"gfifo\""),
    )
    .unwrap();
    let out = kairos(&["check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(":36:9: error: domains[1].guest: unknown guest \"gfifo\""),
        "{text}"
    );
}

/// Guest tasks asking more than the host's cores get the warning a periodic workload gets: at
/// the domain that alone overloads the host (4 × 0.9 = 3.6 on 2 cores, explicit VCPUs), else at
/// the domains when only their sum does (2 × 1.8 = 3.6 under computed VCPUs).
#[test]
fn guest_utilization_over_the_cores_is_warned_where_it_is() {
    let task =
        |t: &str| format!("[[domains.tasks]]\nname = \"{t}\"\nwcet = \"9ms\"\nperiod = \"10ms\"\n");
    let vcpu = "[[domains.vcpus]]\nbudget = \"10ms\"\nperiod = \"10ms\"\n";
    let mut one = String::from("cores = 2\n[[domains]]\nname = \"x\"\nguest = \"gedf\"\n");
    one.push_str(&vcpu.repeat(2));
    one.extend(["a", "b", "c", "d"].map(task));
    let mut two = String::from("cores = 2\n");
    for d in ["x", "y"] {
        two.push_str(&format!(
            "[[domains]]\nname = \"{d}\"\nguest = \"gedf\"\nvcpus = \"auto\"\n"
        ));
        two.extend(["a", "b"].map(task));
    }
    let scratch = scratch("overload");
    let (one_line, two_line) = (
        one.lines().position(|l| l.starts_with("[[domains.tasks]]")),
        two.lines().position(|l| l.starts_with("[[domains]]")),
    );
    for (file, source, expected) in [
        ("one.toml", &one, format!("one.toml:{}:", one_line.unwrap() + 1) + "1: warning: domains[0].tasks: domain `x`'s utilization 3.600 exceeds the 2 core(s): deadlines will be missed under any policy"),
        ("two.toml", &two, format!("two.toml:{}:", two_line.unwrap() + 1) + "1: warning: domains: total utilization 3.600 exceeds the 2 core(s): deadlines will be missed under any policy"),
    ] {
        std::fs::write(scratch.join(file), source).unwrap();
        let out = kairos(&["check", scratch.join(file).to_str().unwrap()]);
        let report = String::from_utf8_lossy(&out.stdout).replace(&format!("{}/", scratch.display()), "");
        assert!(report.lines().any(|l| l == expected), "{expected}\nnot in\n{report}");
        assert_eq!(out.status.code(), Some(0), "{report}");
    }
}
