//! What a kernel-dispatched run (`kairos_rt::periodic`) shows of the kernel's own costs, read
//! from its job records and segments alone. The kernel schedules the task threads, so kairos
//! cannot time the kernel's decisions from inside it; but a job's first instruction and its
//! last are stamped exactly (after its thread's wake-up, before its sleep), and a preempted
//! job's time off its CPU is exact too (wall time less the thread's CPU time across the busy
//! chunk that held the preemption), though where in that chunk it began is known only to a
//! chunk (`kairos_rt::calibrate::CHUNK_US`). So only quantities built from exact stamps are
//! sampled:
//! - **a release onto a free CPU**: the job's first instruction less its release, when no
//!   other job of the run held its CPU meanwhile (the timer's lateness, the wake-up, the
//!   switch in);
//! - **a preemption's round trip**: the preempted job's time off its CPU less the one whole
//!   job that ran there meanwhile (the switch in, the preempting job's sleep and the switch
//!   back; the release's interrupt and wake-up, and the kernel's decision taken on their way
//!   out, are charged by this kernel to the thread they interrupt, so they are not in it);
//! - **a hand-over**: a job that waited for its CPU starts after the job before it there
//!   completed (the kernel's decision and one switch), split by whether its thread's last job
//!   ran on that CPU or came from another one (a migration).

use kairos_rt::measure::{JobRecord, SegmentRecord};
use std::collections::HashMap;

/// Samples of the kernel's costs, ns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct KernelSamples {
    pub release_latency: Vec<u64>,
    pub preemption: Vec<u64>,
    pub hand_over: Vec<u64>,
    pub moved_hand_over: Vec<u64>,
}

type JobKey = (usize, u64);

/// How precisely the runtime stamps what the samples are read from, ns.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resolution {
    /// How early, at most, a segment that follows a preemption is stamped against its true
    /// start.
    pub chunk: u64,
    /// How far apart a job's start stamp and its first segment's start may be.
    pub start: u64,
}

/// The run's segments by CPU and by job, each in time order, and its jobs by key.
struct Index<'r> {
    by_cpu: HashMap<usize, Vec<&'r SegmentRecord>>,
    by_job: HashMap<JobKey, Vec<&'r SegmentRecord>>,
    jobs: HashMap<JobKey, &'r JobRecord>,
    resolution: Resolution,
}

impl<'r> Index<'r> {
    fn new(jobs: &'r [JobRecord], segments: &'r [SegmentRecord], resolution: Resolution) -> Self {
        let mut by_cpu: HashMap<usize, Vec<&SegmentRecord>> = HashMap::new();
        let mut by_job: HashMap<JobKey, Vec<&SegmentRecord>> = HashMap::new();
        for s in segments {
            by_cpu.entry(s.cpu).or_default().push(s);
            by_job.entry((s.task, s.job)).or_default().push(s);
        }
        by_cpu.values_mut().for_each(|v| v.sort_by_key(|s| s.start));
        by_job.values_mut().for_each(|v| v.sort_by_key(|s| s.start));
        let jobs = jobs.iter().map(|j| ((j.task, j.job), j)).collect();
        Index {
            by_cpu,
            by_job,
            jobs,
            resolution,
        }
    }

    /// Whether `s` is the last segment of a completed job: its end is that job's last stamp.
    fn ends_its_job(&self, s: &SegmentRecord) -> bool {
        let key = (s.task, s.job);
        let completed = self.jobs.get(&key).is_some_and(|j| j.completion.is_some());
        completed
            && self.by_job[&key]
                .last()
                .is_some_and(|l| std::ptr::eq(*l, s))
    }

    /// Whether `s` is the only segment of a completed job, begun with its first instruction (a
    /// job preempted before its first sample loses its first segment, and the one left begins
    /// later). Both its ends are then exact stamps.
    fn is_whole_job(&self, s: &SegmentRecord) -> bool {
        let key = (s.task, s.job);
        let started = self.jobs.get(&key).and_then(|j| j.start);
        let from_its_start = started.is_some_and(|at| s.start <= at + self.resolution.start);
        from_its_start && self.ends_its_job(s) && self.by_job[&key].len() == 1
    }

    /// The last segment on `cpu` that begins before `at`, of another job than `key`.
    fn before(&self, cpu: usize, at: u64, key: JobKey) -> Option<&'r SegmentRecord> {
        let on = self.by_cpu.get(&cpu)?;
        let upto = on.partition_point(|s| s.start < at);
        (on[..upto].iter().rev())
            .find(|s| (s.task, s.job) != key)
            .copied()
    }

    /// The CPU of the last segment of the job of `task` before `job`, if it ran.
    fn previous_cpu(&self, task: usize, job: u64) -> Option<usize> {
        let previous = self.by_job.get(&(task, job.checked_sub(1)?))?;
        previous.last().map(|s| s.cpu)
    }
}

/// The samples of a kernel-dispatched run, whose stamps have `resolution`.
pub(super) fn kernel_samples(
    jobs: &[JobRecord],
    segments: &[SegmentRecord],
    resolution: Resolution,
) -> KernelSamples {
    let index = Index::new(jobs, segments, resolution);
    let mut out = KernelSamples::default();
    for job in jobs {
        let (Some(start), Some(cpu)) = (job.start, job.cpu) else {
            continue;
        };
        let key = (job.task, job.job);
        match index.before(cpu, start, key) {
            // Its CPU was free from its release to its start: nothing ran there before, or the
            // job before ended there by then (an exact stamp; a segment that a preemption or a
            // migration ended is stamped up to a chunk early, and tells nothing).
            None => out.release_latency.push(start.saturating_sub(job.release)),
            Some(s) if index.ends_its_job(s) && s.end <= job.release => {
                out.release_latency.push(start.saturating_sub(job.release))
            }
            // It waited for another task's job there (its own task's earlier job is a backlog
            // worked off without a switch).
            Some(s) if index.ends_its_job(s) && s.end <= start && s.task != job.task => {
                match index.previous_cpu(job.task, job.job) {
                    Some(last) if last == cpu => out.hand_over.push(start - s.end),
                    Some(_) => out.moved_hand_over.push(start - s.end),
                    None => {}
                }
            }
            Some(_) => {}
        }
        if let Some(own) = index.by_job.get(&key) {
            preemptions(&index, own, &mut out.preemption);
        }
    }
    out
}

/// The round trip of each preemption of one job's consecutive segments `own` on one CPU, where
/// exactly one other segment, a whole job, ran in between; a chunk widens the gap's end by how
/// early the resumed segment may be stamped, and the job in between ends by the resumed
/// segment's end (it ran before the resumption, which comes before that end).
fn preemptions(index: &Index, own: &[&SegmentRecord], out: &mut Vec<u64>) {
    for pair in own.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.cpu != b.cpu || b.start < a.end {
            continue;
        }
        let on = &index.by_cpu[&a.cpu];
        let until = b.start + index.resolution.chunk;
        // The segments after `a` that begin before `until` (a CPU runs one at a time; only a
        // resumed segment's start may be stamped up to a chunk early).
        let upto = on.partition_point(|s| s.start < until);
        let mut inside = (on[..upto].iter().rev())
            .take_while(|s| s.end > a.end)
            .filter(|s| (s.task, s.job) != (a.task, a.job));
        let (Some(other), None) = (inside.next(), inside.next()) else {
            continue;
        };
        let off = b.start - a.end;
        let ran = other.end - other.start;
        let within = other.start >= a.end && other.end <= until.min(b.end);
        if within && index.is_whole_job(other) && off >= ran {
            out.push(off - ran);
        }
    }
}

#[cfg(test)]
mod tests;
