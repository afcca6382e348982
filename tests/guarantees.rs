//! `kairos experiment` on a guarantees study end to end: the whole pipeline in the simulator
//! (sets, both analyses, partitions and optional deadlines reaching the runs, result files,
//! resumption), `kairos check` on its configs, and a tiny study on real cores.

mod common;

use common::{stderr, stdout, Scratch};
use serde_json::Value;

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Every family at two points, in the simulator with the example profile.
fn simulated_config() -> String {
    format!(
        "study = \"guarantees\"\nexecution = \"simulated\"\nseed = 5\nsamples = 3\n\
         duration = \"1s\"\noverheads = \"{}\"\n[utilization]\nfrom = 0.3\nto = 0.9\nstep = 0.6\n",
        repo("examples/overheads/example-profile.toml")
    )
}

/// Every family a simulated study judges, its default there, in order (the tables of
/// `mc-tables` run on real cores only).
const FAMILIES: [&str; 10] = [
    "gedf",
    "pedf",
    "gfp",
    "edzl",
    "grmwp",
    "prmwp",
    "vm-global-deferrable",
    "vm-global-periodic",
    "vm-partition-deferrable",
    "vm-partition-periodic",
];

const CSV_HEADER: &str = "family,utilization,sets,ideal,aware,run,missed,missed_schedule,\
                          missed_host,aware_missed,aware_missed_schedule,aware_missed_host,jobs,\
                          misses,misses_schedule,misses_host,misses_host_stalled_twin,stopped";

/// The text table's header, in order: the CSV's columns after the family, less the totals a
/// reader can add up (`missed`, `aware_missed`, `misses_schedule`, `misses_host`,
/// `misses_host_stalled_twin`), the
/// utilization as `U` and the causes shortened.
const TABLE_COLUMNS: [&str; 12] = [
    "U",
    "sets",
    "ideal",
    "aware",
    "run",
    "schedule",
    "host",
    "aware-schedule",
    "aware-host",
    "jobs",
    "misses",
    "stopped",
];

/// The columns of the text table's header in `text`.
fn table_columns(text: &str) -> Vec<&str> {
    let header = text.lines().find(|l| l.starts_with("U ")).expect("a table");
    header.split_whitespace().collect()
}

/// `results.csv` as rows of named values.
fn rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    (lines.map(|l| {
        header
            .iter()
            .cloned()
            .zip(l.split(',').map(String::from))
            .collect()
    }))
    .collect()
}

fn count(row: &std::collections::HashMap<String, String>, key: &str) -> u64 {
    row[key]
        .parse()
        .unwrap_or_else(|_| panic!("{key} in {row:?}"))
}

/// The simulator charges less than the analysis (switch and migration costs only, drawn up
/// to the profile's max), so no set the overhead-aware analysis accepts at max may miss there:
/// a miss would mean a partition or an optional deadline did not reach the run as analysed.
#[test]
fn a_simulated_study_runs_what_the_analyses_accepted_and_resumes() {
    let dir = Scratch::new("guarantees");
    dir.write("g.toml", simulated_config());
    let run = || dir.kairos(&["experiment", "g.toml", "--out-dir", "out", "--quiet"]);
    let first = run();
    assert!(first.status.success(), "{}", stderr(&first));
    let csv = dir.read("out/results.csv");
    assert!(csv.starts_with(&format!("{CSV_HEADER}\n")), "{csv}");
    let rows = rows(&csv);
    let families: Vec<&str> = rows.iter().map(|r| r["family"].as_str()).collect();
    let each: Vec<&str> = FAMILIES.iter().flat_map(|f| [*f, *f]).collect();
    assert_eq!(families, each);
    for row in &rows {
        let (ideal, aware, run) = (count(row, "ideal"), count(row, "aware"), count(row, "run"));
        assert_eq!(count(row, "sets"), 3, "{row:?}");
        // Every set either analysis accepts runs, and no other.
        assert!(
            run >= ideal.max(aware) && run <= ideal + aware && run <= 3,
            "{row:?}"
        );
        assert_eq!(count(row, "aware_missed"), 0, "a broken guarantee: {row:?}");
        assert_eq!(
            count(row, "missed_host"),
            0,
            "a simulation has no host: {row:?}"
        );
        assert_eq!(
            count(row, "misses"),
            count(row, "misses_schedule"),
            "{row:?}"
        );
        assert_eq!(count(row, "jobs") > 0, run > 0, "{row:?}");
    }
    // Not vacuous: at U = 0.3 the overhead-aware analysis accepts sets of every policy family
    // but those the profile's max needs longer periods for, which the test below draws.
    let policies = rows.iter().filter(|r| !needs_longer_periods(&r["family"]));
    for row in policies.filter(|r| r["utilization"] == "0.3") {
        assert!(count(row, "aware") > 0, "{row:?}");
    }
    let text = stdout(&first);
    assert_eq!(table_columns(&text), TABLE_COLUMNS, "{text}");
    assert!(text.contains("overheads given"), "{text}");
    let summary: Value = serde_json::from_str(&dir.read("out/summary.json")).unwrap();
    assert_eq!(summary["execution"], "simulated");
    assert_eq!(
        summary["families"].as_array().unwrap().len(),
        FAMILIES.len()
    );
    assert_eq!(summary["points"].as_array().unwrap().len(), 2);

    // Resumed: nothing runs again and the results are the same.
    let again = run();
    assert!(
        stderr(&again).contains("resuming: 2 point(s) already done"),
        "{}",
        stderr(&again)
    );
    assert_eq!(dir.read("out/results.csv"), csv);
}

