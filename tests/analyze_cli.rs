//! `kairos analyze` (file and batch) end to end (`kairos gen`: gen_cli.rs; `kairos
//! experiment`: experiment_cli.rs), and its RMWP verdict on a file's optional deadline beside
//! `kairos simulate` of the same file.

mod common;

use common::{kairos_in as kairos, stdout, Scratch};

fn scratch() -> Scratch {
    Scratch::new("analyze")
}

#[test]
fn batch_keeps_input_order_reports_bad_lines_and_goes_on() {
    let dir = scratch();
    let good = r#"{"cores": 2, "tasks": [{"wcet": "1ms", "period": "4ms"}, {"wcet": "3ms", "period": "4ms", "deadline": "4ms"}]}"#;
    let overloaded = r#"{"cores": 1, "tasks": [{"wcet": "3ms", "period": "4ms"}, {"wcet": "3ms", "period": "4ms"}]}"#;
    let lines = [
        good,
        "not json",
        "",
        overloaded,
        r#"{"cores": 2, "tasks": [{"wcet": "5", "period": "4ms"}]}"#,
    ];
    let mut input = String::new();
    for _ in 0..300 {
        for line in lines {
            input.push_str(line);
            input.push('\n');
        }
    }
    std::fs::write(dir.join("sets.jsonl"), input).unwrap();
    let out = kairos(
        &[
            "analyze",
            "--batch",
            "sets.jsonl",
            "--tests",
            "partitioned-ffd-edf",
            "--jobs",
            "2",
        ],
        &dir,
    );
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1200, "blank lines produce no output");
    for (k, row) in rows.iter().enumerate() {
        let index = row["index"].as_u64().unwrap() as usize;
        let line = lines[index % lines.len()];
        assert_eq!(index / lines.len(), k / 4, "output follows input order");
        match line {
            l if l == good => assert_eq!(row["verdicts"]["partitioned-ffd-edf"], true),
            l if l == overloaded => assert_eq!(row["verdicts"]["partitioned-ffd-edf"], false),
            _ => assert!(row["error"].is_string(), "{row}"),
        }
    }
}

#[test]
fn analyze_file_exit_code_says_whether_some_test_showed_the_set_schedulable() {
    let dir = scratch();
    std::fs::write(
        dir.join("light.toml"),
        "cores = 2\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
    )
    .unwrap();
    let yes = kairos(
        &[
            "analyze",
            "light.toml",
            "--tests",
            "partitioned-ffd-edf,partitioned-ffd-fp",
        ],
        &dir,
    );
    assert_eq!(yes.status.code(), Some(0), "{}", stdout(&yes));
    std::fs::write(dir.join("heavy.toml"), "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3ms\"\nperiod = \"4ms\"\n[[tasks]]\nname = \"b\"\nwcet = \"2ms\"\nperiod = \"4ms\"\n").unwrap();
    let no = kairos(
        &["analyze", "heavy.toml", "--tests", "uni-edf-qpa", "--json"],
        &dir,
    );
    assert_eq!(no.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&no)).unwrap();
    assert_eq!(json["tests"]["uni-edf-qpa"]["schedulable"], false);
    assert_eq!(json["schedulable"], false);
    assert_eq!(json["file"], "heavy.toml");
    let unknown = kairos(&["analyze", "light.toml", "--tests", "nope"], &dir);
    assert_eq!(unknown.status.code(), Some(2));
}

