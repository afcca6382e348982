//! Export a [`Trace`] as Chrome trace-event JSON, the format <https://ui.perfetto.dev> (and the
//! older `chrome://tracing`) opens: in Perfetto choose *Open trace file* and pick the `.json`.
//!
//! The output is `{"traceEvents": [...], "displayTimeUnit": "ns"}` with one process ("kairos",
//! pid 1) holding one thread track per core (tid = core + 1, named "core N") and an "events"
//! track (tid 0). Every execution segment is a complete event (`"ph": "X"`) named after its task;
//! releases, deadline misses and aborts are instant events (`"ph": "i"`). Mixed-criticality runs
//! (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6) add discards (process-wide instants) and mode
//! changes named "mode LO -> HI" (global instants, a line across every track). Times are
//! microseconds as floats (`ns / 1000.0`), so nanoseconds survive.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};

use kairos_model::Instant;
use serde::Serialize;
use serde_json::Value;

use crate::{PartOutcome, Trace, TraceEvent};

const PID: u32 = 1;
/// The track that holds releases, deadline misses and aborts.
const EVENTS_TID: usize = 0;

/// One entry of `traceEvents`.
#[derive(Serialize)]
struct ChromeEvent<'a> {
    name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    /// Instant scope: "p" (whole process) or "t" (its own track).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    pid: u32,
    tid: usize,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Args<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Args<'a> {
    Name { name: Cow<'a, str> },
    SortIndex { sort_index: usize },
    Job { task: Cow<'a, str>, job: u64 },
}

/// The whole trace as one JSON value (convenient for small traces and tests).
pub fn to_chrome_json(trace: &Trace) -> Value {
    let events: Vec<Value> = chrome_events(trace)
        .map(|event| serde_json::to_value(event).expect("trace events always serialize"))
        .collect();
    serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ns" })
}

/// Writes the same JSON as [`to_chrome_json`], one event at a time, so memory stays flat for
/// large traces. The writer is buffered internally.
pub fn write_chrome_trace(trace: &Trace, w: impl Write) -> io::Result<()> {
    let mut w = BufWriter::new(w);
    w.write_all(b"{\"traceEvents\":[\n")?;
    for (index, event) in chrome_events(trace).enumerate() {
        if index > 0 {
            w.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut w, &event)?;
    }
    w.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")?;
    w.flush()
}

/// Metadata (process and track names, track order) followed by the trace's events.
fn chrome_events(trace: &Trace) -> impl Iterator<Item = ChromeEvent<'_>> {
    let process = metadata(
        "process_name",
        EVENTS_TID,
        Args::Name {
            name: "kairos".into(),
        },
    );
    let tracks = std::iter::once((EVENTS_TID, Cow::Borrowed("events")))
        .chain((0..trace.cores).map(|core| (core_tid(core), format!("core {core}").into())))
        .flat_map(|(tid, name)| track_metadata(tid, name));
    let recorded = trace
        .events
        .iter()
        .filter_map(|event| recorded_event(trace, event));
    std::iter::once(process).chain(tracks).chain(recorded)
}

fn track_metadata(tid: usize, name: Cow<'static, str>) -> [ChromeEvent<'static>; 2] {
    [
        metadata("thread_name", tid, Args::Name { name }),
        metadata(
            "thread_sort_index",
            tid,
            Args::SortIndex { sort_index: tid },
        ),
    ]
}

fn metadata<'a>(name: &'static str, tid: usize, args: Args<'a>) -> ChromeEvent<'a> {
    ChromeEvent {
        name: name.into(),
        cat: None,
        ph: "M",
        s: None,
        pid: PID,
        tid,
        ts: 0.0,
        dur: None,
        args: Some(args),
    }
}

/// How one kind of instant event is named, filed and scoped ("t": its track, "p": the process).
struct InstantKind {
    prefix: &'static str,
    category: &'static str,
    scope: &'static str,
}

const RELEASE: InstantKind = InstantKind {
    prefix: "release ",
    category: "release",
    scope: "t",
};
const MISS: InstantKind = InstantKind {
    prefix: "deadline miss: ",
    category: "miss",
    scope: "p",
};
const ABORT: InstantKind = InstantKind {
    prefix: "abort: ",
    category: "miss",
    scope: "p",
};
const DISCARD: InstantKind = InstantKind {
    prefix: "discard: ",
    category: "mode",
    scope: "p",
};
const CUT: InstantKind = InstantKind {
    prefix: "optional cut: ",
    category: "part",
    scope: "t",
};
const SKIP: InstantKind = InstantKind {
    prefix: "optional skipped: ",
    category: "part",
    scope: "t",
};
const MODE_CHANGE: InstantKind = InstantKind {
    prefix: "",
    category: "mode",
    scope: "g",
};

