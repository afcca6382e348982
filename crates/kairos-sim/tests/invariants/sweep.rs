//! The dispatch order at every instant, releases, and partitioned placement.

use super::*;

/// Sweeps every instant where the schedule can change (releases, completions, aborts, segment
/// bounds; it is constant in between) and checks, for each group of cores (all cores for a
/// global policy, each core with its bound tasks for a partitioned one):
/// - only released, unfinished jobs run, and a partitioned job only on its own core;
/// - (e) work conservation: running jobs = min(cores of the group, active jobs of the group);
/// - for static orders, the running jobs are exactly the most important active ones.
///
/// Instants at the end of the run are skipped: a job switched in there leaves no segment.
pub(crate) fn check_sweep(
    s: &Scenario,
    kind: PolicyKind,
    jobs: &BTreeMap<JobId, JobRecord>,
    end: Instant,
) {
    let w = &s.workload;
    let (group_of_task, capacity): (Vec<usize>, usize) = if is_global(kind) {
        (vec![0; w.tasks.len()], w.cores)
    } else {
        (
            assign_cores(w)
                .expect("generated tasks bind no core")
                .core_of_task,
            1,
        )
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

/// Releases follow the arrival model: job numbers count from 0, the first at the offset, then
/// exactly every period (periodic) or a gap in [period, max_interarrival] (sporadic); every
/// release within the run happens.
pub(crate) fn check_releases(s: &Scenario, jobs: &BTreeMap<JobId, JobRecord>, end: Instant) {
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
pub(crate) fn check_partitioned(
    s: &Scenario,
    outcome: &SimOutcome,
    jobs: &BTreeMap<JobId, JobRecord>,
) {
    let assignment = assign_cores(&s.workload).expect("the engine ran this binding");
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
