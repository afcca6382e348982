//! The `schedule` misses of a run report, each with what it saw, so that the reader can weigh
//! the evidence the attribution found too small: the slack, the most of the host's recorded
//! time weighed against it, and the job's own segments (each one's start from the job's
//! release, its wall time, the work its worker counted and the CPU time its thread had).

use crate::text::human_ns;
use kairos_model::Duration;
use kairos_rt::attribution::{Cause, MissCause, SlackFrom};
use kairos_rt::measure::{JobRecord, RunResult, SegmentRecord};

/// How many schedule misses the report names.
const NAMED_MISSES: usize = 5;

/// The segments a line names: the last ones, where a wind-up or a late end shows; a job
/// preempted more often has the earlier ones counted.
const NAMED_SEGMENTS: usize = 6;

/// One line for the segments of job `job` of task `task`, or `None` if it ran none.
fn segments_line(r: &RunResult, task: usize, job: u64) -> Option<String> {
    let own: Vec<&SegmentRecord> = (r.segments.iter())
        .filter(|s| (s.task, s.job) == (task, job))
        .collect();
    let record = (r.jobs.iter()).find(|j| (j.task, j.job) == (task, job))?;
    if own.is_empty() {
        return None;
    }
    let earlier = own.len().saturating_sub(NAMED_SEGMENTS);
    let mut parts: Vec<String> = Vec::with_capacity(NAMED_SEGMENTS + 1);
    if earlier > 0 {
        parts.push(format!("{earlier} earlier"));
    }
    parts.extend(
        (own[earlier..].iter())
            .map(|s| segment(s, r.cpus.get(s.cpu).copied().unwrap_or(s.cpu), record)),
    );
    Some(format!(
        "    its segments, from its release at {}: {}\n",
        human_ns(record.release),
        parts.join(", ")
    ))
}

/// `CPU c +OFFSET for WALL[ past its deadline] (work W, on the CPU C[, its dispatcher D][, best
/// effort])`, the offset from the job's release; `cpu` is the CPU of the segment's core; `D` the
/// time the core's dispatcher took in the segment, which the rule credits to the run.
fn segment(s: &SegmentRecord, cpu: usize, job: &JobRecord) -> String {
    let wall = s.end.saturating_sub(s.start);
    let from = human_ns(s.start.saturating_sub(job.release));
    let after = if s.end > job.deadline {
        " past its deadline"
    } else {
        ""
    };
    match s.worker_time {
        Some(t) => format!(
            "CPU {cpu} +{from} for {}{after} (work {}, on the CPU {}{}{})",
            human_ns(wall),
            human_ns(t.work.as_nanos()),
            human_ns(t.on_cpu.as_nanos()),
            match t.dispatching.is_zero() {
                true => String::new(),
                false => format!(", its dispatcher {}", human_ns(t.dispatching.as_nanos())),
            },
            if t.optional { ", best effort" } else { "" }
        ),
        None => format!("CPU {cpu} +{from} for {}{after}", human_ns(wall)),
    }
}

/// The first schedule misses, each with how late it was, the slack, and the most of the
/// host's recorded time the attribution weighed against it ([`MissCause::evidence`]).
pub(super) fn schedule_misses(r: &RunResult) -> String {
    let misses: Vec<&MissCause> = (r.miss_causes.iter())
        .filter(|m| m.cause == Cause::Schedule)
        .collect();
    let mut out = String::new();
    for m in misses.iter().take(NAMED_MISSES) {
        let name = r.tasks.get(m.task).map_or("?", |t| t.task.as_str());
        let late = (r.jobs.iter())
            .find(|j| (j.task, j.job) == (m.task, m.job))
            .and_then(|j| j.completion.map(|c| c.saturating_sub(j.deadline)))
            .map_or("unfinished".into(), |ns| format!("{} late", human_ns(ns)));
        let why = match (m.slack, m.own_slack) {
            // The tables' rule weighs the work the job lacked at its stop, not these figures.
            (Some(slack), _) if r.misses_by_cause.slack_from == SlackFrom::Tables => format!(
                "slack {}, no stall or slowed core took as much",
                human_ns(slack.as_nanos())
            ),
            (Some(slack), Some(own)) if own != slack => format!(
                "slack {}, its backlog's {} (from {}); the host's recorded holes and slowing \
                 came to {} in its own time{}, {} in its backlog",
                human_ns(own.as_nanos()),
                human_ns(slack.as_nanos()),
                human_ns(m.backlog_from.as_nanos()),
                human_ns(m.evidence.as_nanos()),
                // The figure may be the work ahead's (`kairos_rt::attribution::ahead`).
                if r.core_order.is_some() {
                    " and the work ahead of it"
                } else {
                    ""
                },
                human_ns(m.backlog_evidence.as_nanos())
            ),
            (Some(slack), _) => format!(
                "slack {}, {}",
                human_ns(slack.as_nanos()),
                evidence(m.evidence.max(m.backlog_evidence))
            ),
            (None, _) if r.misses_by_cause.slack_from == SlackFrom::Simulation => {
                "no slack: the simulation misses it too, or its backlog needs more than its window"
                    .into()
            }
            (None, _) => "no slack: it, or its backlog, needs more than its window".into(),
        };
        out.push_str(&format!("  schedule: {name}#{} {late}; {why}\n", m.job));
        out.push_str(&segments_line(r, m.task, m.job).unwrap_or_default());
    }
    if misses.len() > NAMED_MISSES {
        out.push_str(&format!(
            "  schedule: {} more miss(es)\n",
            misses.len() - NAMED_MISSES
        ));
    }
    out
}

/// What the host's recorded holes and slowing came to, at most ([`MissCause::evidence`]).
fn evidence(took: Duration) -> String {
    match took.is_zero() {
        true => "the host recorded no hole or slowing there".into(),
        false => format!(
            "the host's recorded holes and slowing came to {}",
            human_ns(took.as_nanos())
        ),
    }
}
