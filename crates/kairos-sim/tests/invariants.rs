//! Schedule invariants that must hold for every workload, policy and configuration, checked on
//! the recorded trace of random small task sets (1-6 tasks, 1-4 cores, random offsets,
//! constrained deadlines, periodic and sporadic arrivals, WCET and uniform execution times,
//! with and without overheads and `abort_on_miss`), under all five policies.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::*;
use kairos_model::{Arrival, CoreId, Duration, Instant, Overheads, Priority, Task, Workload};
use kairos_policy::policies::partition::assign_cores;
use kairos_policy::PolicyKind;
use kairos_sim::{ExecutionTimeModel, SimConfig, SimOutcome};
use kairos_trace::{Trace, TraceEvent};
use proptest::prelude::*;

/// Periods (in units) whose lcm is at most 120, so `max_offset + 2H` stays at most 250 units.
const PERIODS: [u64; 12] = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 60];

type Key = (u64, u64, u64, u64);

#[derive(Clone, Debug)]
struct Scenario {
    workload: Workload,
    config: SimConfig,
}

/// A task with D <= T, 1 <= bcet <= wcet <= D (whole units), offset 0..=10 units, and one time in
/// four a sporadic arrival with max inter-arrival T..=T+10 units.
fn arb_task() -> impl Strategy<Value = Task> {
    (
        prop::sample::select(PERIODS.to_vec()),
        0u64..=10,
        prop::option::weighted(0.25, 0u64..=10),
    )
        .prop_flat_map(|(period, offset, sporadic_extra)| {
            (1..=period).prop_flat_map(move |deadline| {
                (1..=deadline).prop_flat_map(move |wcet| {
                    (1..=wcet).prop_map(move |bcet| {
                        let mut t = task("t", wcet, period, deadline, offset);
                        t.bcet = units(bcet);
                        if let Some(extra) = sporadic_extra {
                            t.arrival = Arrival::Sporadic {
                                max_interarrival: units(period + extra),
                            };
                        }
                        t
                    })
                })
            })
        })
}

fn arb_scenario() -> impl Strategy<Value = Scenario> {
    (
        1usize..=4,
        prop::collection::vec(arb_task(), 1..=6),
        any::<bool>(),
        any::<u64>(),
        // Overheads in nanoseconds (a unit is 1000 ns): scheduling, context switch, migration.
        prop::option::of((0u64..=50, 0u64..=200, 0u64..=300)),
        any::<bool>(),
        // Some tasks bound to a core in the file (taken modulo the core count).
        prop::collection::vec(prop::option::weighted(0.2, 0usize..4), 6),
        // Sometimes explicit priority levels for every task (ties allowed), used by Auto.
        prop::option::weighted(0.3, prop::collection::vec(1u32..=4, 6)),
    )
        .prop_map(
            |(cores, mut tasks, uniform, seed, overheads, abort_on_miss, bindings, levels)| {
                for (i, t) in tasks.iter_mut().enumerate() {
                    t.name = format!("t{i}");
                    t.core = bindings[i].map(|c| CoreId(c % cores));
                    t.priority = levels.as_ref().map(|l| Priority::from_level(l[i]));
                }
                let workload = workload(cores, tasks);
                let config = SimConfig {
                    duration: two_hyperperiods_after_offsets(&workload),
                    execution_times: if uniform {
                        ExecutionTimeModel::Uniform
                    } else {
                        ExecutionTimeModel::Wcet
                    },
                    seed,
                    abort_on_miss,
                    record_trace: true,
                    overheads: overheads.map_or(Overheads::default(), |(s, c, m)| {
                        let ns = Duration::from_nanos;
                        Overheads::fixed(ns(s), ns(c), ns(m))
                    }),
                };
                Scenario { workload, config }
            },
        )
}