/// The families whose overhead-aware analysis accepts nothing at 5 ms periods under the example
/// profile's max: the VM families (VCPUs of 2.5 ms cannot hold it per period) and EDZL (each
/// job charged three interrupts: its release and the two wake-ups its decisions may leave).
fn needs_longer_periods(family: &str) -> bool {
    family.starts_with("vm-") || family == "edzl"
}

/// Those families in the simulator, on periods of 10 to 100 ms: a VM system the overhead-aware
/// compositional analysis accepts runs on the VCPU budgets it computed, an EDZL set as it is,
/// and each simulator charges less than the analysis (switch and migration costs only, drawn
/// up to the profile's max), so none may miss. Not vacuous: every family must have sets the
/// overhead-aware analysis accepts, and the overheads must refuse some set the ideal analysis
/// accepts.
#[test]
fn sets_the_overhead_aware_analysis_accepts_on_longer_periods_do_not_miss_in_simulation() {
    let dir = Scratch::new("guarantees-longer");
    let longer: Vec<&str> = FAMILIES
        .into_iter()
        .filter(|f| needs_longer_periods(f))
        .collect();
    let names: Vec<String> = longer.iter().map(|f| format!("\"{f}\"")).collect();
    dir.write(
        "longer.toml",
        format!(
            "study = \"guarantees\"\nexecution = \"simulated\"\nseed = 9\nsamples = 6\n\
             families = [{}]\nperiods = [\"10ms\", \"100ms\"]\nduration = \"1s\"\n\
             overheads = \"{}\"\n[utilization]\nfrom = 0.2\nto = 0.8\nstep = 0.2\n",
            names.join(", "),
            repo("examples/overheads/example-profile.toml")
        ),
    );
    let out = dir.kairos(&["experiment", "longer.toml", "--out-dir", "out", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(&dir.read("out/results.csv"));
    assert_eq!(rows.len(), longer.len() * 4);
    for family in &longer {
        let of: Vec<_> = rows.iter().filter(|r| r["family"] == *family).collect();
        for row in &of {
            assert_eq!(count(row, "aware_missed"), 0, "a broken guarantee: {row:?}");
            assert!(count(row, "run") >= count(row, "aware"), "{row:?}");
        }
        let total = |key: &str| of.iter().map(|r| count(r, key)).sum::<u64>();
        assert!(
            total("aware") > 0,
            "{family}: no set accepted with overheads"
        );
        assert!(
            total("ideal") > total("aware"),
            "{family}: the overheads refused no set"
        );
    }
}

#[test]
fn check_describes_a_study_and_locates_its_problems() {
    let dir = Scratch::new("guarantees-check");
    let ok = dir.kairos(&["check", &repo("examples/experiments/guarantees.toml")]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(
        stdout(&ok).contains(
            "guarantees study guarantees: 9 point(s) of 4 set(s), families gedf, pedf, gfp, \
             edzl, grmwp, prmwp, vm-global-deferrable, vm-global-periodic, vm-partition-deferrable, \
             vm-partition-periodic, mc-tables, 2 core(s), accepted sets run 2s on real cores"
        ),
        "{}",
        stdout(&ok)
    );
    dir.write(
        "tables.toml",
        "study = \"guarantees\"\nexecution = \"simulated\"\nfamilies = [\"gedf\", \"mc-tables\"]\n",
    );
    let tables = dir.kairos(&["check", "tables.toml"]);
    assert_eq!(tables.status.code(), Some(2));
    assert!(
        stdout(&tables).contains(
            "tables.toml:3:21: error: families[1]: mc-tables runs on real cores only: the table \
             simulator charges no overheads"
        ),
        "{}",
        stdout(&tables)
    );
    dir.write(
        "bad.toml",
        "study = \"guarantees\"\nquantile = \"p50\"\ncores = 0\n",
    );
    for command in ["check", "experiment"] {
        let bad = dir.kairos(&[command, "bad.toml"]);
        assert_eq!(bad.status.code(), Some(2), "{command}");
        let all = format!("{}{}", stdout(&bad), stderr(&bad));
        assert!(
            all.contains("bad.toml:2:12: error: quantile:"),
            "{command}: {all}"
        );
        assert!(
            all.contains("bad.toml:3:9: error: cores: must be at least 1"),
            "{command}: {all}"
        );
    }
}

/// One set of a policy family and one MC-DAG system for 300 ms on real cores, the profile
/// measured first: the files and the table's columns (what a real run counts varies with the
/// machine: not asserted).
#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_tiny_study_runs_on_real_cores() {
    let _turn = common::serial();
    let dir = Scratch::new("guarantees-real");
    dir.write(
        "tiny.toml",
        "study = \"guarantees\"\nexecution = \"real\"\nsamples = 1\n\
         families = [\"gedf\", \"mc-tables\"]\nduration = \"300ms\"\n\
         [utilization]\nfrom = 0.5\nto = 0.5\nstep = 0.1\n",
    );
    let out = dir.kairos(&["experiment", "tiny.toml", "--out-dir", "out", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("measuring: runtime-2cores under gedf"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("estimate: at most 2 run(s) of 300ms"),
        "{}",
        stderr(&out)
    );
    let csv = dir.read("out/results.csv");
    assert!(
        csv.starts_with(&format!("{CSV_HEADER}\ngedf,0.5,1,")),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // The tables of an MC-DAG system at U = 0.5 synthesize, so they ran on the table dispatcher.
    let tables = &rows(&csv)[1];
    assert_eq!(tables["family"], "mc-tables", "{csv}");
    assert_eq!(
        (count(tables, "sets"), count(tables, "run")),
        (1, 1),
        "{csv}"
    );
    assert!(count(tables, "jobs") > 0, "{csv}");
    assert!(dir.read("out/overheads.toml").contains("[overheads]"));
    let text = stdout(&out);
    assert_eq!(table_columns(&text), TABLE_COLUMNS, "{text}");
    assert!(text.contains("overheads measured"), "{text}");
    let summary: Value = serde_json::from_str(&dir.read("out/summary.json")).unwrap();
    assert_eq!(summary["execution"], "real");
    assert_eq!(summary["overheads"]["source"], "measured");
}

/// A study of a kernel family alone on real cores: kernel dispatch's own profile is measured,
/// not the dispatcher's, written to its own file, named in the summary and the text, and
/// charged to the family, whose set runs on the kernel's scheduler (what a real run counts
/// varies with the machine: not asserted).
#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_kernel_family_is_charged_kernel_dispatchs_own_profile() {
    let _turn = common::serial();
    let dir = Scratch::new("guarantees-kernel");
    dir.write(
        "kernel.toml",
        "study = \"guarantees\"\nexecution = \"real\"\nsamples = 1\n\
         families = [\"pfp-kernel\"]\nduration = \"300ms\"\nquantile = \"p99\"\n\
         [utilization]\nfrom = 0.3\nto = 0.3\nstep = 0.1\n",
    );
    let out = dir.kairos(&["experiment", "kernel.toml", "--out-dir", "out", "--quiet"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("measuring: kernel-overheads under gfp (kernel dispatch) for 3s"),
        "{err}"
    );
    let profile = dir.read("out/overheads-kernel.toml");
    assert!(
        profile.contains("Kernel dispatch") && profile.contains("[overheads]"),
        "{profile}"
    );
    // P-FP's partitioned test accepts a set of 8 tasks at U = 0.3 on 2 cores: it ran.
    let csv = dir.read("out/results.csv");
    let row = &rows(&csv)[0];
    assert_eq!(row["family"], "pfp-kernel", "{csv}");
    assert_eq!((count(row, "sets"), count(row, "run")), (1, 1), "{csv}");
    assert!(count(row, "jobs") > 0, "{csv}");
    assert!(
        !err.contains("(user dispatch)"),
        "no dispatcher profile: {err}"
    );
    assert!(!dir.0.join("out/overheads.toml").exists());
    let summary: Value = serde_json::from_str(&dir.read("out/summary.json")).unwrap();
    assert_eq!(
        summary["kernel_overheads"],
        Value::Null,
        "one profile: {summary}"
    );
    let kernel = &summary["overheads"];
    assert_eq!(kernel["source"], "measured", "{summary}");
    assert!(kernel["file"]
        .as_str()
        .unwrap()
        .ends_with("overheads-kernel.toml"));
    // Charged at p99: the kernel's round trip as `release`, none of the dispatcher's lock.
    assert_eq!(kernel["charges"]["scheduling"], 0, "{summary}");
    let text = stdout(&out);
    assert!(
        text.contains("kernel dispatch's overheads measured"),
        "{text}"
    );
    assert!(
        text.contains("on real cores (the kernel's scheduler)"),
        "{text}"
    );
}
