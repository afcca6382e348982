//! Export a [`Trace`] as Chrome trace-event JSON, the format <https://ui.perfetto.dev> (and the
//! older `chrome://tracing`) opens: in Perfetto choose *Open trace file* and pick the `.json`.
//!
//! The output is `{"traceEvents": [...], "displayTimeUnit": "ns"}` with one process ("kairos",
//! pid 1) holding one thread track per core (tid = core + 1, named "core N") and an "events"
//! track (tid 0). Every execution segment is a complete event (`"ph": "X"`) named after its task;
//! releases, deadline misses and aborts are instant events (`"ph": "i"`), and so are, for
//! imprecise jobs run by parts, optional deadlines, cuts and skips. Mixed-criticality runs
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
    let recorded = trace.events.iter().flat_map(|event| {
        [
            recorded_event(trace, event),
            optional_deadline(trace, event),
        ]
        .into_iter()
        .flatten()
    });
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
const OPTIONAL_DEADLINE: InstantKind = InstantKind {
    prefix: "optional deadline ",
    category: "part",
    scope: "t",
};
const REPLENISH: InstantKind = InstantKind {
    prefix: "replenish ",
    category: "server",
    scope: "t",
};
const SERVER_EXHAUSTED: InstantKind = InstantKind {
    prefix: "budget exhausted: ",
    category: "server",
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
        TraceEvent::ServerSegment {
            core,
            server,
            start,
            end,
        } => return Some(server_segment(trace, core, server, start, end)),
        TraceEvent::Replenish { server, at } => {
            let name = format!("{}{}", REPLENISH.prefix, server_name(trace, server));
            return Some(instant(name, &REPLENISH, at));
        }
        TraceEvent::ServerExhausted { server, at } => {
            let name = format!("{}{}", SERVER_EXHAUSTED.prefix, server_name(trace, server));
            return Some(instant(name, &SERVER_EXHAUSTED, at));
        }
    };
    let name = format!("{}{}#{job}", kind.prefix, task_name(trace, task));
    Some(instant(name, &kind, at))
}

/// The optional deadline of a released job whose task has one ([`Trace::optional_deadlines`]).
fn optional_deadline<'a>(trace: &'a Trace, event: &TraceEvent) -> Option<ChromeEvent<'a>> {
    let TraceEvent::Release { task, job, at, .. } = *event else {
        return None;
    };
    let od = (*trace.optional_deadlines.get(task)?)?;
    let name = format!(
        "{}{}#{job}",
        OPTIONAL_DEADLINE.prefix,
        task_name(trace, task)
    );
    Some(instant(name, &OPTIONAL_DEADLINE, at + od))
}

fn segment(
    name: Cow<'_, str>,
    core: usize,
    job: u64,
    start: Instant,
    end: Instant,
) -> ChromeEvent<'_> {
    let args = Args::Job {
        task: name.clone(),
        job,
    };
    slice(name, "job", core, (start, end), Some(args))
}

/// A server's time on a core: the slices of the jobs it ran nest inside it on the core's track
/// (the engine splits a job's segment where its core's server changes).
fn server_segment(
    trace: &Trace,
    core: usize,
    server: usize,
    start: Instant,
    end: Instant,
) -> ChromeEvent<'_> {
    slice(
        server_name(trace, server),
        "server",
        core,
        (start, end),
        None,
    )
}

/// A complete ("X") event on `core`'s track over `[start, end)`.
fn slice<'a>(
    name: Cow<'a, str>,
    category: &'static str,
    core: usize,
    (start, end): (Instant, Instant),
    args: Option<Args<'a>>,
) -> ChromeEvent<'a> {
    ChromeEvent {
        name,
        cat: Some(category),
        ph: "X",
        s: None,
        pid: PID,
        tid: core_tid(core),
        ts: micros(start.as_nanos()),
        dur: Some(micros(end.saturating_since(start).as_nanos())),
        args,
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

fn server_name(trace: &Trace, server: usize) -> Cow<'_, str> {
    (trace.server_names.get(server))
        .map_or_else(|| format!("server {server}").into(), |name| name.into())
}

#[cfg(test)]
mod tests;
