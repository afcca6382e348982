//! Table-driven runs made until they are the scenario a test describes: a run the host
//! disturbed is made again only when its lost time explains the disturbance.

use super::{lost_time, require_cpus, require_rt, serial, stalls_over, stole};
use kairos_model::{McSystem, TableSet};
use kairos_os::sched;
use kairos_rt::dispatcher::TIMER_TO_HANDLER;
use kairos_rt::measure::RunResult;
use kairos_rt::table::{run_tables_detailed, TableRun, TableRunConfig};

/// A timer later than this means the core was taken from the dispatcher during the run: its
/// behaviour is then still right, but not the scenario the test describes (a stalled core sees
/// a later boundary first).
const LATE_TIMER_NS: u64 = 1_000_000;
/// Runs of a scenario the host disturbed, at most.
const ATTEMPTS: usize = 3;

/// What makes a run another scenario than the test's, and the stretch of the run (ns since its
/// start) in which the host would have had to take time to cause it, when known.
pub type Anomaly = (String, Option<(u64, u64)>);

/// Runs the scenario until it is the one the test describes: a run the host disturbed (an
/// anomaly of the run or of `scenario`, explained by the run's stalls or steal, printed) is
/// made again, at most [`ATTEMPTS`] times; an anomaly nothing of the host explains fails.
pub fn run_scenario(
    system: &McSystem,
    tables: &TableSet,
    config: TableRunConfig,
    scenario: &dyn Fn(&TableRun) -> Vec<Anomaly>,
) -> TableRun {
    let _serial = serial();
    require_rt();
    require_cpus(tables.cores);
    let mut attempt = 1;
    loop {
        let run = run_tables_detailed(system, tables, &config).expect("the run starts");
        assert!(
            sched::rt_threads_of_self().is_empty(),
            "a real-time thread outlived the run"
        );
        assert_eq!(run.overlaps, 0, "a task ran on two cores");
        assert_eq!(run.result.stopped_by, None, "{:?}", run.result.notes);
        let mut anomalies = anomalies(&run, &config);
        anomalies.extend(scenario(&run));
        match host_evidence(&run.result, &anomalies) {
            Err(what) => panic!("{what}, and no stall or steal of the host explains it"),
            Ok(Some(evidence)) if attempt < ATTEMPTS => {
                eprintln!("attempt {attempt}: the host disturbed the scenario: {evidence}; again");
                attempt += 1;
            }
            Ok(evidence) => {
                if let Some(evidence) = evidence {
                    eprintln!("attempt {attempt}, the last: the host disturbed it: {evidence}");
                }
                return run;
            }
        }
    }
}

/// The run's own anomalies: jobs that overran unasked (in their windows), misses the
/// attribution gives the host (in theirs), a dispatcher timer late by a millisecond or more
/// (its instant is not recorded: anywhere).
fn anomalies(run: &TableRun, config: &TableRunConfig) -> Vec<Anomaly> {
    let r = &run.result;
    let window = |task: usize, job: u64| {
        let j = (r.jobs.iter()).find(|j| (j.task, j.job) == (task, job));
        j.map(|j| (j.release, j.deadline))
    };
    let name = |task: usize, job: u64| format!("{}@{job}", r.trace.task_names[task]);
    let mut found: Vec<Anomaly> = (unplanned_overruns(run, config).into_iter())
        .map(|(t, j)| (format!("{} overran unasked", name(t, j)), window(t, j)))
        .collect();
    found.extend(
        (r.miss_causes.iter())
            .filter(|m| m.stall.is_some())
            .map(|m| {
                let what = format!("{} missed its deadline", name(m.task, m.job));
                (what, window(m.task, m.job))
            }),
    );
    let worst_timer = (r.histograms.get(TIMER_TO_HANDLER)).map_or(0, |h| h.summary.max);
    if worst_timer >= LATE_TIMER_NS {
        found.push((
            format!("a dispatcher timer was {worst_timer} ns late"),
            None,
        ));
    }
    found
}

/// The host's time taken over every anomaly, in text (`None` without anomalies); `Err` names
/// an anomaly with no stall over its stretch (or, stretch unknown, no stall and no steal at all).
fn host_evidence(r: &RunResult, anomalies: &[Anomaly]) -> Result<Option<String>, String> {
    let mut stalls = Vec::new();
    for (what, stretch) in anomalies {
        let over = match stretch {
            Some((from, to)) => stalls_over(r, *from, *to),
            None => r.stall_intervals.clone(),
        };
        if over.is_empty() && (stretch.is_some() || !stole(r)) {
            return Err(what.clone());
        }
        stalls.extend(over);
    }
    stalls.sort_by_key(|s| (s.start, s.core));
    stalls.dedup();
    let what: Vec<&str> = anomalies.iter().map(|(what, _)| what.as_str()).collect();
    Ok((!what.is_empty()).then(|| format!("{}; {}", what.join(", "), lost_time(r, &stalls))))
}

/// Jobs whose overrun raised the mode though the run did not inject one into them: a job runs
/// `work_fraction` of its budget, so only a host that slowed the core by the rest makes one
/// overrun. (With random overruns drawn, any job may overrun: none is unplanned.)
fn unplanned_overruns(run: &TableRun, config: &TableRunConfig) -> Vec<(usize, u64)> {
    if config.overrun_probability > 0.0 {
        return Vec::new();
    }
    let names = &run.result.trace.task_names;
    run.mode_changes
        .iter()
        .flat_map(|change| &change.triggers)
        .filter(|job| {
            !config
                .overruns
                .iter()
                .any(|o| o.job == job.number && names.get(job.task) == Some(&o.task))
        })
        .map(|job| (job.task, job.number))
        .collect()
}
