//! `kairos bench`: simulator throughput (jobs per second of wall time) and peak memory, and the
//! same figures for SimSo measured in the same run when its Python is available.
//!
//! Throughput is the median over `--repeat` runs in this process. Peak memory is read from
//! `/proc/self/status` (VmHWM) of a fresh child process per duration, so a 10 s and a 100 s
//! simulation are compared on equal terms.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_model::{check_source, Arrival, Duration, Format, Workload};
use kairos_policy::PolicyKind;
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, SimConfig};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::Instant as WallClock;

/// kairos' SimSo runner: reads a workload as JSON on stdin, prints SimSo's counts and speed.
const SIMSO_RUNNER: &str = include_str!("../../scripts/simso_run.py");

/// The SimSo side-by-side workload (20 tasks, 4 cores, U = 3), embedded.
pub const SIMSO_WORKLOAD: &str = include_str!("../../examples/simso-n20-m4-u3.toml");

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Workload to simulate (default: the SimSo side-by-side workload).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The policy simulated (G-EDF: SimSo's EDF runs beside it).
    #[arg(long, value_parser = crate::args::policy_values(false, &[]), default_value = "gedf")]
    pub policy: String,
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "10s")]
    pub duration: Duration,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 21)]
    pub repeat: usize,
    /// Python with SimSo 0.8.5 installed (default: ~/.cache/simso-venv/bin/python if present).
    #[arg(long)]
    pub simso_python: Option<PathBuf>,
    /// SimSo runner script (default: kairos' own, scripts/simso_run.py, embedded).
    #[arg(long)]
    pub simso_script: Option<PathBuf>,
    /// Time the analysis tests on the SchedCAT oracle sets in this folder instead.
    #[arg(long, value_name = "DIR")]
    pub oracles: Option<PathBuf>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
    /// Internal: simulate once and print this process's peak RSS in kB.
    #[arg(long, hide = true)]
    pub probe_rss: bool,
    /// A benchmark of the Linux runtime instead (e.g. `kairos bench timer`).
    #[command(subcommand)]
    pub runtime: Option<crate::commands::bench_runtime::RuntimeBench>,
}

pub fn run(args: &BenchArgs) -> CommandResult {
    if let Some(bench) = &args.runtime {
        return crate::commands::bench_runtime::run(bench);
    }
    if let Some(dir) = &args.oracles {
        return crate::commands::bench_analysis::run(dir, args.json);
    }
    let workload = match &args.file {
        Some(path) => crate::input::workload(path, "bench")?,
        None => check_source(SIMSO_WORKLOAD, Format::Toml)
            .workload
            .ok_or_else(|| Failure::bad_input("embedded workload invalid"))?,
    };
    let kind = PolicyKind::from_cli_name(&args.policy)
        .ok_or_else(|| Failure::bad_input("unknown policy"))?;
    if args.probe_rss {
        let jobs = simulate_once(&workload, kind, args.duration)?;
        println!("{} {}", peak_rss_kb().unwrap_or(0), jobs);
        return Ok(0);
    }
    let repeat = args.repeat.max(1);
    let medians = throughput(&workload, kind, args.duration, repeat)?;
    let kairos_jobs_per_s = medians.jobs as f64 / medians.wall_s;
    let report = BenchReport {
        policy: args.policy.clone(),
        duration_ns: args.duration.as_nanos(),
        jobs: medians.jobs,
        median_wall_s: medians.wall_s,
        repeat,
        jobs_per_s: kairos_jobs_per_s,
        peak_rss: [1u64, 10]
            .iter()
            .map(|&factor| {
                let d = Duration::from_nanos(args.duration.as_nanos() * factor);
                let measured = rss_of_child(args, d);
                PeakRss {
                    duration_ns: d.as_nanos(),
                    kb: measured.map(|(kb, _)| kb),
                    jobs: measured.map(|(_, jobs)| jobs),
                }
            })
            .collect(),
        simso: simso_side(args, &workload, kairos_jobs_per_s),
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("bench report serializes")
        );
    } else {
        print_report(&report);
    }
    Ok(0)
}

