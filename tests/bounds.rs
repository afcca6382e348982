//! What a command records is bounded before it starts: the events of a trace are estimated
//! and, past `--max-events`, a Perfetto trace is refused and a Gantt chart of the whole run
//! drawn over its first part; and progress never reaches a pipe.

mod common;

use common::{stderr, Scratch};

/// One task released every millisecond: over 1s, jobs at 0, 1ms, ..., 1000ms, 1001 of them;
/// at four events a job (release, completion, two segments) the estimate is 4004 events.
const EVERY_MS: &str = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"200us\"\nperiod = \"1ms\"\n";

fn scratch() -> Scratch {
    let scratch = Scratch::new("bounds");
    scratch.write("w.toml", EVERY_MS);
    scratch
}

#[test]
fn a_perfetto_trace_past_the_cap_is_refused_with_the_estimate_and_the_flag() {
    let dir = scratch();
    let args = [
        "simulate",
        "w.toml",
        "--duration",
        "1s",
        "--trace",
        "t.json",
    ];
    let refused = dir.kairos(&[&args[..], &["--max-events", "4003"]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let said = stderr(&refused);
    assert!(
        said.contains("about 4004 events") && said.contains("--max-events"),
        "{said}"
    );
    assert!(
        !dir.join("t.json").exists(),
        "refused before anything was written"
    );
    let taken = dir.kairos(&[&args[..], &["--max-events", "4004"]].concat());
    assert_eq!(taken.status.code(), Some(0), "{}", stderr(&taken));
    assert!(dir.join("t.json").exists());
}

#[test]
fn a_gantt_past_the_cap_draws_the_first_part_with_a_warning() {
    let dir = scratch();
    let args = ["simulate", "w.toml", "--duration", "1s", "--gantt", "g.svg"];
    let out = dir.kairos(&[&args[..], &["--max-events", "400"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Half the cap, 200 of 4004 events: 1s x 200 / 4004 = 49.95ms, read as 49ms.
    let said = stderr(&out);
    assert!(
        said.contains("warning") && said.contains("first 49ms"),
        "{said}"
    );
    let svg = dir.read("g.svg");
    assert!(
        svg.contains("a job 48 ["),
        "jobs of the first part are drawn"
    );
    assert!(!svg.contains("a job 50 ["), "nothing after it is recorded");
}

#[test]
fn a_gantt_window_records_only_what_it_draws_whatever_the_run() {
    let dir = scratch();
    // 1000s is 4 million events; the window's 10ms are about 44.
    let args = [
        "simulate",
        "w.toml",
        "--duration",
        "1000s",
        "--gantt",
        "g.svg",
    ];
    let out = dir.kairos(
        &[
            &args[..],
            &["--gantt-window", "500s..500.01s", "--max-events", "100"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.read("g.svg").contains("a job 500005 ["));
}

/// An imprecise task (mandatory 2 ms, optional 4 ms, wind-up 1 ms, every 10 ms) for 100 s: its
/// parts end 20,000 times before a window at the end, which must not count against the cap,
/// and the window's first bar, begun before it, is still drawn as the optional part it is.
#[test]
fn a_late_window_of_imprecise_jobs_keeps_only_the_part_ends_it_draws() {
    let dir = scratch();
    dir.write(
        "parts.toml",
        "cores = 1\n[[tasks]]\nname = \"p\"\nperiod = \"10ms\"\nmandatory = \"2ms\"\n\
         optional = \"4ms\"\nwindup = \"1ms\"\n",
    );
    let args = [
        "simulate",
        "parts.toml",
        "--policy",
        "grmwp",
        "--duration",
        "100s",
    ];
    let window = ["--gantt", "g.svg", "--gantt-window", "99.993s..100s"];
    let out = dir.kairos(&[&args[..], &window, &["--max-events", "100"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = dir.read("g.svg");
    let bars: Vec<&str> = (svg.split("<title>").skip(1))
        .filter_map(|t| t.split("</title>").next())
        .filter(|t| t.starts_with("p job 9999 ["))
        .collect();
    assert!(
        bars.iter().any(|t| t.ends_with("optional part")),
        "the bar begun before the window is the optional part: {bars:?}"
    );
    assert!(bars.iter().any(|t| t.ends_with("windup part")), "{bars:?}");
}

#[test]
fn no_progress_reaches_standard_error_when_it_is_a_pipe() {
    let dir = scratch();
    for args in [
        &["simulate", "w.toml", "--duration", "20s"][..],
        &["check", "w.toml"],
        &["analyze", "w.toml"],
    ] {
        let out = dir.kairos(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn a_real_run_past_the_cap_is_refused_before_any_thread_starts() {
    // One task every microsecond for a minute: 60 million jobs, about 240 million events.
    let dir = Scratch::new("bounds-run");
    dir.write(
        "fine.toml",
        "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"100ns\"\nperiod = \"1us\"\n",
    );
    let out = dir.kairos(&["run", "fine.toml", "--duration", "60s"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("about 240000004 events") && said.contains("--max-events"),
        "{said}"
    );
}