/// The Chrome event for one trace event; completions have none (a segment's end shows them).
fn recorded_event<'a>(trace: &'a Trace, event: &TraceEvent) -> Option<ChromeEvent<'a>> {
    let (kind, task, job, at) = match *event {
        TraceEvent::Segment {
            core,
            task,
            job,
            start,
            end,
        } => {
            return Some(segment(task_name(trace, task), core, job, start, end));
        }
        TraceEvent::Release { task, job, at, .. } => (RELEASE, task, job, at),
        TraceEvent::DeadlineMiss { task, job, at } => (MISS, task, job, at),
        TraceEvent::Abort { task, job, at } => (ABORT, task, job, at),
        TraceEvent::Discard { task, job, at } => (DISCARD, task, job, at),
        TraceEvent::ModeChange { at, from, to } => {
            let name = format!(
                "mode {} -> {}",
                trace.level_name(from),
                trace.level_name(to)
            );
            return Some(instant(name, &MODE_CHANGE, at));
        }
        TraceEvent::PartEnd {
            task,
            job,
            at,
            outcome,
            ..
        } => match outcome {
            PartOutcome::Cut => (CUT, task, job, at),
            PartOutcome::Skipped => (SKIP, task, job, at),
            // A segment's end shows it.
            PartOutcome::Completed => return None,
        },
        TraceEvent::Completion { .. } => return None,
    };
    let name = format!("{}{}#{job}", kind.prefix, task_name(trace, task));
    Some(instant(name, &kind, at))
}

fn segment(
    name: Cow<'_, str>,
    core: usize,
    job: u64,
    start: Instant,
    end: Instant,
) -> ChromeEvent<'_> {
    ChromeEvent {
        name: name.clone(),
        cat: Some("job"),
        ph: "X",
        s: None,
        pid: PID,
        tid: core_tid(core),
        ts: micros(start.as_nanos()),
        dur: Some(micros(end.saturating_since(start).as_nanos())),
        args: Some(Args::Job { task: name, job }),
    }
}

fn instant(name: String, kind: &InstantKind, at: Instant) -> ChromeEvent<'static> {
    ChromeEvent {
        name: name.into(),
        cat: Some(kind.category),
        ph: "i",
        s: Some(kind.scope),
        pid: PID,
        tid: EVENTS_TID,
        ts: micros(at.as_nanos()),
        dur: None,
        args: None,
    }
}

fn core_tid(core: usize) -> usize {
    core + 1
}

