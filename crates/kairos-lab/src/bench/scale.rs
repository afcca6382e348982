//! Analysis and simulation at scale: every default schedulability test of `kairos analyze` on
//! a large generated set (10,000 tasks on 64 cores by default), one row per test, and G-EDF
//! simulated on a larger one (100,000 tasks, 1 s). Both sets are drawn with UUniFast-discard
//! (Bini & Buttazzo, "Measuring the performance of schedulability tests", Real-Time Systems
//! 2005; Davis & Burns 2009 for the discard) at total utilization half the cores, periods
//! uniform in 10-100 ms, implicit deadlines, a 1 us grid, from the request's seed: the sets of
//! `cargo bench --bench scale`, so both measure the same thing.
//!
//! Each figure is one run's wall time (the analysis of 10,000 tasks takes about a minute: a
//! median of several is the criterion benchmark's job). The simulation's events are the
//! instants at which the engine asked the policy for a decision (its scheduling points):
//! every instant where a job was released or finished, or a deadline passed.

use crate::text::Column;
use crate::Failure;
use kairos_analysis::{registry, tasks_of};
use kairos_gen::{generate_with_uunifast, make_workload, seeded, DeadlineDist, PeriodDist};
use kairos_model::{Duration, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};
use serde::Serialize;
use std::time::Instant as WallClock;

/// The most tasks each part takes: past them one run takes hours (the global response-time
/// tests are quadratic in the tasks) or gigabytes.
pub const MAX_ANALYSIS_TASKS: usize = 100_000;
pub const MAX_SIMULATION_TASKS: usize = 1_000_000;
/// The longest simulated time.
pub const MAX_DURATION: Duration = Duration::from_secs(10);

/// What to measure.
#[derive(Clone, Debug)]
pub struct Request {
    /// Tasks of the analysed set.
    pub analysis_tasks: usize,
    /// Tasks of the simulated set.
    pub simulation_tasks: usize,
    pub cores: usize,
    /// Simulated time.
    pub duration: Duration,
    pub seed: u64,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            analysis_tasks: 10_000,
            simulation_tasks: 100_000,
            cores: 64,
            duration: Duration::from_secs(1),
            seed: 1,
        }
    }
}

/// What `kairos bench scale` measured (the `--json` form; the text form says the same).
#[derive(Debug, Serialize)]
pub struct ScaleReport {
    pub cores: usize,
    pub seed: u64,
    pub analysis: AnalysisTimes,
    pub simulation: SimulationTimes,
}

#[derive(Debug, Serialize)]
pub struct AnalysisTimes {
    pub tasks: usize,
    pub utilization: f64,
    pub tests: Vec<TestTime>,
    pub total_s: f64,
}

/// One default test's verdict and wall time.
#[derive(Debug, Serialize)]
pub struct TestTime {
    pub test: String,
    pub schedulable: bool,
    pub wall_s: f64,
}

#[derive(Debug, Serialize)]
pub struct SimulationTimes {
    pub tasks: usize,
    pub utilization: f64,
    pub policy: String,
    pub duration_ns: u64,
    pub jobs: u64,
    /// Scheduling points: the instants the engine decided at.
    pub events: u64,
    pub wall_s: f64,
    pub ns_per_event: f64,
    pub jobs_per_s: f64,
    /// This process's peak resident memory (VmHWM) after the simulation, which ran first.
    pub peak_rss_kb: Option<u64>,
}

/// Checks `request` against the caps.
pub fn check(request: &Request) -> Result<(), Failure> {
    let bounded = |what: &str, value: usize, max: usize| match value {
        0 => Err(Failure::bad_input(format!("{what} must be at least 1"))),
        v if v > max => Err(Failure::bad_input(format!("{what} must be at most {max}"))),
        _ => Ok(()),
    };
    bounded("--tasks", request.analysis_tasks, MAX_ANALYSIS_TASKS)?;
    bounded(
        "--sim-tasks",
        request.simulation_tasks,
        MAX_SIMULATION_TASKS,
    )?;
    bounded("--cores", request.cores, kairos_model::decode::MAX_CORES)?;
    if request.duration.is_zero() || request.duration > MAX_DURATION {
        return Err(Failure::bad_input(format!(
            "--duration must be more than 0 and at most {MAX_DURATION}"
        )));
    }
    Ok(())
}

/// Measures `request`; `stage` is told what starts (for a progress display). The simulation
/// runs first, so that the peak memory read after it is its own and its set's.
pub fn run(request: &Request, stage: &mut dyn FnMut(&str)) -> Result<ScaleReport, Failure> {
    check(request)?;
    stage(&format!(
        "simulating {} tasks for {}",
        request.simulation_tasks, request.duration
    ));
    let simulation = simulate_set(request)?;
    let analysis = analyze_set(request, stage)?;
    Ok(ScaleReport {
        cores: request.cores,
        seed: request.seed,
        analysis,
        simulation,
    })
}

/// `tasks` tasks of total utilization half of `cores`, drawn with `seed`.
pub fn generated_set(tasks: usize, cores: usize, seed: u64) -> Result<Workload, Failure> {
    let utilization = cores as f64 / 2.0;
    let drawn = generate_with_uunifast(
        &mut seeded(seed),
        tasks,
        utilization,
        PeriodDist::UniModerate,
        DeadlineDist::Implicit,
        Duration::from_micros(1),
        1.0,
    )
    .map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(make_workload(Some(format!("scale-{tasks}")), cores, drawn))
}

