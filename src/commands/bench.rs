//! `kairos bench`: simulator throughput and peak memory beside SimSo
//! (`kairos_lab::bench::simulator`). Peak memory is read from `/proc/self/status` (VmHWM) of a
//! fresh `kairos bench --probe-rss` process per duration.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_lab::bench::simulator::{self, SIMSO_WORKLOAD};
use kairos_model::{check_source, Duration, Format};
use kairos_policy::PolicyKind;
use std::path::PathBuf;
use std::process::Command;

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
        let report = kairos_lab::bench::analysis::run(dir)?;
        match args.json {
            true => crate::args::print_json(&report),
            false => print!("{}", report.text()),
        }
        return Ok(0);
    }
    let workload = match &args.file {
        Some(path) => crate::input::workload(path, "bench")?,
        None => check_source(SIMSO_WORKLOAD, Format::Toml)
            .workload
            .ok_or_else(|| Failure::bad_input("embedded workload invalid"))?,
    };
    if args.probe_rss {
        let kind = PolicyKind::from_cli_name(&args.policy)
            .ok_or_else(|| Failure::bad_input("unknown policy"))?;
        let jobs = simulator::simulate_once(&workload, kind, args.duration)?;
        println!("{} {}", simulator::peak_rss_kb().unwrap_or(0), jobs);
        return Ok(0);
    }
    let request = simulator::Request {
        workload: &workload,
        policy: &args.policy,
        duration: args.duration,
        repeat: args.repeat,
        simso_python: args.simso_python.clone(),
        simso_script: args.simso_script.clone(),
    };
    let report = simulator::run(&request, &mut |d| rss_of_child(args, d))?;
    match args.json {
        true => crate::args::print_json(&report),
        false => print!("{}", report.text()),
    }
    Ok(0)
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
