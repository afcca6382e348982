//! Real table-driven runs (SCHED_FIFO threads on this machine's cores): cyclic instantaneous migrations without deadlock or double execution, simultaneous
//! overruns raising the mode once, the return to level 0 at the hyper-period, and a
//! mixed-criticality DAG run with one injected overrun. Every run is bounded (whole
//! hyper-periods, watchdog); no latency is asserted, only behaviour. A run is made again only
//! when what disturbed its scenario is time the host took from its cores (the run's stalls and
//! steal, printed); a disturbance nothing of the host explains fails the test.
//!
//! Needs real-time privilege and two CPUs: each test is ignored by a plain `cargo test` and
//! fails, saying what is missing, under `--include-ignored` without them (CI runs them as root).

use kairos_model::{Dag, Duration, Interval, LevelTable, McSystem, McTask, TableSet};
use kairos_os::sched;

mod common;
use common::table::{run_scenario, Anomaly};
use common::{require_cpus, require_rt};
use kairos_rt::table::{run_tables_detailed, scenarios, TableRun, TableRunConfig};
use kairos_trace::TraceEvent;

const MS: u64 = 1_000_000;

fn run(system: &McSystem, tables: &TableSet, config: TableRunConfig) -> TableRun {
    run_scenario(system, tables, config, &|_| Vec::new())
}