fn simulate_set(request: &Request) -> Result<SimulationTimes, Failure> {
    let workload = generated_set(request.simulation_tasks, request.cores, request.seed)?;
    let kind = PolicyKind::GlobalEdf;
    let mut policy = kind.build(PriorityOrder::Auto);
    let config = SimConfig {
        duration: request.duration,
        seed: request.seed,
        ..SimConfig::default()
    };
    let start = WallClock::now();
    let outcome = simulate(&workload, policy.as_mut(), &config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let wall_s = start.elapsed().as_secs_f64();
    let metrics = &outcome.metrics;
    let events = metrics.scheduling_points;
    Ok(SimulationTimes {
        tasks: workload.tasks.len(),
        utilization: workload.total_utilization(),
        policy: kind.cli_name().to_string(),
        duration_ns: request.duration.as_nanos(),
        jobs: metrics.jobs_released,
        events,
        wall_s,
        ns_per_event: wall_s * 1e9 / events.max(1) as f64,
        jobs_per_s: metrics.jobs_released as f64 / wall_s,
        peak_rss_kb: super::simulator::peak_rss_kb(),
    })
}

fn analyze_set(request: &Request, stage: &mut dyn FnMut(&str)) -> Result<AnalysisTimes, Failure> {
    let workload = generated_set(request.analysis_tasks, request.cores, request.seed)?;
    let tasks = tasks_of(&workload);
    let selection = registry::select("default", request.cores).map_err(Failure::bad_input)?;
    let mut tests = Vec::with_capacity(selection.run.len());
    for test in selection.run {
        stage(&format!("analysing {} tasks: {}", tasks.len(), test.name));
        let start = WallClock::now();
        let verdict = test.run(&tasks, request.cores);
        tests.push(TestTime {
            test: test.name.clone(),
            schedulable: verdict.schedulable,
            wall_s: start.elapsed().as_secs_f64(),
        });
    }
    Ok(AnalysisTimes {
        tasks: tasks.len(),
        utilization: workload.total_utilization(),
        total_s: tests.iter().map(|t| t.wall_s).sum(),
        tests,
    })
}

impl ScaleReport {
    /// The report in text, as `kairos bench scale` prints it.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let (a, s) = (&self.analysis, &self.simulation);
        let mut out = format!(
            "analysis: {} tasks (utilization {:.3}) on {} cores, seed {}\n",
            a.tasks, a.utilization, self.cores, self.seed
        );
        let name = Column::fitting(5, a.tests.iter().map(|t| t.test.as_str()));
        let _ = writeln!(out, "  {} {:>12}  verdict", name.left("test"), "wall s");
        for t in &a.tests {
            let verdict = match t.schedulable {
                true => "schedulable",
                false => "not shown schedulable",
            };
            let _ = writeln!(
                out,
                "  {} {:>12.3}  {verdict}",
                name.left(&t.test),
                t.wall_s
            );
        }
        let _ = writeln!(out, "  {} {:>12.3}", name.left("total"), a.total_s);
        let _ = writeln!(
            out,
            "simulation: {} tasks (utilization {:.3}) on {} cores, {} for {}",
            s.tasks,
            s.utilization,
            self.cores,
            s.policy,
            Duration::from_nanos(s.duration_ns)
        );
        let _ = writeln!(
            out,
            "  {} jobs, {} events in {:.3} s: {:.0} ns per event, {:.0} jobs/s",
            s.jobs, s.events, s.wall_s, s.ns_per_event, s.jobs_per_s
        );
        let _ = match s.peak_rss_kb {
            Some(kb) => writeln!(out, "  peak RSS {:.1} MB", kb as f64 / 1024.0),
            None => writeln!(out, "  peak RSS unavailable (no /proc/self/status)"),
        };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_beyond_the_caps_are_refused_before_anything_runs() {
        let too_many = Request {
            simulation_tasks: MAX_SIMULATION_TASKS + 1,
            ..Request::default()
        };
        let err = run(&too_many, &mut |_| panic!("nothing starts")).unwrap_err();
        assert!(
            err.to_string().contains("--sim-tasks must be at most"),
            "{err}"
        );
        let no_cores = Request {
            cores: 0,
            ..Request::default()
        };
        assert!(check(&no_cores).is_err());
        let long = Request {
            duration: MAX_DURATION + Duration::from_nanos(1),
            ..Request::default()
        };
        assert!(check(&long).is_err());
    }

    #[test]
    fn a_small_run_reports_every_default_test_and_the_simulations_counts() {
        let request = Request {
            analysis_tasks: 20,
            simulation_tasks: 40,
            cores: 4,
            duration: Duration::from_millis(100),
            seed: 3,
        };
        let mut stages = Vec::new();
        let report = run(&request, &mut |s| stages.push(s.to_string())).expect("runs");
        let default = registry::select("default", 4).expect("the default list");
        let names: Vec<_> = default.run.iter().map(|t| t.name.clone()).collect();
        let timed: Vec<_> = report
            .analysis
            .tests
            .iter()
            .map(|t| t.test.clone())
            .collect();
        assert_eq!(timed, names);
        assert_eq!(stages.len(), 1 + names.len());
        // The same set simulated directly releases the same jobs.
        let workload = generated_set(40, 4, 3).expect("valid");
        let mut policy = PolicyKind::GlobalEdf.build(PriorityOrder::Auto);
        let config = SimConfig {
            duration: request.duration,
            seed: 3,
            ..SimConfig::default()
        };
        let direct = simulate(&workload, policy.as_mut(), &config).expect("simulates");
        assert_eq!(report.simulation.jobs, direct.metrics.jobs_released);
        assert_eq!(report.simulation.events, direct.metrics.scheduling_points);
        assert!(report.text().contains("simulation: 40 tasks"));
    }
}