/// Nanoseconds as the format's float microseconds.
fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn task_name(trace: &Trace, task: usize) -> Cow<'_, str> {
    trace
        .task_names
        .get(task)
        .map_or_else(|| format!("task {task}").into(), |name| name.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_trace() -> Trace {
        let at = Instant::from_nanos;
        Trace {
            levels: Vec::new(),
            task_names: vec!["ctrl".into(), "log".into()],
            cores: 2,
            end: at(4_000_000),
            events: vec![
                TraceEvent::Release {
                    task: 0,
                    job: 0,
                    at: at(0),
                    deadline: at(2_000_000),
                },
                TraceEvent::Segment {
                    core: 0,
                    task: 0,
                    job: 0,
                    start: at(1_500_000),
                    end: at(2_000_000),
                },
                TraceEvent::Segment {
                    core: 1,
                    task: 1,
                    job: 3,
                    start: at(1),
                    end: at(1_000_002),
                },
                TraceEvent::Completion {
                    task: 1,
                    job: 3,
                    at: at(1_000_002),
                },
                TraceEvent::DeadlineMiss {
                    task: 0,
                    job: 0,
                    at: at(2_000_000),
                },
                TraceEvent::Abort {
                    task: 1,
                    job: 4,
                    at: at(3_000_000),
                },
            ],
        }
    }

    fn events_with_phase(json: &Value, phase: &str) -> Vec<Value> {
        let events = json["traceEvents"]
            .as_array()
            .expect("traceEvents is an array");
        events
            .iter()
            .filter(|e| e["ph"] == phase)
            .cloned()
            .collect()
    }

    #[test]
    fn segments_become_complete_events_in_microseconds() {
        let json = to_chrome_json(&sample_trace());
        assert_eq!(json["displayTimeUnit"], "ns");
        let complete = events_with_phase(&json, "X");
        assert_eq!(complete.len(), 2);
        let first = &complete[0];
        assert_eq!(
            (first["name"].as_str(), first["cat"].as_str()),
            (Some("ctrl"), Some("job"))
        );
        assert_eq!(
            (first["pid"].as_u64(), first["tid"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(
            (first["ts"].as_f64(), first["dur"].as_f64()),
            (Some(1500.0), Some(500.0))
        );
        assert_eq!(
            first["args"],
            serde_json::json!({ "task": "ctrl", "job": 0 })
        );
        let second = &complete[1];
        assert_eq!(second["tid"].as_u64(), Some(2));
        assert_eq!(
            (second["ts"].as_f64(), second["dur"].as_f64()),
            (Some(0.001), Some(1000.001))
        );
    }

    #[test]
    fn every_core_gets_a_named_ordered_track() {
        let json = to_chrome_json(&sample_trace());
        let metadata = events_with_phase(&json, "M");
        let find = |name: &str, tid: u64| {
            metadata
                .iter()
                .find(|e| e["name"] == name && e["tid"].as_u64() == Some(tid))
                .cloned()
        };
        assert_eq!(
            find("process_name", 0).expect("process name")["args"]["name"],
            "kairos"
        );
        assert_eq!(
            find("thread_name", 0).expect("events track")["args"]["name"],
            "events"
        );
        for core in 0..2u64 {
            let tid = core + 1;
            let name = find("thread_name", tid).expect("core track name");
            assert_eq!(name["args"]["name"], format!("core {core}"));
            let order = find("thread_sort_index", tid).expect("core track order");
            assert_eq!(order["args"]["sort_index"].as_u64(), Some(tid));
        }
        assert_eq!(metadata.len(), 1 + 2 * 3);
    }

    #[test]
    fn misses_aborts_and_releases_are_instants_on_the_events_track() {
        let json = to_chrome_json(&sample_trace());
        let instants = events_with_phase(&json, "i");
        let names: Vec<&str> = instants.iter().filter_map(|e| e["name"].as_str()).collect();
        assert_eq!(
            names,
            ["release ctrl#0", "deadline miss: ctrl#0", "abort: log#4"]
        );
        assert!(instants.iter().all(|e| e["tid"].as_u64() == Some(0)));
        assert_eq!(
            (instants[1]["s"].as_str(), instants[1]["ts"].as_f64()),
            (Some("p"), Some(2000.0))
        );
        assert_eq!(
            (instants[2]["s"].as_str(), instants[2]["ts"].as_f64()),
            (Some("p"), Some(3000.0))
        );
    }

    #[test]
    fn streamed_output_parses_to_the_same_json() {
        let trace = sample_trace();
        let mut bytes = Vec::new();
        write_chrome_trace(&trace, &mut bytes).expect("writing to a Vec succeeds");
        let parsed: Value = serde_json::from_slice(&bytes).expect("output is valid JSON");
        assert_eq!(parsed, to_chrome_json(&trace));
    }

    #[test]
    fn empty_trace_has_only_process_and_events_track_metadata() {
        let json = to_chrome_json(&Trace::default());
        assert_eq!(json["traceEvents"].as_array().map(Vec::len), Some(3));
    }

    #[test]
    fn mode_changes_are_global_instants_named_after_the_levels() {
        let mut trace = sample_trace();
        trace.levels = vec!["LO".into(), "HI".into()];
        trace.events = vec![
            TraceEvent::ModeChange {
                at: Instant::from_nanos(1_000),
                from: 0,
                to: 1,
            },
            TraceEvent::Discard {
                task: 1,
                job: 2,
                at: Instant::from_nanos(1_000),
            },
        ];
        let instants = events_with_phase(&to_chrome_json(&trace), "i");
        let fields: Vec<(&str, &str, f64)> = instants
            .iter()
            .filter_map(|e| Some((e["name"].as_str()?, e["s"].as_str()?, e["ts"].as_f64()?)))
            .collect();
        assert_eq!(
            fields,
            [("mode LO -> HI", "g", 1.0), ("discard: log#2", "p", 1.0)]
        );
    }
}