/// Fixed-priority rank of each task under `PriorityOrder::Auto`, computed independently of the
/// engine: explicit levels (1 first) when every task has one, else rate-monotonic (shorter period
/// first); ties by lower task index.
fn fp_ranks(workload: &Workload) -> Vec<u64> {
    let tasks = &workload.tasks;
    let explicit = tasks.iter().all(|t| t.priority.is_some());
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    if explicit {
        order.sort_by_key(|&i| (u64::from(tasks[i].priority.unwrap().level()), i));
    } else {
        order.sort_by_key(|&i| (tasks[i].period.as_nanos(), i));
    }
    let mut ranks = vec![0; order.len()];
    for (rank, &i) in order.iter().enumerate() {
        ranks[i] = rank as u64;
    }
    ranks
}

/// The static job order of a policy (smaller runs first), or `None` for EDZL whose order depends
/// on laxity (checked against the reference simulator in `reference.rs` instead).
/// A job's key, computed from its trace record.
type KeyFn = Box<dyn Fn(JobId, &JobRecord) -> Key>;

fn static_key(kind: PolicyKind, workload: &Workload) -> Option<KeyFn> {
    match kind {
        PolicyKind::GlobalEdf | PolicyKind::PartitionedEdf => {
            Some(Box::new(|(task, job), r: &JobRecord| {
                (
                    r.deadline.unwrap().as_nanos(),
                    r.release.unwrap().as_nanos(),
                    task as u64,
                    job,
                )
            }))
        }
        PolicyKind::GlobalFp | PolicyKind::PartitionedFp => {
            let ranks = fp_ranks(workload);
            Some(Box::new(move |(task, job), _: &JobRecord| {
                (ranks[task], job, 0, 0)
            }))
        }
        // EDZL's order depends on laxity; the semi-fixed-priority family is checked against
        // its own twin (crates/kairos-analysis/tests/rmwp.rs).
        PolicyKind::GlobalEdzl
        | PolicyKind::GlobalRmwp
        | PolicyKind::PartitionedRmwp
        | PolicyKind::GlobalRm
        | PolicyKind::PartitionedRm => None,
    }
}

