//! Table-driven runs made until they are the scenario a test describes: a run the host
//! disturbed is made again only when its lost time explains the disturbance.

mod jobs;

use super::{lost_time, require_cpus, require_rt, serial, stalls_over, stole};
use jobs::{job_figures, slowed_core, unplanned_overruns, Asked};
use kairos_model::{McSystem, TableSet};
use kairos_os::sched;
use kairos_rt::dispatcher::TIMER_TO_HANDLER;
use kairos_rt::measure::RunResult;
use kairos_rt::stalls::StallWatchConfig;
use kairos_rt::table::{run_tables_detailed, TableRun, TableRunConfig};

/// A timer this late means the core was taken from the dispatcher during the run: its
/// behaviour is then still right, but not the scenario the test describes (a stalled core sees
/// a later boundary first).
const LATE_TIMER_NS: u64 = 1_000_000;

/// The stall watchers' sure sight: a hole of a grid step plus the floor always holds one of
/// their wake-ups late past the floor, so a timer this late with no stall seen anywhere is not
/// the host's doing. A shorter hole may fall between two wake-ups unseen (the default grid:
/// 1 ms steps, 0.5 ms floor, so 1.5 ms).
fn late_timer_ns() -> u64 {
    let watch = StallWatchConfig::default();
    (watch.period + watch.floor).as_nanos()
}

/// Runs of a scenario the host disturbed, at most. Three were too few on a noisy afternoon:
/// the return-to-level-0 scenario (20 ms runs) was disturbed three times in a row, by stalls
/// of 1.2-1.7 ms on both CPUs at every hyper-period and then by a slowed core, each printed.
const ATTEMPTS: usize = 5;

/// What makes a run another scenario than the test's: the stretch of the run (ns since its
/// start) in which the host would have had to take time to cause it, when known, and the job
/// it held up (task, job, when that was seen), when it is one job's: a core that ran that job
/// slower than calibrated, without a stall, explains it too.
pub struct Anomaly {
    pub what: String,
    pub stretch: Option<(u64, u64)>,
    pub job: Option<(usize, u64, u64)>,
}

/// Runs the scenario until it is the one the test describes: a run the host disturbed (an
/// anomaly of the run or of `scenario`, explained by the run's stalls, steal or a slowed core,
/// printed) is made again, at most [`ATTEMPTS`] times; an anomaly nothing of the host
/// explains fails.
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
        let asked = Asked::new(&run, &config, system, tables);
        let mut anomalies = anomalies(&run, &asked);
        anomalies.extend(scenario(&run));
        match host_evidence(&run, &asked, &anomalies) {
            Err(what) => {
                panic!("{what}")
            }
            Ok(Some(evidence)) if attempt < ATTEMPTS => {
                let text = format!(
                    "attempt {attempt}: the host disturbed the scenario: {evidence}; again"
                );
                crate::common::tell_rerun(&text);
                attempt += 1;
            }
            Ok(evidence) => {
                if let Some(evidence) = evidence {
                    let text =
                        format!("attempt {attempt}, the last: the host disturbed it: {evidence}");
                    crate::common::tell_rerun(&text);
                }
                return run;
            }
        }
    }
}

/// The run's own anomalies: jobs that overran unasked (in their windows; a miss from where
/// its backlog began), misses the attribution gives the host (from there too), a dispatcher
/// timer a millisecond late (its instant is not recorded: anywhere).
fn anomalies(run: &TableRun, asked: &Asked) -> Vec<Anomaly> {
    let r = &run.result;
    let window = |task: usize, job: u64| {
        let j = (r.jobs.iter()).find(|j| (j.task, j.job) == (task, job));
        j.map(|j| (j.release, j.deadline))
    };
    // A missed job's stretch is the one the attribution weighed: from where its backlog began.
    let backlog = |task: usize, job: u64| {
        let cause = (r.miss_causes.iter()).find(|m| (m.task, m.job) == (task, job));
        let (release, deadline) = window(task, job)?;
        Some((
            cause.map_or(release, |m| m.backlog_from.as_nanos()),
            deadline,
        ))
    };
    let name = |task: usize, job: u64| format!("{}@{job}", r.trace.task_names[task]);
    let unplanned = unplanned_overruns(run, asked);
    let mut found: Vec<Anomaly> = (unplanned.iter())
        .map(|u| Anomaly {
            what: u.what(&name(u.task, u.job)),
            stretch: match u.missed {
                true => backlog(u.task, u.job),
                false => window(u.task, u.job),
            },
            job: Some((u.task, u.job, u.seen)),
        })
        .collect();
    // A host miss not already named above.
    let named = |task: usize, job: u64| unplanned.iter().any(|u| (u.task, u.job) == (task, job));
    found.extend(
        (r.miss_causes.iter())
            .filter(|m| m.stall.is_some() && !named(m.task, m.job))
            .map(|m| Anomaly {
                what: format!("{} missed its deadline", name(m.task, m.job)),
                stretch: backlog(m.task, m.job),
                job: None,
            }),
    );
    // A timer a millisecond late disturbs the scenario; past the watchers' sure sight it must
    // have left a stall, below it a stall may have gone unseen (then the run stands as it is).
    let worst_timer = (r.histograms.get(TIMER_TO_HANDLER)).map_or(0, |h| h.summary.max);
    let seen = !r.stall_intervals.is_empty();
    if worst_timer >= late_timer_ns() || (worst_timer >= LATE_TIMER_NS && seen) {
        found.push(Anomaly {
            what: format!("a dispatcher timer was {worst_timer} ns late"),
            stretch: None,
            job: None,
        });
    }
    found
}

/// The host's time taken over every anomaly, in text (`None` without anomalies); `Err` names
/// an anomaly with no slowed core ([`slowed_core`]) and no stall over its stretch (or, stretch
/// unknown, no stall and no steal at all) to explain it, with its job's figures and the run's
/// lost time, so that the failure says where the time went.
fn host_evidence(
    run: &TableRun,
    asked: &Asked,
    anomalies: &[Anomaly],
) -> Result<Option<String>, String> {
    let r: &RunResult = &run.result;
    let mut stalls = Vec::new();
    let mut slow = String::new();
    for a in anomalies {
        if let Some(evidence) = a.job.and_then(|job| slowed_core(run, asked, job)) {
            slow += &format!("{evidence}; ");
            continue;
        }
        let over = match a.stretch {
            Some((from, to)) => stalls_over(r, from, to),
            None => r.stall_intervals.clone(),
        };
        if over.is_empty() && (a.stretch.is_some() || !stole(r)) {
            let figures = a.job.map(|job| job_figures(run, asked, job) + "; ");
            let lost = lost_time(r, &r.stall_intervals);
            return Err(format!(
                "{}, and no stall, steal or slowed core of the host explains it: {}{lost}",
                a.what,
                figures.unwrap_or_default()
            ));
        }
        stalls.extend(over);
    }
    stalls.sort_by_key(|s| (s.start, s.core));
    stalls.dedup();
    let what: Vec<&str> = anomalies.iter().map(|a| a.what.as_str()).collect();
    Ok((!what.is_empty()).then(|| {
        let lost = lost_time(r, &stalls);
        format!("{}; {slow}{lost}", what.join(", "))
    }))
}
