//! The metrics agree with the trace they summarize.

use super::*;

/// (g) Metrics against the trace, by the definitions in `metrics.rs`. Context switches,
/// preemptions and migrations are counted on `ext`, the same run extended by 1 ns: a job switched
/// in at the last instant leaves no segment in the short run, but does in the extended one (the
/// engine is causal, so the extended run agrees with the short one up to its end).
pub(crate) fn check_metrics(
    s: &Scenario,
    kind: PolicyKind,
    outcome: &SimOutcome,
    trace: &Trace,
    ext: &Trace,
) {
    let w = &s.workload;
    let m = &outcome.metrics;
    let n = w.tasks.len();
    let jobs = jobs_of(trace);
    let end = trace.end;

    assert_eq!(m.tasks.len(), n);
    assert_eq!(m.core_usage.len(), w.cores);
    assert_eq!(m.cores, w.cores);
    assert_eq!(m.duration_ns, s.config.duration.as_nanos());

    let count = |pred: &dyn Fn(&TraceEvent) -> Option<usize>| {
        let mut per_task = vec![0u64; n];
        for e in &trace.events {
            if let Some(t) = pred(e) {
                per_task[t] += 1;
            }
        }
        per_task
    };
    let released = count(&|e| matches!(e, TraceEvent::Release { .. }).then(|| task_of(e)));
    let completed = count(&|e| matches!(e, TraceEvent::Completion { .. }).then(|| task_of(e)));
    let missed = count(&|e| matches!(e, TraceEvent::DeadlineMiss { .. }).then(|| task_of(e)));
    let aborted = count(&|e| matches!(e, TraceEvent::Abort { .. }).then(|| task_of(e)));

    // Preemptions, migrations and switch-ins before `end`, from the extended run: the decision
    // at the end instant of the short run places nothing (nothing runs after the window).
    let ext_jobs = jobs_of(ext);
    let mut switch_ins = 0u64;
    let mut preempted = vec![0u64; n];
    let mut migrated = vec![0u64; n];
    for (&(task, _), r) in &ext_jobs {
        for (k, seg) in r.segments.iter().enumerate() {
            if seg.start < end {
                switch_ins += 1;
                if k > 0 && r.segments[k - 1].core != seg.core {
                    migrated[task] += 1;
                }
            }
            // A segment ends by completion, abort or a decision taking the job off its core.
            if seg.end < end && r.completion != Some(seg.end) && r.abort != Some(seg.end) {
                preempted[task] += 1;
            }
        }
    }

    let sum = |v: &[u64]| v.iter().sum::<u64>();
    assert_eq!(
        m.jobs_released,
        sum(&released),
        "jobs_released vs Release events"
    );
    assert_eq!(
        m.jobs_completed,
        sum(&completed),
        "jobs_completed vs Completion events"
    );
    assert_eq!(
        m.deadline_misses,
        sum(&missed),
        "deadline_misses vs DeadlineMiss events"
    );
    assert_eq!(
        m.jobs_aborted,
        sum(&aborted),
        "jobs_aborted vs Abort events"
    );
    assert_eq!(
        m.context_switches, switch_ins,
        "context_switches vs switch-ins"
    );
    assert_eq!(
        m.preemptions,
        sum(&preempted),
        "preemptions vs segments ended unfinished"
    );
    assert_eq!(
        m.migrations,
        sum(&migrated),
        "migrations vs core changes between segments"
    );
    // Segments in the short run: one per switch-in.
    // One policy call per instant with a release, completion or abort; EDZL adds calls at its
    // zero-laxity wake-ups.
    let event_instants: BTreeSet<Instant> = trace
        .events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Release { at, .. }
            | TraceEvent::Completion { at, .. }
            | TraceEvent::Abort { at, .. } => Some(at),
            _ => None,
        })
        .collect();
    if kind == PolicyKind::GlobalEdzl {
        assert!(m.scheduling_points >= event_instants.len() as u64);
    } else {
        assert_eq!(
            m.scheduling_points,
            event_instants.len() as u64,
            "scheduling points"
        );
    }
    let segments = trace.segments().count() as u64;
    assert_eq!(segments, m.context_switches, "segments vs context switches");

    for (i, t) in m.tasks.iter().enumerate() {
        assert_eq!(t.name, w.tasks[i].name);
        assert_eq!(t.jobs_released, released[i], "task {i} released");
        assert_eq!(t.jobs_completed, completed[i], "task {i} completed");
        assert_eq!(t.deadline_misses, missed[i], "task {i} misses");
        assert_eq!(t.jobs_aborted, aborted[i], "task {i} aborted");
        assert_eq!(t.preemptions, preempted[i], "task {i} preemptions");
        assert_eq!(t.migrations, migrated[i], "task {i} migrations");
        let responses: Vec<u64> = jobs
            .iter()
            .filter(|((task, _), _)| *task == i)
            .filter_map(|(_, r)| r.completion.map(|c| (c - r.release.unwrap()).as_nanos()))
            .collect();
        assert_eq!(
            t.response_min_ns,
            responses.iter().min().copied(),
            "task {i} min response"
        );
        assert_eq!(
            t.response_max_ns,
            responses.iter().max().copied(),
            "task {i} max response"
        );
        let mean =
            (!responses.is_empty()).then(|| responses.iter().sum::<u64>() / responses.len() as u64);
        assert_eq!(t.response_mean_ns, mean, "task {i} mean response");
    }
    // Per-task figures add up to the totals.
    type PerTask = fn(&kairos_sim::metrics::TaskMetrics) -> u64;
    let sums: [(&str, PerTask, u64); 6] = [
        ("jobs_released", |t| t.jobs_released, m.jobs_released),
        ("jobs_completed", |t| t.jobs_completed, m.jobs_completed),
        ("deadline_misses", |t| t.deadline_misses, m.deadline_misses),
        ("jobs_aborted", |t| t.jobs_aborted, m.jobs_aborted),
        ("preemptions", |t| t.preemptions, m.preemptions),
        ("migrations", |t| t.migrations, m.migrations),
    ];
    for (name, per_task, total) in sums {
        assert_eq!(
            m.tasks.iter().map(per_task).sum::<u64>(),
            total,
            "per-task {name} sum"
        );
    }

    let unfinished = jobs
        .values()
        .filter(|r| r.completion.is_none() && r.abort.is_none())
        .count();
    assert_eq!(outcome.unfinished_jobs, unfinished, "unfinished_jobs");
    assert_eq!(
        outcome.unfinished_jobs as u64,
        m.jobs_released - m.jobs_completed - m.jobs_aborted
    );

    // Busy time is exactly the time covered by segments; overhead is a part of it.
    let o = &s.config.overheads;
    let mut busy = vec![0u64; w.cores];
    for (core, _, _, start, end) in trace.segments() {
        busy[core] += (end - start).as_nanos();
    }
    for (core, usage) in m.core_usage.iter().enumerate() {
        assert_eq!(usage.core, core);
        assert_eq!(usage.busy_ns, busy[core], "core {core} busy_ns vs segments");
        assert!(usage.overhead_ns <= usage.busy_ns);
        if o.is_zero() {
            assert_eq!(usage.overhead_ns, 0);
        }
        let expected = busy[core] as f64 / s.config.duration.as_nanos() as f64;
        assert!((usage.utilization - expected).abs() < 1e-12);
    }
    // Overhead paid never exceeds overhead charged at switch-ins (unpaid overhead is dropped).
    let charged = (o.scheduling.median() + o.context_switch.median()).as_nanos()
        * m.context_switches
        + o.migration.median().as_nanos() * m.migrations;
    assert!(m.core_usage.iter().map(|u| u.overhead_ns).sum::<u64>() <= charged);
}