/// Per-job checks: (a) a job never runs on two cores at once, (c) executed time matches the
/// work, (d) it never runs before its release or after its completion/abort, and the deadline
/// miss / abort events follow their definitions.
fn check_jobs(s: &Scenario, jobs: &BTreeMap<JobId, JobRecord>, end: Instant) {
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
fn check_cores(cores: usize, global: bool, jobs: &BTreeMap<JobId, JobRecord>) {
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

/// Sweeps every instant where the schedule can change (releases, completions, aborts, segment
/// bounds; it is constant in between) and checks, for each group of cores (all cores for a
/// global policy, each core with its bound tasks for a partitioned one):
/// - only released, unfinished jobs run, and a partitioned job only on its own core;
/// - (e) work conservation: running jobs = min(cores of the group, active jobs of the group);
/// - for static orders, the running jobs are exactly the most important active ones.
///
/// Instants at the end of the run are skipped: a job switched in there leaves no segment.
fn check_sweep(s: &Scenario, kind: PolicyKind, jobs: &BTreeMap<JobId, JobRecord>, end: Instant) {
    let w = &s.workload;
    let (group_of_task, capacity): (Vec<usize>, usize) = if is_global(kind) {
        (vec![0; w.tasks.len()], w.cores)
    } else {
        (assign_cores(w).core_of_task, 1)
    };
    let groups = if is_global(kind) { 1 } else { w.cores };
    let key = static_key(kind, w);
    let key_of =
        |id: JobId, r: &JobRecord| key.as_ref().map_or((0, 0, id.0 as u64, id.1), |k| k(id, r));

    // (instant, phase, job, core): phases apply stops, ends, releases, starts in that order.
    let mut changes: Vec<(Instant, u8, JobId, usize)> = Vec::new();
    for (&id, r) in jobs {
        changes.push((r.release.unwrap(), 2, id, 0));
        if let Some(t) = r.completion.or(r.abort) {
            changes.push((t, 1, id, 0));
        }
        for seg in &r.segments {
            changes.push((seg.start, 3, id, seg.core));
            changes.push((seg.end, 0, id, seg.core));
        }
    }
    changes.sort();
    let mut active: Vec<BTreeSet<(Key, JobId)>> = vec![BTreeSet::new(); groups];
    let mut running: HashMap<JobId, usize> = HashMap::new();
    let mut k = 0;
    while k < changes.len() {
        let now = changes[k].0;
        while k < changes.len() && changes[k].0 == now {
            let (_, phase, id, core) = changes[k];
            let r = &jobs[&id];
            let g = group_of_task[id.0];
            match phase {
                0 => assert_eq!(
                    running.remove(&id),
                    Some(core),
                    "{id:?} stops where it did not run"
                ),
                1 => assert!(active[g].remove(&(key_of(id, r), id))),
                2 => assert!(active[g].insert((key_of(id, r), id))),
                _ => assert!(
                    running.insert(id, core).is_none(),
                    "{id:?} starts twice at {now}"
                ),
            }
            k += 1;
        }
        if now >= end {
            break;
        }
        let ctx = format!("{} at {now} ({:?})", kind.cli_name(), w.tasks);
        let mut running_in_group = vec![0usize; groups];
        for (&id, &core) in &running {
            let g = group_of_task[id.0];
            assert!(
                active[g].contains(&(key_of(id, &jobs[&id]), id)),
                "{ctx}: {id:?} runs while not released or already finished"
            );
            if !is_global(kind) {
                assert_eq!(core, g, "{ctx}: {id:?} runs off its partition");
            }
            running_in_group[g] += 1;
        }
        for g in 0..groups {
            let expected = capacity.min(active[g].len());
            assert_eq!(
                running_in_group[g], expected,
                "{ctx}: group {g} runs {} of {} active jobs on {capacity} cores (not work-conserving)",
                running_in_group[g],
                active[g].len()
            );
            if key.is_some() {
                for (_, id) in active[g].iter().take(expected) {
                    assert!(
                        running.contains_key(id),
                        "{ctx}: {id:?} waits while a less important job runs"
                    );
                }
            }
        }
    }
}

/// (g) Metrics against the trace, by the definitions in `metrics.rs`. Context switches,
/// preemptions and migrations are counted on `ext`, the same run extended by 1 ns: a job switched
/// in at the last instant leaves no segment in the short run, but does in the extended one (the
/// engine is causal, so the extended run agrees with the short one up to its end).
fn check_metrics(s: &Scenario, kind: PolicyKind, outcome: &SimOutcome, trace: &Trace, ext: &Trace) {
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

fn task_of(e: &TraceEvent) -> usize {
    match *e {
        TraceEvent::Release { task, .. }
        | TraceEvent::Segment { task, .. }
        | TraceEvent::Completion { task, .. }
        | TraceEvent::DeadlineMiss { task, .. }
        | TraceEvent::Abort { task, .. }
        | TraceEvent::Discard { task, .. }
        | TraceEvent::PartEnd { task, .. } => task,
        TraceEvent::ModeChange { .. } => panic!("mode change in a periodic run"),
        TraceEvent::ServerSegment { .. }
        | TraceEvent::Replenish { .. }
        | TraceEvent::ServerExhausted { .. } => panic!("server event in a run without servers"),
    }
}

/// Releases follow the arrival model: job numbers count from 0, the first at the offset, then
/// exactly every period (periodic) or a gap in [period, max_interarrival] (sporadic); every
/// release within the run happens.
fn check_releases(s: &Scenario, jobs: &BTreeMap<JobId, JobRecord>, end: Instant) {
    for (i, t) in s.workload.tasks.iter().enumerate() {
        let releases: Vec<(u64, Instant)> = jobs
            .iter()
            .filter(|((task, _), _)| *task == i)
            .map(|(&(_, job), r)| (job, r.release.unwrap()))
            .collect();
        let first = Instant::ZERO + t.offset;
        if first > end {
            assert!(releases.is_empty());
            continue;
        }
        assert_eq!(
            releases.first().map(|r| r.1),
            Some(first),
            "task {i} first release"
        );
        for (k, &(job, _)) in releases.iter().enumerate() {
            assert_eq!(job, k as u64, "task {i} job numbers");
        }
        let max_gap = match t.arrival {
            Arrival::Periodic => t.period,
            Arrival::Sporadic { max_interarrival } => max_interarrival,
        };
        for pair in releases.windows(2) {
            let gap = pair[1].1 - pair[0].1;
            assert!(gap >= t.period && gap <= max_gap, "task {i} gap {gap}");
        }
        // No release is missing at the end: the next one would fall after the run.
        let last = releases.last().unwrap().1;
        if t.arrival == Arrival::Periodic {
            assert!(
                last + t.period > end,
                "task {i}: release after {last} missing"
            );
        }
    }
}

/// (f) Partitioned policies never migrate, and run every job on its task's core.
fn check_partitioned(s: &Scenario, outcome: &SimOutcome, jobs: &BTreeMap<JobId, JobRecord>) {
    let assignment = assign_cores(&s.workload);
    assert_eq!(outcome.metrics.migrations, 0, "partitioned policy migrated");
    for (&(task, job), r) in jobs {
        for seg in &r.segments {
            assert_eq!(
                seg.core, assignment.core_of_task[task],
                "job {task}#{job} off its core"
            );
        }
    }
    // The binding: file cores first; the other tasks first-fit with capacity 1 per core (after
    // the file-bound load), except those reported as overflowed.
    let tasks = &s.workload.tasks;
    let mut load = vec![0.0f64; s.workload.cores];
    let mut has_fitted = vec![false; s.workload.cores];
    for (i, t) in tasks.iter().enumerate() {
        let core = assignment.core_of_task[i];
        if let Some(bound) = t.core {
            assert_eq!(core, bound.0, "task {i} off its file core");
            assert!(!assignment.overflowed.contains(&i));
        }
        if !assignment.overflowed.contains(&i) {
            load[core] += t.utilization();
            has_fitted[core] |= t.core.is_none();
        }
    }
    for core in 0..s.workload.cores {
        assert!(
            !has_fitted[core] || load[core] <= 1.0 + 1e-9,
            "first-fit overfilled core {core}: {load:?}"
        );
    }
}

fn check_everything(s: &Scenario, kind: PolicyKind) {
    let (outcome, trace) = run_traced(&s.workload, kind, &s.config);
    let end = Instant::ZERO + s.config.duration;
    assert_eq!(trace.end, end);
    let jobs = jobs_of(&trace);
    check_jobs(s, &jobs, end);
    check_cores(s.workload.cores, is_global(kind), &jobs);
    check_releases(s, &jobs, end);
    check_sweep(s, kind, &jobs, end);
    if !is_global(kind) {
        check_partitioned(s, &outcome, &jobs);
    }
    let ext_config = SimConfig {
        duration: s.config.duration + Duration::from_nanos(1),
        ..s.config.clone()
    };
    let (_, ext) = run_traced(&s.workload, kind, &ext_config);
    check_metrics(s, kind, &outcome, &trace, &ext);

    // (h) Determinism: the same seed gives the identical trace and metrics.
    let (again, again_trace) = run_traced(&s.workload, kind, &s.config);
    assert_eq!(
        again_trace.events, trace.events,
        "same seed, different trace"
    );
    assert_eq!(
        again.metrics, outcome.metrics,
        "same seed, different metrics"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn schedules_satisfy_every_invariant(s in arb_scenario()) {
        for kind in PolicyKind::ALL {
            check_everything(&s, kind);
        }
    }
}

/// (h) The seed matters: under the uniform model, some other seed changes the schedule of a set
/// with bcet < wcet (if the seed were ignored, every run would be the same).
#[test]
fn different_seeds_can_give_different_uniform_schedules() {
    let mut a = task("a", 3, 5, 5, 0);
    a.bcet = units(1);
    let mut b = task("b", 4, 10, 10, 0);
    b.bcet = units(1);
    let w = workload(1, vec![a, b]);
    let config = |seed| SimConfig {
        duration: units(100),
        execution_times: ExecutionTimeModel::Uniform,
        seed,
        ..SimConfig::default()
    };
    for kind in PolicyKind::ALL {
        let (_, base) = run_traced(&w, kind, &config(0));
        let differing = (1..=8)
            .filter(|&seed| run_traced(&w, kind, &config(seed)).1.events != base.events)
            .count();
        assert!(
            differing > 0,
            "{}: eight other seeds all gave the seed-0 schedule",
            kind.cli_name()
        );
        // And the uniform draws stay within [bcet, wcet]: job lengths differ across jobs.
        let lengths: BTreeSet<Duration> = jobs_of(&base)
            .values()
            .filter(|r| r.completion.is_some())
            .map(JobRecord::executed)
            .collect();
        assert!(
            lengths.len() > 1,
            "uniform model drew one length only: {lengths:?}"
        );
        assert!(lengths.iter().all(|&l| l >= units(1) && l <= units(4)));
    }
}

/// The uniform model draws in `[bcet, wcet]` with both bounds included (docs/simulate.md): with
/// wcet - bcet = 1 ns, both lengths occur.
#[test]
fn uniform_draws_include_both_bounds() {
    let mut a = task("a", 1, 2, 2, 0);
    a.bcet = Duration::from_nanos(UNIT_NS - 1);
    let w = workload(1, vec![a]);
    let config = SimConfig {
        duration: units(400),
        execution_times: ExecutionTimeModel::Uniform,
        seed: 3,
        ..SimConfig::default()
    };
    let (_, trace) = run_traced(&w, PolicyKind::GlobalEdf, &config);
    let lengths: BTreeSet<u64> = jobs_of(&trace)
        .values()
        .filter(|r| r.completion.is_some())
        .map(|r| r.executed().as_nanos())
        .collect();
    assert_eq!(lengths, BTreeSet::from([UNIT_NS - 1, UNIT_NS]));
}

/// Draws belong to (task, job): a task bound to its own core keeps its random execution times,
/// hence its whole schedule, when another task (one that draws execution times and sporadic gaps
/// of its own) joins on another core; another seed does change them.
#[test]
fn each_task_keeps_its_own_draws_whatever_else_runs() {
    let mut a = task("a", 4, 10, 10, 0);
    a.bcet = units(1);
    a.core = Some(kairos_model::CoreId(0));
    let mut b = task("b", 3, 7, 7, 1);
    b.bcet = units(1);
    b.core = Some(kairos_model::CoreId(1));
    b.arrival = Arrival::Sporadic {
        max_interarrival: units(12),
    };
    let config = SimConfig {
        duration: units(500),
        execution_times: ExecutionTimeModel::Uniform,
        seed: 11,
        ..SimConfig::default()
    };
    let segments_of_a = |w: &Workload, config: &SimConfig| -> Vec<Seg> {
        let (_, trace) = run_traced(w, PolicyKind::PartitionedEdf, config);
        jobs_of(&trace)
            .iter()
            .filter(|((task, _), _)| *task == 0)
            .flat_map(|(_, r)| r.segments.clone())
            .collect()
    };
    let alone = segments_of_a(&workload(2, vec![a.clone()]), &config);
    let with_b = workload(2, vec![a.clone(), b]);
    assert_eq!(alone, segments_of_a(&with_b, &config));
    let reseeded = SimConfig { seed: 12, ..config };
    assert_ne!(alone, segments_of_a(&with_b, &reseeded));
}

// Known engine bugs. Zero-work jobs: `bcet = 0` is valid input (docs/model.md) and the uniform
// model then draws a work of 0 ns for some jobs. Such a job is never completed at its release
// (completions are applied before releases within an instant); it stays in the ready set with no
// work and is removed by `complete_finished_jobs` at whatever the next event instant is, even if
// it never got a core. The property tests above use bcet >= 1 unit so they do not trip on it.

/// One core, explicit priorities: a (prio 1, C=5, T=10) runs [0,5) of each period; b (prio 2,
/// work 0 or 1 ns, released at 1) waits for it; c (prio 3, released at 3) is unrelated to b. A
/// zero-work b job must complete at its release (it needs no processor time) or at the latest when
/// it would get the core (5); the engine completes it at 3, c's release, without ever running it:
/// its completion and response time depend on an unrelated task's release.
#[test]
fn zero_work_jobs_complete_independently_of_unrelated_events() {
    let mut a = task("a", 5, 10, 10, 0);
    a.priority = Some(Priority::from_level(1));
    let mut b = task("b", 1, 10, 10, 1);
    b.wcet = Duration::from_nanos(1);
    b.bcet = Duration::ZERO;
    b.priority = Some(Priority::from_level(2));
    let mut c = task("c", 1, 10, 10, 3);
    c.priority = Some(Priority::from_level(3));
    let w = workload(1, vec![a, b, c]);
    let mut zero_work_jobs = 0;
    for seed in 0..8 {
        let config = SimConfig {
            duration: units(40),
            execution_times: ExecutionTimeModel::Uniform,
            seed,
            ..SimConfig::default()
        };
        let (_, trace) = run_traced(&w, PolicyKind::GlobalFp, &config);
        for ((task, job), r) in jobs_of(&trace) {
            let (Some(done), true) = (r.completion, task == 1) else {
                continue;
            };
            let release = r.release.unwrap();
            // The core is taken by a until 5 units into each period.
            let core_free = at_units(10 * job + 5);
            zero_work_jobs += usize::from(r.segments.is_empty());
            assert!(
                done == release || done >= core_free,
                "seed {seed}: b#{job} released at {release} completed at {done}, \
                 while a held the core until {core_free} (segments {:?})",
                r.segments
            );
        }
    }
    assert!(
        zero_work_jobs > 0,
        "no zero-work job drawn: the test would be vacuous"
    );
}

/// docs/simulate.md: at each instant the engine applies completions, aborts, releases, then
/// "one policy call". A zero-work job dispatched at its release is completed in a second round at
/// the same instant, which calls the policy a second time there (and counts a context switch that
/// leaves no segment in the trace).
#[test]
fn zero_work_jobs_cost_one_policy_call_per_instant() {
    let mut z = task("z", 1, 10, 10, 0);
    z.wcet = Duration::from_nanos(1);
    z.bcet = Duration::ZERO;
    let w = workload(1, vec![z]);
    let mut zero_work_jobs = 0;
    for seed in 0..8 {
        let config = SimConfig {
            duration: units(40),
            execution_times: ExecutionTimeModel::Uniform,
            seed,
            ..SimConfig::default()
        };
        let (outcome, trace) = run_traced(&w, PolicyKind::GlobalEdf, &config);
        let jobs = jobs_of(&trace);
        zero_work_jobs += jobs
            .values()
            .filter(|r| r.completion.is_some() && r.segments.is_empty())
            .count();
        let instants: BTreeSet<Instant> = trace
            .events
            .iter()
            .filter_map(|e| match *e {
                TraceEvent::Release { at, .. } | TraceEvent::Completion { at, .. } => Some(at),
                _ => None,
            })
            .collect();
        assert_eq!(
            outcome.metrics.scheduling_points,
            instants.len() as u64,
            "seed {seed}: policy calls vs instants with a release or completion"
        );
    }
    assert!(
        zero_work_jobs > 0,
        "no zero-work job drawn: the test would be vacuous"
    );
}
