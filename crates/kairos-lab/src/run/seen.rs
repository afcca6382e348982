//! What a missed job's own segments saw, printed under a `schedule` miss so that the reader
//! can weigh the evidence the attribution found too small: each segment's start from the job's
//! release, its wall time, the work its worker counted and the CPU time its thread had.

use crate::text::human_ns;
use kairos_rt::measure::{JobRecord, RunResult, SegmentRecord};

/// The segments a line names: the last ones, where a wind-up or a late end shows; a job
/// preempted more often has the earlier ones counted.
const NAMED_SEGMENTS: usize = 6;

/// One line for the segments of job `job` of task `task`, or `None` if it ran none.
pub(super) fn segments_line(r: &RunResult, task: usize, job: u64) -> Option<String> {
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

/// `CPU c +OFFSET for WALL[ past its deadline] (work W, on the CPU C[, best effort])`, the
/// offset from the job's release; `cpu` is the CPU of the segment's core.
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
            "CPU {cpu} +{from} for {}{after} (work {}, on the CPU {}{})",
            human_ns(wall),
            human_ns(t.work.as_nanos()),
            human_ns(t.on_cpu.as_nanos()),
            if t.optional { ", best effort" } else { "" }
        ),
        None => format!("CPU {cpu} +{from} for {}{after}", human_ns(wall)),
    }
}
