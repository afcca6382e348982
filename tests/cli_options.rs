//! Command-line behaviour a script relies on: JSON output where it wants it, refusals of input
//! that would otherwise give empty or wrong-format output, and the suggestions in messages.

mod common;

use common::{stderr, stdout, Scratch};
use std::process::{Command, Output};

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(output)).unwrap_or_else(|e| panic!("{e}: {}", stdout(output)))
}

#[test]
fn bench_oracles_refuses_a_folder_without_oracle_files() {
    let scratch = Scratch::new("cli-options");
    std::fs::create_dir_all(scratch.0.join("empty")).unwrap();
    let output = scratch.kairos(&["bench", "--oracles", "empty"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("holds no oracle file"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());
}

#[test]
fn bench_json_has_the_throughput_memory_and_simso_fields() {
    let scratch = Scratch::new("cli-options");
    let output = scratch.kairos(&["bench", "--json", "--repeat", "3", "--duration", "200ms"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["policy"], "gedf");
    assert_eq!(report["duration_ns"], 200_000_000);
    assert!(report["jobs"].as_u64().unwrap() > 0);
    assert!(report["jobs_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(report["peak_rss"].as_array().unwrap().len(), 2);
    assert!(report["simso"]["ran"].is_boolean());
    assert!(report["simso"]["note"].is_string());
}

#[test]
fn check_json_reports_the_verdict_and_located_diagnostics() {
    let scratch = Scratch::new("cli-options");
    scratch.write(
        "w.toml",
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"3ms\"\nperiod = \"2ms\"\n",
    );
    let output = scratch.kairos(&["check", "w.toml", "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let report = json(&output);
    assert_eq!(report["ok"], false);
    assert_eq!(report["errors"], 1);
    assert!(report["summary"].is_null());
    let first = &report["diagnostics"][0];
    assert_eq!(first["severity"], "warning");
    let error = &report["diagnostics"][1];
    assert_eq!((&error["line"], &error["column"]), (&4.into(), &8.into()));
    assert_eq!(error["path"], "tasks[0].wcet");

    let good = scratch.kairos(&["check", &repo("examples/demo.toml"), "--json"]);
    assert_eq!(good.status.code(), Some(0));
    let report = json(&good);
    assert_eq!(report["ok"], true);
    assert_eq!(report["summary"]["tasks"], 9);
    assert_eq!(report["summary"]["cores"], 4);
}

/// A violation's message is a whole sentence in JSON too: it ends with the instant.
#[test]
fn validate_tables_json_messages_are_whole_sentences() {
    let scratch = Scratch::new("cli-options");
    let system = repo("examples/mcdag/two-levels.toml");
    let synth = scratch.kairos(&["synth", &system, "--out", "t.json"]);
    assert_eq!(synth.status.code(), Some(0), "{}", stderr(&synth));
    let mut tables: serde_json::Value = serde_json::from_str(&scratch.read("t.json")).unwrap();
    // Start every LO interval 1 ms later than synthesized (keeping its end): jobs lose budget
    // and successors may start before their ancestors end.
    for interval in tables["tables"][0]["intervals"].as_array_mut().unwrap() {
        let start = interval["start"].as_u64().unwrap();
        let end = interval["end"].as_u64().unwrap();
        interval["start"] = (start + 1_000_000).min(end - 1).into();
    }
    scratch.write("bad.json", tables.to_string());
    let output = scratch.kairos(&["validate-tables", &system, "bad.json", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    let violations = report["violations"].as_array().unwrap();
    assert!(!violations.is_empty());
    let timed: Vec<_> = violations.iter().filter(|v| v["at"].is_u64()).collect();
    assert!(!timed.is_empty(), "{violations:?}");
    for v in timed {
        let message = v["message"].as_str().unwrap();
        let at = v["at"].as_u64().unwrap();
        assert!(
            message.ends_with(&format!(" at {}", human(at))),
            "{message} (at {at} ns)"
        );
    }
}

/// Instants as kairos prints them (`2ms`, `1.5ms`, `0ns`).
fn human(ns: u64) -> String {
    kairos_model::Instant::from_nanos(ns).to_string()
}

#[test]
fn gantt_refuses_a_file_that_is_not_svg() {
    let scratch = Scratch::new("cli-options");
    for command in [
        vec!["simulate", "DEMO", "--policy", "gedf", "--gantt", "x.png"],
        vec!["synth", "MC", "--gantt", "x.png"],
        vec!["run", "DEMO", "--gantt", "x.png"],
    ] {
        let args: Vec<String> = command
            .iter()
            .map(|a| match *a {
                "DEMO" => repo("examples/demo.toml"),
                "MC" => repo("examples/mcdag/two-levels.toml"),
                a => a.to_string(),
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = scratch.kairos(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("name the file .svg"),
            "{}",
            stderr(&output)
        );
        assert!(!scratch.0.join("x.png").exists());
    }
}

#[test]
fn a_negative_duration_is_a_duration_error() {
    let scratch = Scratch::new("cli-options");
    let output = scratch.kairos(&[
        "simulate",
        &repo("examples/demo.toml"),
        "--policy",
        "gedf",
        "--duration",
        "-5ms",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("duration \"-5ms\" is negative"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_misspelt_overrun_task_gets_a_suggestion() {
    let scratch = Scratch::new("cli-options");
    let output = scratch.kairos(&[
        "simulate",
        &repo("examples/mcdag/two-levels.toml"),
        "--overrun",
        "flight/sens@1",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no task \"flight/sens\": did you mean \"flight/sense\"?"),
        "{}",
        stderr(&output)
    );
}

/// flight's jobs come every 20ms: a 100ms run has jobs 0 to 4 (job 4 at 80ms); job 5 (at 100ms)
/// is never released, and naming it is an error rather than a silent no-op.
#[test]
fn an_overrun_of_a_job_after_the_end_of_the_run_is_refused() {
    let scratch = Scratch::new("cli-options");
    let file = repo("examples/mcdag/two-levels.toml");
    let simulate = |overrun: &str| {
        scratch.kairos(&[
            "simulate",
            &file,
            "--duration",
            "100ms",
            "--overrun",
            overrun,
        ])
    };
    let last = simulate("flight/sense@4");
    assert_eq!(last.status.code(), Some(0), "{}", stderr(&last));
    let after = simulate("flight/sense@5");
    assert_eq!(after.status.code(), Some(2));
    let expected = "--overrun flight/sense@5: job 5 of flight/sense is released at 100ms, \
                    not before the end of the run at 100ms: the run has only 5 job(s) of it, 0 to 4";
    assert!(stderr(&after).contains(expected), "{}", stderr(&after));
}

/// `run --cores` follows `simulate --cores`: checked before anything runs.
#[test]
fn run_takes_cores_like_simulate() {
    let scratch = Scratch::new("cli-options");
    let file = repo("examples/runtime-2cores.toml");
    for command in ["simulate", "run"] {
        let output = scratch.kairos(&[command, &file, "--policy", "pfp", "--cores", "1"]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert!(
            stderr(&output).contains("is bound to core 1 but --cores 1"),
            "{}",
            stderr(&output)
        );
    }
}

/// Without cyclictest on PATH the timer bench says so at once and measures nothing.
#[test]
fn bench_timer_checks_for_cyclictest_before_measuring() {
    let scratch = Scratch::new("cli-options");
    let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["bench", "timer", "--cyclictest", "--duration", "1s"])
        .current_dir(&scratch.0)
        .env("PATH", &scratch.0)
        .output()
        .expect("run kairos");
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("cyclictest is not installed"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());
}

/// The hyper-period overflow is mentioned only where it changes something: a simulation
/// without `--duration` (and `kairos check`, which lists every warning).
#[test]
fn the_hyper_period_warning_appears_only_where_it_matters() {
    let scratch = Scratch::new("cli-options");
    let file = repo("examples/simso-n20-m4-u3.toml");
    let quiet: [&[&str]; 2] = [
        &["analyze", &file],
        &["simulate", &file, "--policy", "gedf", "--duration", "100ms"],
    ];
    for args in quiet {
        let output = scratch.kairos(args);
        assert!(
            !stderr(&output).contains("hyper-period"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let unbounded = scratch.kairos(&["simulate", &file, "--policy", "gedf"]);
    assert!(stderr(&unbounded)
        .contains("the hyper-period overflows 64-bit nanoseconds; simulating the first 10s"));
    let check = scratch.kairos(&["check", &file]);
    assert!(stdout(&check).contains("warning: tasks: the hyper-period"));
}

/// `--gantt-by task` draws a row per task with release and deadline arrows; `synth` takes
/// `--gantt-window` and `--gantt-by` like `simulate`.
#[test]
fn gantt_rows_by_task_and_synth_windows() {
    let scratch = Scratch::new("cli-options");
    let demo = repo("examples/demo.toml");
    let args = [
        "simulate",
        &demo,
        "--policy",
        "gfp",
        "--gantt",
        "t.svg",
        "--gantt-by",
        "task",
    ];
    assert_eq!(scratch.kairos(&args).status.code(), Some(0));
    let svg = scratch.read("t.svg");
    assert!(svg.contains("class=\"release\"") && svg.contains("class=\"deadline\""));
    assert_eq!(svg.matches("class=\"row\"").count(), 9, "one row per task");
    let mc = repo("examples/mcdag/two-levels.toml");
    let whole = scratch.kairos(&["synth", &mc, "--gantt", "all.svg"]);
    let part = scratch.kairos(&[
        "synth",
        &mc,
        "--gantt",
        "part.svg",
        "--gantt-window",
        "0ms..10ms",
    ]);
    assert_eq!(
        (whole.status.code(), part.status.code()),
        (Some(0), Some(0))
    );
    let bars = |name: &str| scratch.read(name).matches("class=\"job\"").count();
    assert!(
        bars("part.svg") < bars("all.svg"),
        "the window drops later intervals"
    );
    let bad = scratch.kairos(&["synth", &mc, "--gantt-window", "0ms..10ms"]);
    assert_eq!(bad.status.code(), Some(2), "--gantt-window needs --gantt");
}

/// The table runtime's benches speak JSON too: one object per point with its measures in ns.
#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn runtime_benches_print_json() {
    let scratch = Scratch::new("cli-options");
    let args = [
        "bench",
        "mode-change",
        "--tasks",
        "4",
        "--periods",
        "5",
        "--unit",
        "1ms",
    ];
    let output = scratch.kairos(&[&args[..], &["--out-dir", "kb", "--json"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["bench"], "mode-change");
    let point = &report["points"][0];
    assert_eq!(point["point"], "4");
    assert_eq!(point["mode_changes"], 5);
    let total = &point["measures"]["mode_change.total"];
    assert_eq!(total["count"], 5);
    assert!(total["min"].as_u64().unwrap() <= total["max"].as_u64().unwrap());
    assert_eq!(report["files"].as_array().unwrap().len(), 2);
    assert!(scratch.0.join("kb/mode-change.csv").exists());
}

/// `bench synth` times the same synthesis `synth` runs: same grid, same intervals; a system
/// without tables is timed up to its verdict, and a file the checker refuses is bad input.
#[test]
fn bench_synth_times_the_synthesis_synth_reports() {
    let scratch = Scratch::new("cli-options");
    let tables = repo("examples/mcdag/xml/test-6-8.xml");
    let no_tables = repo("examples/mcdag/xml/test-6-0.xml");
    let args = ["--cores", "8", "--json"];
    let synth = scratch.kairos(&[&["synth", tables.as_str()][..], &args].concat());
    assert_eq!(synth.status.code(), Some(0), "{}", stderr(&synth));
    let synth = json(&synth);
    let bench = ["bench", "synth", &tables, &no_tables, "--repeat", "3"];
    let output = scratch.kairos(&[&bench[..], &args].concat());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = json(&output);
    let (with, without) = (&rows[0], &rows[1]);
    assert_eq!(with["schedulable"], true);
    assert_eq!(
        with["slots"],
        synth["hyperperiod_ns"].as_u64().unwrap() / 1_000_000
    );
    assert_eq!(with["intervals"], synth["quality"]["total"]["intervals"]);
    assert_eq!(with["jobs"], synth["quality"]["total"]["jobs"]);
    assert_eq!(with["repeat"], 3);
    for row in [with, without] {
        assert!(row["first_ms"].as_f64().unwrap() > 0.0);
        let (min, median) = (row["warm_min_ms"].as_f64(), row["warm_median_ms"].as_f64());
        assert!(min.unwrap() > 0.0 && min <= median, "{row}");
    }
    assert_eq!(without["schedulable"], false);
    assert_eq!(without["intervals"], 0);
    assert_eq!(without["slots"], 2431);
    let refused = repo("examples/mcdag/xml/test-6-6.xml");
    let output = scratch.kairos(&["bench", "synth", &refused]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
}