/// What `kairos bench` measured (the `--json` form; the text form says the same).
#[derive(Serialize)]
struct BenchReport {
    policy: String,
    duration_ns: u64,
    jobs: u64,
    median_wall_s: f64,
    repeat: usize,
    jobs_per_s: f64,
    peak_rss: Vec<PeakRss>,
    simso: SimsoSide,
}

#[derive(Serialize)]
struct PeakRss {
    duration_ns: u64,
    kb: Option<u64>,
    jobs: Option<u64>,
}

/// SimSo's side of the comparison: its figures, or why it was not run.
#[derive(Serialize)]
struct SimsoSide {
    ran: bool,
    jobs: Option<u64>,
    jobs_per_s: Option<f64>,
    kairos_speedup: Option<f64>,
    note: String,
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

fn print_report(report: &BenchReport) {
    println!(
        "kairos {}: {} jobs in {} simulated; median wall {:.3} ms over {} runs -> {:.0} jobs/s",
        report.policy,
        report.jobs,
        Duration::from_nanos(report.duration_ns),
        report.median_wall_s * 1e3,
        report.repeat,
        report.jobs_per_s
    );
    for rss in &report.peak_rss {
        let d = Duration::from_nanos(rss.duration_ns);
        match (rss.kb, rss.jobs) {
            (Some(kb), Some(jobs)) => println!(
                "peak RSS simulating {d}: {:.1} MB ({jobs} jobs)",
                kb as f64 / 1024.0
            ),
            _ => println!("peak RSS simulating {d}: unavailable (no /proc/self/status)"),
        }
    }
    let simso = &report.simso;
    match (simso.jobs, simso.jobs_per_s, simso.kairos_speedup) {
        (Some(jobs), Some(rate), Some(speedup)) => println!(
            "SimSo 0.8.5 EDF: {jobs} jobs; {rate:.0} jobs/s -> kairos is {speedup:.0}x faster (same run, same machine)"
        ),
        _ => println!("SimSo: {}", simso.note),
    }
}

struct Medians {
    jobs: u64,
    wall_s: f64,
}

fn simulate_once(
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
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs this binary again with `--probe-rss` for `duration`; returns (peak kB, jobs).
fn rss_of_child(args: &BenchArgs, duration: Duration) -> Option<(u64, u64)> {
    let exe = std::env::current_exe().ok()?;
    let mut command = Command::new(exe);
    command.args([
        "bench",
        "--probe-rss",
        "--policy",
        &args.policy,
        "--duration",
        &duration.to_string(),
    ]);
    if let Some(file) = &args.file {
        command.arg("--file").arg(file);
    }
    let output = command.output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    match (fields.next()??, fields.next()??) {
        (0, _) => None,
        (kb, jobs) => Some((kb, jobs)),
    }
}

fn simso_python(args: &BenchArgs) -> Option<PathBuf> {
    args.simso_python.clone().or_else(|| {
        let default = PathBuf::from(std::env::var_os("HOME")?).join(".cache/simso-venv/bin/python");
        default.exists().then_some(default)
    })
}

/// SimSo's global EDF on the same workload, when it can run it: periodic tasks, no overheads.
fn simso_side(args: &BenchArgs, workload: &Workload, kairos_jobs_per_s: f64) -> SimsoSide {
    if args.policy != "gedf" {
        return SimsoSide::not_run("not run (the comparison is defined for gedf, SimSo's EDF)");
    }
    if workload
        .tasks
        .iter()
        .any(|t| t.arrival != Arrival::Periodic)
    {
        return SimsoSide::not_run("not run (SimSo's comparison needs periodic tasks)");
    }
    let Some(python) = simso_python(args) else {
        return SimsoSide::not_run(
            "not run (no --simso-python and no ~/.cache/simso-venv; set-up in docs/bench.md)",
        );
    };
    match run_simso(args, &python, workload) {
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
fn run_simso(args: &BenchArgs, python: &Path, workload: &Workload) -> Result<(u64, f64), String> {
    let script = match &args.simso_script {
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
            let input = simso_input(workload, args.duration).to_string();
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(input.as_bytes())?;
            child.wait_with_output()
        });
    if args.simso_script.is_none() {
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
