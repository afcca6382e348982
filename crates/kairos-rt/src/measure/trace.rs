//! The trace of a real run, in the simulator's event vocabulary ([`kairos_trace::TraceEvent`]).

use super::{JobRecord, RunInputs, SegmentRecord};
use kairos_model::Instant;
use kairos_trace::{Trace, TraceEvent};

/// The simulator's event vocabulary, ordered by when each event happened (a segment when it
/// closes, a miss at the deadline).
pub(super) fn build_trace(
    inputs: &RunInputs,
    jobs: &[JobRecord],
    segments: &[SegmentRecord],
    end: u64,
) -> Trace {
    let at = Instant::from_nanos;
    let mut timed: Vec<(u64, u8, TraceEvent)> = Vec::new();
    for j in jobs {
        timed.push((
            j.release,
            0,
            TraceEvent::Release {
                task: j.task,
                job: j.job,
                at: at(j.release),
                deadline: at(j.deadline),
            },
        ));
        if let Some(c) = j.completion {
            timed.push((
                c,
                2,
                TraceEvent::Completion {
                    task: j.task,
                    job: j.job,
                    at: at(c),
                },
            ));
        }
        if j.missed(end) {
            timed.push((
                j.deadline,
                3,
                TraceEvent::DeadlineMiss {
                    task: j.task,
                    job: j.job,
                    at: at(j.deadline),
                },
            ));
        }
    }
    for s in segments {
        timed.push((
            s.end,
            1,
            TraceEvent::Segment {
                core: s.cpu,
                task: s.task,
                job: s.job,
                start: at(s.start),
                end: at(s.end),
            },
        ));
    }
    for e in &inputs.extra_events {
        timed.push((event_time(e), 1, e.clone()));
    }
    timed.sort_by_key(|(t, rank, _)| (*t, *rank));
    Trace {
        task_names: inputs.task_names.clone(),
        levels: inputs.levels.clone(),
        cores: inputs.cpus.iter().max().map_or(1, |m| m + 1),
        end: at(end),
        optional_deadlines: inputs.optional_deadlines.clone(),
        server_names: inputs.server_names.clone(),
        events: timed.into_iter().map(|(_, _, e)| e).collect(),
    }
}

fn event_time(event: &TraceEvent) -> u64 {
    match event {
        TraceEvent::Release { at, .. }
        | TraceEvent::Completion { at, .. }
        | TraceEvent::DeadlineMiss { at, .. }
        | TraceEvent::Abort { at, .. }
        | TraceEvent::Discard { at, .. }
        | TraceEvent::PartEnd { at, .. }
        | TraceEvent::ModeChange { at, .. }
        | TraceEvent::Replenish { at, .. }
        | TraceEvent::ServerExhausted { at, .. } => at.as_nanos(),
        TraceEvent::Segment { end, .. } | TraceEvent::ServerSegment { end, .. } => end.as_nanos(),
    }
}
