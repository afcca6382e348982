//! Per-job and per-core invariants: releases, completions, deadlines, at most one job per core at a time.

use super::*;

/// Per-job checks: (a) a job never runs on two cores at once, (c) executed time matches the
/// work, (d) it never runs before its release or after its completion/abort, and the deadline
/// miss / abort events follow their definitions.
pub(crate) fn check_jobs(s: &Scenario, jobs: &BTreeMap<JobId, JobRecord>, end: Instant) {
    let w = &s.workload;
    let c = &s.config;
    let o = &c.overheads;
    for (&(task, job), r) in jobs {
        let t = &w.tasks[task];
        let release = r.release.unwrap();
        let deadline = r.deadline.unwrap();
        let ctx = format!("job {task}#{job} {r:?}");
        assert_eq!(
            deadline,
            release + t.deadline,
            "{ctx}: deadline = release + D"
        );
        for (k, seg) in r.segments.iter().enumerate() {
            assert!(seg.core < w.cores, "{ctx}: core out of range");
            assert!(seg.start < seg.end, "{ctx}: empty segment");
            assert!(seg.start >= release, "{ctx}: runs before its release");
            assert!(seg.end <= end, "{ctx}: runs past the end of the run");
            if let Some(next) = r.segments.get(k + 1) {
                assert!(
                    seg.end <= next.start,
                    "{ctx}: on two cores at overlapping times"
                );
                // Strictly: a job chosen again by a decision keeps its core (placement never
                // moves a running job), so a segment never ends at the instant the next starts.
                assert!(seg.end < next.start, "{ctx}: back-to-back segments");
            }
        }
        if let Some(done) = r.completion {
            assert!(r.abort.is_none(), "{ctx}: completed and aborted");
            // Work only decreases while running, so a job completes at the end of a segment.
            assert_eq!(
                r.segments.last().map(|s| s.end),
                Some(done),
                "{ctx}: completes off a segment end"
            );
        }
        if let Some(abort) = r.abort {
            assert!(c.abort_on_miss, "{ctx}: abort without abort_on_miss");
            assert_eq!(abort, deadline, "{ctx}: aborted off its deadline");
            assert!(
                r.segments.iter().all(|s| s.end <= abort),
                "{ctx}: runs after its abort"
            );
        }
        // Deadline misses by definition: finished after the deadline, aborted, or unfinished at
        // the end with the deadline inside the run. Reported once, at the deadline.
        let should_miss = match (r.completion, r.abort) {
            (Some(done), _) => done > deadline,
            (None, Some(_)) => true,
            (None, None) => deadline <= end,
        };
        assert_eq!(
            r.misses,
            usize::from(should_miss),
            "{ctx}: deadline miss events"
        );
        if should_miss {
            assert_eq!(
                r.miss_at,
                Some(deadline),
                "{ctx}: miss reported off the deadline"
            );
        }
        if c.abort_on_miss {
            assert!(
                r.segments.iter().all(|s| s.end <= deadline),
                "{ctx}: runs after its deadline"
            );
            if r.completion.is_none() && deadline <= end {
                assert_eq!(r.abort, Some(deadline), "{ctx}: late job not aborted");
            }
        }
        // (c) Executed time. Work is the WCET under the WCET model, in [bcet, wcet] otherwise.
        let executed = r.executed();
        let work_low = match c.execution_times {
            ExecutionTimeModel::Wcet => t.wcet,
            ExecutionTimeModel::Uniform => t.bcet,
        };
        if o.is_zero() {
            match r.completion {
                Some(_) => {
                    assert!(
                        executed >= work_low && executed <= t.wcet,
                        "{ctx}: executed {executed}"
                    );
                }
                None => assert!(
                    executed < t.wcet,
                    "{ctx}: unfinished after executing {executed}"
                ),
            }
        } else if r.completion.is_some() {
            // Each switch-in charges scheduling + context switch (+ migration when the core
            // changed); unpaid overhead is dropped on preemption, and the last segment paid
            // all of its own before the job could finish.
            let cost = |k: usize| {
                let migrated = k > 0 && r.segments[k - 1].core != r.segments[k].core;
                o.scheduling.median()
                    + o.context_switch.median()
                    + if migrated {
                        o.migration.median()
                    } else {
                        Duration::ZERO
                    }
            };
            let charged = (0..r.segments.len()).fold(Duration::ZERO, |acc, k| acc + cost(k));
            let last = cost(r.segments.len() - 1);
            assert!(
                executed >= work_low + last && executed <= t.wcet + charged,
                "{ctx}: executed {executed}, charged {charged}"
            );
        }
    }
}

/// (b) A core never runs two segments at overlapping times. For global policies, placement
/// (docs/simulate.md): a job switched in takes its last core if free, otherwise the free core
/// with the lowest index, most important job first; so a job starting on a core other than its
/// last one finds its last core and every lower-numbered core taken at that instant.
pub(crate) fn check_cores(cores: usize, global: bool, jobs: &BTreeMap<JobId, JobRecord>) {
    let mut per_core: Vec<Vec<(Seg, JobId)>> = vec![Vec::new(); cores];
    for (&id, r) in jobs {
        for seg in &r.segments {
            per_core[seg.core].push((*seg, id));
        }
    }
    for (core, segs) in per_core.iter_mut().enumerate() {
        segs.sort_by_key(|(s, _)| (s.start, s.end));
        for pair in segs.windows(2) {
            assert!(
                pair[0].0.end <= pair[1].0.start,
                "core {core} runs two jobs at once: {pair:?}"
            );
        }
    }
    let busy_at = |core: usize, t: Instant| {
        let segs = &per_core[core];
        // The last segment starting at or before t covers t if it ends after t.
        let k = segs.partition_point(|(s, _)| s.start <= t);
        k > 0 && segs[k - 1].0.end > t
    };
    if !global {
        return;
    }
    for (id, r) in jobs {
        for (k, seg) in r.segments.iter().enumerate() {
            let last_core = k.checked_sub(1).map(|p| r.segments[p].core);
            if last_core == Some(seg.core) {
                continue;
            }
            if let Some(last) = last_core {
                assert!(
                    busy_at(last, seg.start),
                    "{id:?} migrated at {} although its last core {last} was free",
                    seg.start
                );
            }
            for lower in 0..seg.core {
                assert!(
                    busy_at(lower, seg.start),
                    "{id:?} took core {} at {} although core {lower} was free",
                    seg.core,
                    seg.start
                );
            }
        }
    }
}