/// The textbook one-core set: the default runs the exact uniprocessor tests only, says which
/// tests it left out and why, and exits 0 (the pessimistic global tests used to make it 1).
#[test]
fn one_core_defaults_to_the_uniprocessor_tests_and_exits_0() {
    let dir = scratch();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/uniprocessor-rm.toml");
    let out = kairos(&["analyze", file], &dir);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let tests: Vec<&str> = text
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("skipped") && !l.starts_with("verdict"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(tests, ["uni-fp-rta", "uni-edf-qpa"], "{text}");
    assert!(
        text.contains("skipped gfb, bak, bcl,") && text.contains("on one core the exact"),
        "{text}"
    );
    assert!(text.contains("verdict: schedulable (shown by uni-fp-rta, uni-edf-qpa)"));
}

/// On several cores the uniprocessor tests are left out; one schedulable partitioning is
/// enough for exit 0 even though every global test says no; JSON names failing tasks.
#[test]
fn many_cores_skip_uniprocessor_tests_and_json_names_failing_tasks() {
    let dir = scratch();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo.toml");
    let out = kairos(&["analyze", file, "--json"], &dir);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["schedulable"], true);
    assert_eq!(json["cores"], 4);
    let shown: Vec<&str> = json["shown_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(shown, ["partitioned-ffd-edf", "partitioned-ffd-fp"]);
    assert_eq!(json["tests"]["gfb"]["schedulable"], false);
    let bak = &json["tests"]["bak"];
    let index = bak["failing_task"].as_u64().unwrap() as usize;
    assert_eq!(bak["failing_task_name"], json["tasks"][index]);
    let skipped: Vec<&str> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["test"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["uni-fp-rta", "uni-edf-qpa"]);
}

#[test]
fn an_empty_test_list_is_refused() {
    let dir = scratch();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo.toml");
    for list in ["", " , "] {
        let out = kairos(&["analyze", file, "--tests", list], &dir);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("names no test"));
        assert!(out.stdout.is_empty());
    }
}

/// One core: `a` (C 1 ms, T 4 ms) above the imprecise `b` (T 9 ms, m 1 ms, w 1 ms) with the
/// optional deadline `od`.
fn imprecise_with_od(od: &str) -> String {
    format!(
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n\
         [[tasks]]\nname = \"b\"\nperiod = \"9ms\"\nmandatory = \"1ms\"\noptional = \"5ms\"\n\
         windup = \"1ms\"\noptional_deadline = \"{od}\"\n"
    )
}

/// b's wind-up alone takes 1 ms and one job of `a` may come first: R^w = 2 ms, so the latest
/// safe optional deadline is 9 - 2 = 7 ms. With 8 ms a wind-up released at 8 ms waits for `a`'s
/// job released then and ends at 10 ms, past 9: the analysis refuses what the simulation shows
/// missing, and accepts 7 ms, which the simulation of the hyper-period (36 ms) runs clean.
#[test]
fn rmwp_analysis_and_simulation_agree_on_a_given_optional_deadline() {
    let dir = scratch();
    for (od, safe) in [("8ms", false), ("7ms", true)] {
        std::fs::write(dir.join("w.toml"), imprecise_with_od(od)).unwrap();
        let text = kairos(&["analyze", "w.toml", "--tests", "rmwp"], &dir);
        assert_eq!(text.status.code(), Some(if safe { 0 } else { 1 }));
        let unsafe_line = "b: optional deadline 8.000ms is later than its safe bound 7.000ms";
        assert_eq!(
            stdout(&text).contains(unsafe_line),
            !safe,
            "{}",
            stdout(&text)
        );
        let json = kairos(&["analyze", "w.toml", "--tests", "rmwp", "--json"], &dir);
        let json: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
        let rmwp = &json["tests"]["rmwp"];
        assert_eq!(rmwp["schedulable"], safe);
        let used = if safe { 7_000_000 } else { 8_000_000 };
        assert_eq!(
            rmwp["optional_deadlines"],
            serde_json::json!([4_000_000, used])
        );
        let listed = match safe {
            true => serde_json::Value::Null,
            false => serde_json::json!([{"task": 1, "given": 8_000_000, "safe_bound": 7_000_000}]),
        };
        assert_eq!(rmwp["unsafe_optional_deadlines"], listed);
        let sim = kairos(
            &[
                "simulate",
                "w.toml",
                "--policy",
                "grmwp",
                "--duration",
                "36ms",
                "--json",
            ],
            &dir,
        );
        assert!(sim.status.success(), "{}", common::stderr(&sim));
        let sim: serde_json::Value = serde_json::from_str(&stdout(&sim)).unwrap();
        let misses = |task: usize| sim["tasks"][task]["deadline_misses"].as_u64().unwrap();
        assert_eq!((misses(0), misses(1)), (0, u64::from(!safe)), "OD {od}");
    }
}
