//! What a missed job's own segments saw, printed under a `schedule` miss so that the reader
//! can weigh the evidence the attribution found too small: each segment's wall time, the work
//! its worker counted and the CPU time its thread had.

use crate::text::human_ns;
use kairos_rt::measure::{RunResult, SegmentRecord};

/// The segments a line names; a job preempted more often has the rest counted.
const NAMED_SEGMENTS: usize = 6;

/// One line for the segments of job `job` of task `task`, or `None` if it ran none.
pub(super) fn segments_line(r: &RunResult, task: usize, job: u64) -> Option<String> {
    let own: Vec<&SegmentRecord> = (r.segments.iter())
        .filter(|s| (s.task, s.job) == (task, job))
        .collect();
    if own.is_empty() {
        return None;
    }
    let deadline = (r.jobs.iter())
        .find(|j| (j.task, j.job) == (task, job))
        .map(|j| j.deadline);
    let mut parts: Vec<String> = (own.iter().take(NAMED_SEGMENTS))
        .map(|s| segment(s, r.cpus.get(s.cpu).copied().unwrap_or(s.cpu), deadline))
        .collect();
    if own.len() > NAMED_SEGMENTS {
        parts.push(format!("{} more", own.len() - NAMED_SEGMENTS));
    }
    Some(format!("    its segments: {}\n", parts.join(", ")))
}

/// `CPU c at START for WALL[ past its deadline] (work W, on the CPU C[, best effort])`, times
/// from the run's start; `cpu` is the CPU of the segment's core.
fn segment(s: &SegmentRecord, cpu: usize, deadline: Option<u64>) -> String {
    let wall = s.end.saturating_sub(s.start);
    let after = match deadline {
        Some(d) if s.end > d => " past its deadline",
        _ => "",
    };
    match s.worker_time {
        Some(t) => format!(
            "CPU {cpu} at {} for {}{after} (work {}, on the CPU {}{})",
            human_ns(s.start),
            human_ns(wall),
            human_ns(t.work.as_nanos()),
            human_ns(t.on_cpu.as_nanos()),
            if t.optional { ", best effort" } else { "" }
        ),
        None => format!(
            "CPU {cpu} at {} for {}{after}",
            human_ns(s.start),
            human_ns(wall)
        ),
    }
}
