//! `kairos bench`: simulator throughput (jobs per second of wall time) and peak memory, and the
//! same figures for SimSo measured in the same run when its Python is available.
//!
//! Throughput is the median over `--repeat` runs in this process. Peak memory is read from
//! `/proc/self/status` (VmHWM) of a fresh child process per duration, so a 10 s and a 100 s
//! simulation are compared on equal terms.

use crate::args::{duration_arg, CommandResult, Failure};
use crate::commands::check::load_valid;
use kairos_model::{check_source, Duration, Format, Workload};
use kairos_sim::policy::fixed_priority::PriorityOrder;
use kairos_sim::policy::PolicyKind;
use kairos_sim::{simulate, SimConfig};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant as WallClock;

/// The SimSo side-by-side workload (20 tasks, 4 cores, U = 3), embedded.
pub const SIMSO_WORKLOAD: &str = include_str!("../../examples/simso-n20-m4-u3.toml");

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Workload to simulate (default: the SimSo side-by-side workload).
    #[arg(long)]
    pub file: Option<PathBuf>,
    #[arg(long, value_parser = ["gedf", "pedf", "gfp", "pfp", "edzl"], default_value = "gedf")]
    pub policy: String,
    #[arg(long, value_parser = duration_arg, default_value = "10s")]
    pub duration: Duration,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 21)]
    pub repeat: usize,
    /// Python with SimSo 0.8.5 installed (default: ~/.cache/simso-venv/bin/python if present).
    #[arg(long)]
    pub simso_python: Option<PathBuf>,
    /// SimSo benchmark script (default: the project's ../shared/bench/simso/simso_bench.py).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bench/simso/simso_bench.py"))]
    pub simso_script: PathBuf,
    /// Time the analysis tests on the SchedCAT oracle sets in this folder instead.
    #[arg(long, value_name = "DIR")]
    pub oracles: Option<PathBuf>,
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
        return crate::commands::bench_analysis::run(dir);
    }
    let workload = match &args.file {
        Some(path) => load_valid(path)?,
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
    let medians = throughput(&workload, kind, args.duration, args.repeat.max(1))?;
    println!(
        "kairos {}: {} jobs in {} simulated; median wall {:.3} ms over {} runs -> {:.0} jobs/s",
        args.policy,
        medians.jobs,
        args.duration,
        medians.wall_s * 1e3,
        args.repeat.max(1),
        medians.jobs as f64 / medians.wall_s
    );
    for factor in [1u64, 10] {
        let d = Duration::from_nanos(args.duration.as_nanos() * factor);
        match rss_of_child(args, d) {
            Some((kb, jobs)) => println!(
                "peak RSS simulating {d}: {:.1} MB ({jobs} jobs)",
                kb as f64 / 1024.0
            ),
            None => println!("peak RSS simulating {d}: unavailable (no /proc/self/status)"),
        }
    }
    // SimSo's side of the comparison is its global EDF on the embedded workload only.
    match (&args.file, args.policy.as_str()) {
        (None, "gedf") => compare_with_simso(args, medians.jobs as f64 / medians.wall_s),
        _ => println!(
            "SimSo: not run (the comparison is defined for the embedded workload under gedf)"
        ),
    }
    Ok(0)
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

/// Runs SimSo on the same workload and prints the throughput ratio.
fn compare_with_simso(args: &BenchArgs, kairos_jobs_per_s: f64) {
    let Some(python) = simso_python(args) else {
        println!("SimSo: not run (no --simso-python and no ~/.cache/simso-venv; see ../shared/bench/simso/README.md)");
        return;
    };
    let duration_ms = args.duration.as_nanos() as f64 / 1e6;
    let output = Command::new(&python)
        .arg(&args.simso_script)
        .args([
            "--seed",
            "1",
            "--n",
            "20",
            "--m",
            "4",
            "--u",
            "3.0",
            "--duration-ms",
            &duration_ms.to_string(),
        ])
        .output();
    let text = match output {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => {
            return println!(
                "SimSo: failed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )
        }
        Err(e) => return println!("SimSo: cannot start {}: {e}", python.display()),
    };
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|v| v.parse::<f64>().ok())
    };
    match (field("jobs_released"), field("jobs_per_s_simulate")) {
        (Some(jobs), Some(simso_jobs_per_s)) => println!(
            "SimSo 0.8.5 EDF: {jobs} jobs; {simso_jobs_per_s:.0} jobs/s -> kairos is {:.0}x faster (same run, same machine)",
            kairos_jobs_per_s / simso_jobs_per_s
        ),
        _ => println!("SimSo: could not read its output"),
    }
}