fn raises(run: &TableRun) -> Vec<(u64, usize, usize)> {
    run.result
        .trace
        .events
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::ModeChange { at, from, to } => Some((at.as_nanos(), from, to)),
            _ => None,
        })
        .collect()
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn two_task_cyclic_migrations_twenty_thousand_times() {
    // Two tasks swap cores every 200 us: a cyclic instantaneous migration at every boundary
    // while the jobs have work left. Each window begins with a worker woken on a core it just
    // left, which costs a 200 us window a tenth to a third of it here: jobs asked for 70 % of
    // the hyper-period's budget held their cores all of it, missed, and kept them busy past
    // real-time throttling's 95 % (the kernel's "RT throttling activated"). Half the budget
    // leaves the cores idle a quarter of the time. How many boundaries find work left depends
    // on the machine, so runs of 30 hyper-periods of 20 ms repeat until 20,000 migrations
    // happened (about 4,100 a run here), at most 40 runs (24 s).
    const WANTED: u64 = 20_000;
    let mut migrations = 0;
    let mut runs = 0;
    while migrations < WANTED && runs < 40 {
        let (system, tables) = scenarios::cyclic(2, 2, 200_000, 100);
        let mut config = TableRunConfig::new(30 * 20 * MS);
        config.work_fraction = 0.5;
        let run = run(&system, &tables, config);
        assert_eq!(run.result.mode_changes, 0);
        migrations += run.result.migrations;
        runs += 1;
    }
    assert!(
        migrations >= WANTED,
        "only {migrations} migrations in {runs} runs"
    );
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn simultaneous_overruns_on_both_cores_raise_the_mode_once() {
    let (system, tables) = scenarios::twin_overruns(2 * MS);
    let periods = 5;
    let mut config = TableRunConfig::new(periods * 16 * MS);
    config.work_fraction = 0.6;
    // Both tasks overrun their LO budget (but not their MID one) in every hyper-period.
    config.overruns = (0..periods)
        .flat_map(|j| [format!("tw/x@{j}:MID"), format!("tw/y@{j}:MID")])
        .map(|s| s.parse().unwrap())
        .collect();
    let run = run(&system, &tables, config);
    let up: Vec<_> = raises(&run).into_iter().filter(|r| r.2 > r.1).collect();
    assert_eq!(
        up.len() as u64,
        periods,
        "one raise per hyper-period: {up:?}"
    );
    assert!(
        up.iter().all(|&(_, from, to)| (from, to) == (0, 1)),
        "{up:?}"
    );
    assert_eq!(
        run.overruns_absorbed, periods,
        "the second detection changes nothing"
    );
    assert_eq!(run.misses_per_level, vec![0, 0, 0]);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn the_mode_returns_to_the_lowest_level_at_the_hyper_period() {
    let (system, tables) = scenarios::mode_change(4, 2, MS);
    let h = tables.hyperperiod;
    // Five hyper-periods where three would show it: jobs of hyper-periods 1 and 2 are checked,
    // and the run's end then lies two hyper-periods after them, beyond a host stall of a few ms.
    let mut config = TableRunConfig::new(5 * h);
    config.work_fraction = 0.6;
    config.overruns = vec!["mc/t0@0".parse().unwrap()];
    let run = run(&system, &tables, config);
    let changes = raises(&run);
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!((changes[0].1, changes[0].2), (0, 1));
    assert_eq!(changes[1], (h, 1, 0));
    // The LO task discarded in hyper-period 0 runs again in hyper-period 1.
    let lo = run
        .result
        .jobs
        .iter()
        .filter(|j| j.task == 3)
        .collect::<Vec<_>>();
    assert!(lo[0].discarded.is_some());
    assert!(lo[1].completion.is_some() && lo[2].completion.is_some());
}

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// One MC-DAG `g` (a -> b, both HI; c and d LO) on two cores, 20 ms period.
fn mc_dag() -> (McSystem, TableSet) {
    let task = |name: &str, wcet: &[u64]| McTask {
        name: name.into(),
        wcet: wcet.iter().map(|&w| ms(w)).collect(),
    };
    let system = McSystem {
        name: Some("dag".into()),
        cores: 2,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g".into(),
            period: ms(20),
            deadline: ms(20),
            tasks: vec![
                task("a", &[2, 6]),
                task("b", &[2, 6]),
                task("c", &[3]),
                task("d", &[2]),
            ],
            edges: vec![(0, 1), (2, 3)],
        }],
    };
    let iv = |task: &str, core, start: u64, end: u64| Interval {
        task: format!("g/{task}").into(),
        job: 0,
        core,
        start: start * MS,
        end: end * MS,
    };
    let tables = TableSet {
        unit: "ns".into(),
        hyperperiod: 20 * MS,
        cores: 2,
        levels: vec!["LO".into(), "HI".into()],
        policy: None,
        tables: vec![
            LevelTable {
                level: "LO".into(),
                // b may move from core 0 to core 1 at 3 ms (an instantaneous migration).
                intervals: vec![
                    iv("a", 0, 0, 2),
                    iv("b", 0, 2, 3),
                    iv("b", 1, 3, 4),
                    iv("c", 1, 0, 3),
                    iv("d", 0, 3, 5),
                ],
            },
            LevelTable {
                level: "HI".into(),
                intervals: vec![iv("a", 0, 0, 6), iv("b", 1, 6, 12)],
            },
        ],
    };
    (system, tables)
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn an_mc_dag_run_with_one_overrun_changes_mode_and_meets_high_deadlines() {
    let (system, tables) = mc_dag();
    let mut config = TableRunConfig::new(3 * 20 * MS);
    // Jobs execute 40 % of their demand: a wide margin for this shared machine's hiccups,
    // while the overrun (3x the LO budget, at 40 %) still exceeds the LO budget.
    config.work_fraction = 0.4;
    config.overruns = vec!["g/a@1".parse().unwrap()];
    // The scenario needs c@1 (1.2 ms of work from 20 ms, alone on its core) done before the
    // raise at 22 ms; a stall of the host over that stretch can delay it past the raise:
    // another scenario. So can a core the host slowed without stopping it (seen here: started
    // at 20.2 ms, unfinished at 22 ms, no stall), which the slowed-core evidence tells from a
    // late start of the schedule's.
    let c_late = |run: &TableRun| -> Vec<Anomaly> {
        let c = (run.result.jobs.iter()).find(|j| (j.task, j.job) == (2, 1));
        match c
            .and_then(|j| j.completion)
            .is_some_and(|done| done < 22 * MS)
        {
            true => Vec::new(),
            false => vec![Anomaly {
                what: format!(
                    "c@1 did not finish by 22 ms (started {:?} ns, completed {:?}, discarded {:?})",
                    c.and_then(|j| j.start),
                    c.and_then(|j| j.completion),
                    c.and_then(|j| j.discarded)
                ),
                stretch: Some((20 * MS, 22 * MS)),
                job: Some((2, 1, 22 * MS)),
            }],
        }
    };
    let run = run_scenario(&system, &tables, config, &c_late);
    let changes = raises(&run);
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!((changes[0].1, changes[0].2), (0, 1));
    // The raise is a@1's overrun, detected at the end of its last LO interval (20 + 2 ms).
    let cause = &run.mode_changes[0];
    let trigger = cause.triggers[0];
    assert_eq!(
        (trigger.task, trigger.number, cause.nominal),
        (0, 1, 22 * MS)
    );
    assert!(changes[0].0 >= cause.nominal);
    assert_eq!(changes[1], (40 * MS, 1, 0));
    assert_eq!(run.misses_per_level[1], 0, "{:?}", run.result.notes);
    let r = &run.result;
    assert_eq!(r.jobs_released, 12);
    // d@1 had not started when the mode rose: discarded. c@1 (40 % of its budget) was done.
    let discarded: Vec<_> = r.jobs.iter().filter(|j| j.discarded.is_some()).collect();
    assert_eq!(
        discarded
            .iter()
            .map(|j| (j.task, j.job))
            .collect::<Vec<_>>(),
        vec![(3, 1)]
    );
    assert_eq!(r.jobs_completed, 11);
    assert_eq!(r.deadline_misses, 0);
    assert!(r
        .trace
        .events
        .iter()
        .any(|e| matches!(e, TraceEvent::Discard { .. })));
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_stopped_run_ends_cleanly_and_leaves_no_real_time_thread() {
    let _serial = common::serial();
    require_rt();
    require_cpus(2);
    let (system, tables) = scenarios::cyclic(2, 2, 200_000, 100);
    let control = kairos_rt::watchdog::RunControl::new();
    let mut config = TableRunConfig::new(30_000 * MS);
    config.control = Some(control.clone());
    let runner = std::thread::spawn(move || run_tables_detailed(&system, &tables, &config));
    std::thread::sleep(std::time::Duration::from_millis(300));
    control.request_stop("stopped by the test");
    let run = runner.join().unwrap().expect("the run starts");
    assert_eq!(
        run.result.stopped_by.as_deref(),
        Some("stopped by the test")
    );
    assert!(run.result.ran_ns < 10_000 * MS);
    assert!(sched::rt_threads_of_self().is_empty());
    assert_eq!(run.overlaps, 0);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn every_job_executes_the_work_the_simulator_draws_for_it() {
    // Work drawn uniformly from a wide range, with random overruns, from one stream in release
    // order: a job given another job's draw (a draw out of order, or a record mixed up) shows
    // as executed time far from its own draw. In the DAG's LO table `a` and `c` start every
    // hyper-period, so their jobs are drawn ahead of `b`'s at each boundary's promise.
    let (system, tables) = mc_dag();
    let h = tables.hyperperiod;
    let mut config = TableRunConfig::new(4 * h);
    config.work_fraction = 0.6;
    config.seed = 11;
    config.overrun_probability = 0.3;
    config.execution_times = kairos_policy::table::TableExecModel::Uniform { min_fraction: 0.1 };
    let run = run(&system, &tables, config.clone());
    let plan = kairos_policy::table::TablePlan::new(&system, &tables).unwrap();
    let spec = kairos_policy::table::DemandSpec {
        execution_times: config.execution_times,
        overruns: Vec::new(),
        overrun_probability: config.overrun_probability,
        seed: config.seed,
    };
    let drawn = kairos_policy::table::job_demands(&plan, &spec, 4 * h).unwrap();
    let mut executed = std::collections::HashMap::new();
    for (_, task, job, start, end) in run.result.trace.segments() {
        *executed.entry((task, job)).or_insert(0u64) += (end - start).as_nanos();
    }
    // The calibrated work each job's worker counted, segment by segment.
    let mut worked = std::collections::HashMap::new();
    for s in &run.result.segments {
        let work = s.worker_time.expect("user dispatch counts work").work;
        *worked.entry((s.task, s.job)).or_insert(0u64) += work.as_nanos();
    }
    let mut checked = 0;
    // Every job's executed time over its share of its draw, for the message: one job far from
    // the others is a draw mixed up, all of them off together a calibration off.
    let ratios: Vec<String> = (run.result.jobs.iter().filter(|j| j.completion.is_some()))
        .map(|j| {
            let want = drawn[j.task][j.job as usize] as f64 * 0.6;
            let got = executed[&(j.task, j.job)] as f64;
            format!("{}#{} {:.3}", j.task, j.job, got / want)
        })
        .collect();
    let rates: Vec<f64> = (run.result.calibration.per_core.iter())
        .map(|c| c.iterations_per_us)
        .collect();
    for job in run.result.jobs.iter().filter(|j| j.completion.is_some()) {
        let want = (drawn[job.task][job.job as usize] as f64 * 0.6) as u64;
        let got = executed[&(job.task, job.job)];
        let work = worked[&(job.task, job.job)];
        // The work its worker counted is its draw (the dispatcher rounds where this floors):
        // exact, whatever the host did. Its wall time holds that work at the calibrated speed,
        // a few percent off; only a lower bound holds on a host that can slow a core (seen
        // here: a job held its core 2.5 times its work, no stall, no steal).
        assert!(
            work.abs_diff(want) <= 1 && got + want / 10 + 20_000 >= want,
            "job {}#{}: worked {work} ns in {got} ns, drawn {want} ns (every job's executed over \
             drawn: {}; calibration, iterations per us: {rates:?})",
            job.task,
            job.job,
            ratios.join(", ")
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} jobs completed");
}
