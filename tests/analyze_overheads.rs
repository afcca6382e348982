//! `kairos analyze --overheads`: the overhead-aware verdict beside the ideal one, the quantile
//! charged, the inflation per task, and the exit code following the overhead-aware verdict.
//! Figures worked by hand from the accounting in `kairos_analysis::overheads`.

mod common;

use common::{stderr, stdout, Scratch};
use serde_json::Value;

/// One core, EDF: a (1 ms every 2 ms) and b (4.9 ms every 10 ms), U = 0.99. Each job pays two
/// context switches: at 5 us, U = 1.01/2 + 4.91/10 = 0.996 (schedulable); at 10 us,
/// U = 1.02/2 + 4.92/10 = 1.002 (not).
const SET: &str = r#"
cores = 1
[[tasks]]
name = "a"
wcet = "1ms"
period = "2ms"
[[tasks]]
name = "b"
wcet = "4.9ms"
period = "10ms"
"#;

const PROFILE: &str = r#"
[overheads]
context_switch = { min = "1us", p50 = "2us", p90 = "3us", p99 = "5us", max = "10us" }
"#;

fn scratch() -> Scratch {
    let dir = Scratch::new("analyze-overheads");
    dir.write("set.toml", SET);
    dir.write("profile.toml", PROFILE);
    dir
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn the_maximum_is_charged_by_default_and_decides_the_exit_code() {
    let dir = scratch();
    let args = [
        "analyze",
        "set.toml",
        "--overheads",
        "profile.toml",
        "--json",
    ];
    let out = dir.kairos(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["schedulable"], true, "the ideal verdict stays");
    let o = &v["overheads"];
    assert_eq!(o["source"], "profile");
    assert_eq!(o["quantile"], "max");
    assert_eq!(o["charges"]["context_switch"], 10_000);
    assert_eq!(o["schedulable"], false);
    assert_eq!(o["tests"]["uni-edf-qpa"]["schedulable"], false);
    let rows = &o["inflation"][0];
    assert_eq!(rows["placement"], "uniprocessor");
    assert_eq!(rows["tasks"][0]["inflated_wcet"], 1_020_000);
    assert_eq!(rows["tasks"][1]["inflated_wcet"], 4_920_000);
}

#[test]
fn the_p99_charges_less_and_is_named_in_the_text() {
    let dir = scratch();
    let out = dir.kairos(&[
        "analyze",
        "set.toml",
        "--overheads",
        "profile.toml",
        "--overhead-quantile",
        "p99",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("with overheads"), "{text}");
    assert!(text.contains("a 1.000ms -> 1.010ms"), "{text}");
    assert!(
        text.contains("verdict with overheads (p99): schedulable"),
        "{text}"
    );
}

/// G-EDZL is charged two wake-ups more per period than the other global tests
/// (`kairos_analysis::overheads::edzl`, whose unit tests work the figures by hand): its own
/// inflation row sits beside theirs, with larger WCETs.
#[test]
fn g_edzl_has_its_own_inflation_beside_the_other_global_tests() {
    let dir = scratch();
    dir.write(
        "two-cores.toml",
        "cores = 2\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n\
         [[tasks]]\nname = \"b\"\nwcet = \"2ms\"\nperiod = \"10ms\"\n",
    );
    dir.write("release.toml", "[overheads]\nrelease = \"10us\"\n");
    let args = ["analyze", "two-cores.toml", "--tests", "gfb,gedzl"];
    let args = [&args[..], &["--overheads", "release.toml"]].concat();
    let out = dir.kairos(&[&args[..], &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = json(&out)["overheads"]["inflation"].clone();
    let wcets = |row: &Value| -> Vec<u64> {
        let tasks = row["tasks"].as_array().unwrap();
        tasks
            .iter()
            .map(|t| t["inflated_wcet"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
    assert_eq!(
        (&rows[0]["placement"], &rows[0]["test"]),
        (&"global".into(), &Value::Null)
    );
    assert_eq!(
        (&rows[1]["placement"], &rows[1]["test"]),
        (&"global".into(), &"gedzl".into())
    );
    let (global, edzl) = (wcets(&rows[0]), wcets(&rows[1]));
    assert!(
        global.iter().zip(&edzl).all(|(g, e)| g < e),
        "{global:?} {edzl:?}"
    );
    assert!(
        rows[1]["scale"].as_f64() < rows[0]["scale"].as_f64(),
        "{rows}"
    );
    let text = stdout(&dir.kairos(&args));
    assert!(text.contains("  global (gedzl) (a core keeps"), "{text}");
}

#[test]
fn a_workloads_own_overheads_are_charged_without_the_flag() {
    let dir = scratch();
    dir.write(
        "own.toml",
        format!("{SET}\n[overheads]\ncontext_switch = \"10us\"\n"),
    );
    let out = dir.kairos(&["analyze", "own.toml", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json(&out)["overheads"]["source"], "workload");
    // Without overheads anywhere, the analysis is the ideal one alone.
    let out = dir.kairos(&["analyze", "set.toml", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(json(&out).get("overheads").is_none());
}

#[test]
fn bad_profiles_and_quantiles_are_refused_by_name() {
    let dir = scratch();
    dir.write("broken.toml", "[overheads]\nipi = \"-3us\"\n");
    let out = dir.kairos(&["analyze", "set.toml", "--overheads", "broken.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("broken.toml:2"), "{}", stderr(&out));
    let out = dir.kairos(&["analyze", "set.toml", "--overhead-quantile", "p50"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected p99, p999 or max"),
        "{}",
        stderr(&out)
    );
}

/// p999 is charged where the profile has it, and refused, located, where it does not.
#[test]
fn p999_is_charged_from_profiles_that_have_it_and_refused_in_older_ones() {
    let dir = scratch();
    // 5 us at p99, 8 us at p99.9, 10 us at max: at 8 us per switch U = 1.016/2 + 4.916/10
    // = 0.9996 (schedulable).
    dir.write(
        "new.toml",
        "[overheads]\ncontext_switch = { min = \"1us\", p50 = \"2us\", p90 = \"3us\", p99 = \"5us\", p999 = \"8us\", max = \"10us\" }\n",
    );
    let quantile = ["--overhead-quantile", "p999", "--json"];
    let out = dir.kairos(
        &[
            &["analyze", "set.toml", "--overheads", "new.toml"][..],
            &quantile,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let o = &json(&out)["overheads"];
    assert_eq!(
        (
            o["quantile"].as_str(),
            o["charges"]["context_switch"].as_u64()
        ),
        (Some("p999"), Some(8_000))
    );
    // The older profile has no p999: its distribution is the located error, nothing runs.
    let out = dir.kairos(
        &[
            &["analyze", "set.toml", "--overheads", "profile.toml"][..],
            &quantile,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("profile.toml:3:")
            && err.contains("overheads.context_switch")
            && err.contains("no p999"),
        "{err}"
    );
}

#[test]
fn vm_interfaces_with_overheads_are_larger_and_written_by_interface() {
    let dir = scratch();
    let vm = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/vm/two-domains.toml");
    let out = dir.kairos(&["analyze", vm, "--overheads", "profile.toml", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    let ideal = v["interfaces"][0]["budget_ns"].as_u64().unwrap();
    let aware = &v["overheads"]["report"]["interfaces"][0];
    assert!(aware["budget_ns"].as_u64().unwrap() > ideal, "{aware}");
    // The written file holds the larger budgets, and analyses as schedulable as written.
    let args = [
        "interface",
        vm,
        "--overheads",
        "profile.toml",
        "--out",
        "vcpus.toml",
    ];
    let out = dir.kairos(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = dir.kairos(&["analyze", "vcpus.toml", "--json"]);
    let written = json(&out)["interfaces"][0]["budget_ns"].clone();
    assert_eq!(written, aware["budget_ns"]);
}
