//! Simulator throughput (jobs per second of wall time) and peak memory, and the same figures
//! for SimSo measured in the same run when its Python is available.
//!
//! Throughput is the median over `repeat` runs in this process. Peak memory is measured by the
//! caller in a fresh process per duration (a simulation's peak cannot be told apart from the
//! process's own otherwise), so a 10 s and a 100 s simulation are compared on equal terms.

use crate::Failure;
use kairos_model::{Arrival, Duration, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant as WallClock;

/// kairos' SimSo runner: reads a workload as JSON on stdin, prints SimSo's counts and speed.
const SIMSO_RUNNER: &str = include_str!("../../../../scripts/simso_run.py");

/// The SimSo side-by-side workload (20 tasks, 4 cores, U = 3), embedded.
pub const SIMSO_WORKLOAD: &str = include_str!("../../../../examples/simso-n20-m4-u3.toml");

/// What to measure.
pub struct Request<'a> {
    pub workload: &'a Workload,
    /// A policy of `kairos_policy::registry` (SimSo runs beside `gedf` only).
    pub policy: &'a str,
    pub duration: Duration,
    /// Timed runs; the median is reported.
    pub repeat: usize,
    /// Python with SimSo 0.8.5 installed (default: ~/.cache/simso-venv/bin/python if present).
    pub simso_python: Option<PathBuf>,
    /// SimSo runner script (default: kairos' own, embedded).
    pub simso_script: Option<PathBuf>,
}

/// Measures `request`; `peak_rss(duration)` gives the peak memory in kB and the jobs of one
/// simulation of that duration in a fresh process, if it can be measured.
pub fn run(
    request: &Request,
    peak_rss: &mut dyn FnMut(Duration) -> Option<(u64, u64)>,
) -> Result<BenchReport, Failure> {
    let kind = kairos_policy::registry::of_tasks(request.policy).map_err(Failure::bad_input)?;
    let repeat = request.repeat.max(1);
    let medians = throughput(request.workload, kind, request.duration, repeat)?;
    let kairos_jobs_per_s = medians.jobs as f64 / medians.wall_s;
    let peak_rss = [1u64, 10]
        .iter()
        .map(|&factor| {
            let d = Duration::from_nanos(request.duration.as_nanos() * factor);
            let measured = peak_rss(d);
            PeakRss {
                duration_ns: d.as_nanos(),
                kb: measured.map(|(kb, _)| kb),
                jobs: measured.map(|(_, jobs)| jobs),
            }
        })
        .collect();
    Ok(BenchReport {
        policy: request.policy.to_string(),
        duration_ns: request.duration.as_nanos(),
        jobs: medians.jobs,
        median_wall_s: medians.wall_s,
        repeat,
        jobs_per_s: kairos_jobs_per_s,
        peak_rss,
        simso: simso_side(request, kairos_jobs_per_s),
    })
}

/// What `kairos bench` measured (the `--json` form; the text form says the same).
#[derive(Serialize)]
pub struct BenchReport {
    pub policy: String,
    pub duration_ns: u64,
    pub jobs: u64,
    pub median_wall_s: f64,
    pub repeat: usize,
    pub jobs_per_s: f64,
    pub peak_rss: Vec<PeakRss>,
    pub simso: SimsoSide,
}

#[derive(Serialize)]
pub struct PeakRss {
    pub duration_ns: u64,
    pub kb: Option<u64>,
    pub jobs: Option<u64>,
}

/// SimSo's side of the comparison: its figures, or why it was not run.
#[derive(Serialize)]
pub struct SimsoSide {
    pub ran: bool,
    pub jobs: Option<u64>,
    pub jobs_per_s: Option<f64>,
    pub kairos_speedup: Option<f64>,
    pub note: String,
}

impl SimsoSide {
    fn not_run(note: impl Into<String>) -> Self {
        SimsoSide {
            ran: false,
            jobs: None,
            jobs_per_s: None,
            kairos_speedup: None,
            note: note.into(),
        }
    }
}

impl BenchReport {
    /// The report in text, as `kairos bench` prints it.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "kairos {}: {} jobs in {} simulated; median wall {:.3} ms over {} runs -> {:.0} jobs/s",
            self.policy,
            self.jobs,
            Duration::from_nanos(self.duration_ns),
            self.median_wall_s * 1e3,
            self.repeat,
            self.jobs_per_s
        );
        for rss in &self.peak_rss {
            let d = Duration::from_nanos(rss.duration_ns);
            let _ = match (rss.kb, rss.jobs) {
                (Some(kb), Some(jobs)) => writeln!(
                    out,
                    "peak RSS simulating {d}: {:.1} MB ({jobs} jobs)",
                    kb as f64 / 1024.0
                ),
                _ => writeln!(
                    out,
                    "peak RSS simulating {d}: unavailable (no /proc/self/status)"
                ),
            };
        }
        let simso = &self.simso;
        let _ = match (simso.jobs, simso.jobs_per_s, simso.kairos_speedup) {
            (Some(jobs), Some(rate), Some(speedup)) => writeln!(
                out,
                "SimSo 0.8.5 EDF: {jobs} jobs; {rate:.0} jobs/s -> kairos is {speedup:.0}x faster (same run, same machine)"
            ),
            _ => writeln!(out, "SimSo: {}", simso.note),
        };
        out
    }
}

