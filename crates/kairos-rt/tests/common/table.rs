//! Table-driven runs made until they are the scenario a test describes: a run the host
//! disturbed is made again only when its lost time explains the disturbance.

use super::{lost_time, require_cpus, require_rt, serial, stalls_over, stole};
use kairos_model::{McSystem, TableSet};
use kairos_os::sched;
use kairos_policy::table::{job_demands, DemandSpec, TablePlan};
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
        let slowed = slowed_cores(&run, &config, system, tables);
        match host_evidence(&run.result, &anomalies, &slowed) {
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
/// an anomaly with no stall over its stretch (or, stretch unknown, no stall and no steal at all)
/// and no slowed core (`slowed`: anomaly, evidence) to explain it.
fn host_evidence(
    r: &RunResult,
    anomalies: &[Anomaly],
    slowed: &[(String, String)],
) -> Result<Option<String>, String> {
    let mut stalls = Vec::new();
    let mut slow = Vec::new();
    for (what, stretch) in anomalies {
        if let Some((_, evidence)) = slowed.iter().find(|(w, _)| w == what) {
            slow.push(evidence.as_str());
            continue;
        }
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
    let slow: String = slow.iter().map(|e| format!("{e}; ")).collect();
    Ok((!what.is_empty()).then(|| {
        let lost = lost_time(r, &stalls);
        format!("{}; {slow}{lost}", what.join(", "))
    }))
}

/// Every job that overran unasked though it had the time its work needs, with the evidence:
/// before its overrun was seen, the operating system's wake-up of its worker (from the
/// dispatcher's first request to its first instruction) and the time it held its cores add up
/// to at least its busy work at the calibrated speed, and it still had work left. Both are the
/// machine's: the dispatcher had asked, and calibrated loop iterations left unfinished on a
/// core the job held mean a core slower than at calibration (time the hypervisor took in holes
/// shorter than the stall watcher sees, a busy hyper-thread sibling, a lower clock, interrupts
/// or kernel threads). Time the job had neither (a late request, a lost wake-up, a later
/// activation the dispatcher delayed, another job on its core) counts for nothing, so a fault
/// of the run's own still fails the test.
fn slowed_cores(
    run: &TableRun,
    config: &TableRunConfig,
    system: &McSystem,
    tables: &TableSet,
) -> Vec<(String, String)> {
    let overran = unplanned_overruns(run, config);
    if overran.is_empty() {
        return Vec::new();
    }
    let plan = TablePlan::new(system, tables).expect("the run's tables resolve");
    let spec = DemandSpec {
        execution_times: config.execution_times,
        overruns: config.overruns.clone(),
        overrun_probability: config.overrun_probability,
        seed: config.seed,
    };
    let horizon = run
        .result
        .jobs
        .iter()
        .map(|j| j.deadline)
        .max()
        .unwrap_or(0);
    let drawn = job_demands(&plan, &spec, horizon).expect("the run's demands draw again");
    let r = &run.result;
    let mut out = Vec::new();
    for (task, job) in overran {
        let record = (r.jobs.iter()).find(|j| (j.task, j.job) == (task, job));
        let (Some(seen), Some(record)) = (detection(run, task, job), record) else {
            continue;
        };
        let (Some(asked), Some(start)) = (record.requested, record.start) else {
            continue;
        };
        let work = (drawn[task][job as usize] as f64 * config.work_fraction) as u64;
        let held: u64 = (r.trace.segments())
            .filter(|&(_, t, j, from, _)| (t, j) == (task, job) && from.as_nanos() < seen)
            .map(|(_, _, _, from, to)| to.as_nanos().min(seen) - from.as_nanos())
            .sum();
        let waited = start.saturating_sub(asked);
        if held + waited >= work {
            let ms = |ns: u64| ns as f64 / 1e6;
            let name = format!("{}@{job}", r.trace.task_names[task]);
            out.push((
                format!("{name} overran unasked"),
                format!(
                    "{name} was asked for at {:.3} ms, its overrun seen at {:.3} ms, its busy \
                     work takes {:.3} ms at the calibrated speed: the operating system took \
                     {:.3} ms to start it and it held its core {:.3} ms without finishing",
                    ms(asked),
                    ms(seen),
                    ms(work),
                    ms(waited),
                    ms(held)
                ),
            ));
        }
    }
    out
}

/// When the overrun of `task`'s job `job` was detected (ns since the run's start).
fn detection(run: &TableRun, task: usize, job: u64) -> Option<u64> {
    (run.mode_changes.iter())
        .find(|c| (c.triggers.iter()).any(|t| (t.task, t.number) == (task, job)))
        .map(|c| c.detected_at)
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
