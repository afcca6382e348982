//! `kairos`: check, simulate and benchmark real-time workloads. See README.md and docs/.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use kairos::commands;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "kairos", version, about = "Multicore real-time scheduling: check, analyze, synthesize, simulate, run on real cores, measure", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a workload file and report every problem with its location.
    Check(commands::check::CheckArgs),
    /// Simulate a workload on m cores under a scheduling policy.
    Simulate(commands::simulate::SimulateArgs),
    /// Run every stage on an embedded workload (no files needed).
    Demo(commands::demo::DemoArgs),
    /// Benchmarks: simulator throughput and memory (side by side with SimSo), analysis speed,
    /// table synthesis (`kairos bench synth`), and on real cores timer latency, migrations, mode
    /// changes (`kairos bench timer ...`).
    Bench(commands::bench::BenchArgs),
    /// Schedulability tests on a workload file, or on a JSONL batch of task sets.
    Analyze(commands::analyze::AnalyzeArgs),
    /// Generate task sets (a workload file or a JSONL batch).
    Gen(commands::gen::GenArgs),
    /// Acceptance-ratio sweep over utilization (CSV and plots), or a study (RT-Xen, guarantees on
    /// real cores); resumable.
    Experiment(commands::experiment::ExperimentArgs),
    /// Convert another tool's file to the kairos format (MC-DAG framework XML, SimSo XML configuration).
    Import(commands::import::Args),
    /// Write a workload in another tool's format (rt-app JSON).
    Export(commands::export::Args),
    /// Synthesize one scheduling table per criticality level (GMH-MC-DAG) for an MC-DAG system.
    Synth(commands::synth::Args),
    /// Check scheduling tables against their workload, independently of the synthesizer.
    ValidateTables(commands::validate_tables::Args),
    /// Run a workload for real on this machine's cores with real-time threads.
    Run(commands::run::Args),
    /// Compute the VCPUs of a VM file's domains (compositional analysis) and write them in.
    Interface(commands::vm::InterfaceArgs),
    /// Measure this machine: OS latency per call with and without stress, interference.
    Platform(commands::platform::PlatformArgs),
    /// Make an RT and a best-effort core partition (cpusets or affinity), or undo it (--reset).
    Partition(commands::partition::Args),
    /// Start a command in the RT partition (real-time policy) or the best-effort one.
    Exec(commands::exec::Args),
    /// Run the resource manager: an RT task beside best-effort programs, each core's period
    /// split into RT, best-effort and idle time, adapted to the measured interference.
    Manage(commands::manage::Args),
    /// Write one self-contained HTML page: the workload, the analysis, and each policy's
    /// simulation with its Gantt chart and response times.
    Report(commands::report::Args),
    /// One of kairos's own stressors as a process (started by kairos where a stressor list
    /// names it).
    #[command(hide = true)]
    Stressor(commands::stressor::Args),
}

fn main() -> ExitCode {
    kairos_os::signals::restore_default_sigpipe();
    kairos_os::memory::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => commands::check::run(&args),
        Command::Simulate(args) => commands::simulate::run(&args),
        Command::Demo(args) => commands::demo::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Analyze(args) => commands::analyze::run(&args),
        Command::Gen(args) => commands::gen::run(&args),
        Command::Experiment(args) => commands::experiment::run(&args),
        Command::Import(args) => commands::import::run(&args),
        Command::Export(args) => commands::export::run(&args),
        Command::Synth(args) => commands::synth::run(&args),
        Command::ValidateTables(args) => commands::validate_tables::run(&args),
        Command::Run(args) => commands::run::run(&args),
        Command::Interface(args) => commands::vm::interface(&args),
        Command::Platform(args) => commands::platform::run(&args),
        Command::Partition(args) => commands::partition::run(&args),
        Command::Exec(args) => commands::exec::run(&args),
        Command::Manage(args) => commands::manage::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Stressor(args) => commands::stressor::run(&args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