struct Medians {
    jobs: u64,
    wall_s: f64,
}

/// One simulation of `duration`; the jobs it released.
pub fn simulate_once(
    workload: &Workload,
    kind: PolicyKind,
    duration: Duration,
) -> Result<u64, Failure> {
    let mut policy = kind.build(PriorityOrder::Auto);
    let config = SimConfig {
        duration,
        ..SimConfig::default()
    };
    let outcome = simulate(workload, policy.as_mut(), &config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(outcome.metrics.jobs_released)
}

fn throughput(
    workload: &Workload,
    kind: PolicyKind,
    duration: Duration,
    repeat: usize,
) -> Result<Medians, Failure> {
    let mut walls = Vec::with_capacity(repeat);
    let mut jobs = 0;
    for _ in 0..repeat {
        let start = WallClock::now();
        jobs = simulate_once(workload, kind, duration)?;
        walls.push(start.elapsed().as_secs_f64());
    }
    walls.sort_by(f64::total_cmp);
    Ok(Medians {
        jobs,
        wall_s: walls[walls.len() / 2],
    })
}

/// VmHWM of this process in kB.
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn simso_python(request: &Request) -> Option<PathBuf> {
    request.simso_python.clone().or_else(|| {
        let default = PathBuf::from(std::env::var_os("HOME")?).join(".cache/simso-venv/bin/python");
        default.exists().then_some(default)
    })
}

/// SimSo's global EDF on the same workload, when it can run it: periodic tasks, no overheads.
fn simso_side(request: &Request, kairos_jobs_per_s: f64) -> SimsoSide {
    if request.policy != "gedf" {
        return SimsoSide::not_run("not run (the comparison is defined for gedf, SimSo's EDF)");
    }
    if (request.workload)
        .tasks
        .iter()
        .any(|t| t.arrival != Arrival::Periodic)
    {
        return SimsoSide::not_run("not run (SimSo's comparison needs periodic tasks)");
    }
    let Some(python) = simso_python(request) else {
        return SimsoSide::not_run(
            "not run (no --simso-python and no ~/.cache/simso-venv; set-up in docs/bench.md)",
        );
    };
    match run_simso(request, &python) {
        Ok((jobs, rate)) => SimsoSide {
            ran: true,
            jobs: Some(jobs),
            jobs_per_s: Some(rate),
            kairos_speedup: Some(kairos_jobs_per_s / rate),
            note: format!("SimSo run by {}", python.display()),
        },
        Err(reason) => SimsoSide::not_run(reason),
    }
}

/// The workload as SimSo's runner reads it (times in ms, SimSo's unit).
fn simso_input(workload: &Workload, duration: Duration) -> serde_json::Value {
    let ms = |d: Duration| d.as_nanos() as f64 / 1e6;
    let tasks: Vec<_> = workload
        .tasks
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name, "period_ms": ms(t.period), "deadline_ms": ms(t.deadline),
                "wcet_ms": ms(t.wcet), "offset_ms": ms(t.offset),
            })
        })
        .collect();
    serde_json::json!({"cores": workload.cores, "duration_ms": ms(duration), "tasks": tasks})
}

/// Runs SimSo on the workload; returns (jobs released, jobs per second) or why it failed.
fn run_simso(request: &Request, python: &Path) -> Result<(u64, f64), String> {
    let script = match &request.simso_script {
        Some(path) => path.clone(),
        None => {
            let path = std::env::temp_dir().join(format!("kairos-simso-{}.py", std::process::id()));
            std::fs::write(&path, SIMSO_RUNNER).map_err(|e| format!("failed: {e}"))?;
            path
        }
    };
    let output = Command::new(python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let input = simso_input(request.workload, request.duration).to_string();
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(input.as_bytes())?;
            child.wait_with_output()
        });
    if request.simso_script.is_none() {
        let _ = std::fs::remove_file(&script);
    }
    let output = output.map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("failed: {}", stderr.lines().last().unwrap_or("")));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    match (field("jobs_released "), field("jobs_per_s_simulate ")) {
        (Some(jobs), Some(rate)) if rate > 0.0 => Ok((jobs as u64, rate)),
        _ => Err("could not read its output".into()),
    }
}
