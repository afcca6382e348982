//! `kairos platform`: what this Linux machine does to a real-time task. `latency` is the
//! OS-latency suite (section V, twelve services timed call by call, with and without stress-ng
//! on the other cores); `interference` its linearity experiment (section V.D: the suite against
//! the number of stressed cores, fitted by least squares — the measured d_curr of its
//! equation 5); `load-sweep` the timer latency of
//! Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux), measured against best-effort load, with and
//! without an RT partition.

mod interference;
mod latency;
mod plot;
mod sweep;
mod table;

use crate::args::{CommandResult, Failure};
use indicatif::{ProgressBar, ProgressStyle};
use kairos_os::{online_cpus, PlatformError};
use kairos_platform::oslat::{run_suite, Bench, BenchResult, SuiteConfig};
use kairos_platform::stress::{Stress, StressSpec};
use kairos_rt::watchdog::RunControl;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct PlatformArgs {
    #[command(subcommand)]
    pub command: PlatformCommand,
}

#[derive(clap::Subcommand)]
pub enum PlatformCommand {
    /// The OS-latency suite of the Linux PREEMPT_RT interference study: twelve OS services timed call by call by an RT thread;
    /// with --stress, again with stress-ng on the other cores, side by side.
    Latency(LatencyArgs),
    /// The suite against the number of stressed cores k = 0 .. n-1, fitted by least squares.
    Interference(InterferenceArgs),
    /// Timer latency and period jitter at best-effort loads 0..100 %: standard Linux,
    /// SCHED_FIFO, and an RT partition (Multi-scheduling).
    LoadSweep(sweep::SweepArgs),
}

/// What both commands share.
#[derive(clap::Args, Clone)]
pub struct SuiteArgs {
    /// Benchmarks, comma-separated (default: all twelve): ctx, fcntl, mmap, proc, signal,
    /// syscall, unix, fifo, fs, pipe, sem, udp.
    #[arg(long, value_delimiter = ',')]
    pub bench: Vec<String>,
    /// Samples per benchmark (default: 10,000; 2,000 for mmap and proc; 50 for fs).
    #[arg(long)]
    pub samples: Option<usize>,
    /// The CPU the measuring thread runs on (default: the first online one).
    #[arg(long)]
    pub cpu: Option<usize>,
    #[command(flatten)]
    pub output: Output,
}

/// How every platform command reports.
#[derive(clap::Args, Clone)]
pub struct Output {
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write JSON, CSV and plots into this folder.
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(clap::Args)]
pub struct LatencyArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Also measure under stress-ng: STRESSORS[:N], stressors among cpu, fork, mmap, vm,
    /// syscall, switch (or `all` = cpu,fork,mmap,vm,syscall), one instance each on N other
    /// cores (default: every other core).
    #[arg(long, value_name = "SPEC")]
    pub stress: Option<String>,
}

#[derive(clap::Args)]
pub struct InterferenceArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The stressors run on each stressed core (default: all = cpu,fork,mmap,vm,syscall).
    #[arg(long, default_value = "all")]
    pub stressors: String,
    /// Sweeps over k, interleaved; the figures per k are their medians.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
}

pub fn run(args: &PlatformArgs) -> CommandResult {
    match &args.command {
        PlatformCommand::Latency(a) => latency::run(a),
        PlatformCommand::Interference(a) => interference::run(a),
        PlatformCommand::LoadSweep(a) => sweep::run(a),
    }
}

/// The benchmarks asked for (default: all, or `fallback`).
fn benches(names: &[String], fallback: &[Bench]) -> Result<Vec<Bench>, Failure> {
    if names.is_empty() {
        return Ok(fallback.to_vec());
    }
    names
        .iter()
        .map(|n| Bench::parse(n.trim()).map_err(Failure::bad_input))
        .collect()
}

/// The measured CPU and the others, in order.
fn cpus(asked: Option<usize>) -> Result<(usize, Vec<usize>), Failure> {
    let online = online_cpus();
    let cpu = asked.unwrap_or(online[0]);
    if !online.contains(&cpu) {
        return Err(Failure::bad_input(format!(
            "--cpu {cpu}: not one of this process's CPUs {online:?}"
        )));
    }
    Ok((cpu, online.into_iter().filter(|&c| c != cpu).collect()))
}

/// `all` or a list, checked.
fn stressors(text: &str) -> Result<String, Failure> {
    let list = if text == "all" {
        "cpu,fork,mmap,vm,syscall"
    } else {
        text
    };
    StressSpec::parse(list, Vec::new()).map_err(Failure::bad_input)?;
    Ok(list.to_string())
}

/// One pass of the suite, stress-ng running on `stress` meanwhile, with a progress bar.
fn measure(
    args: &SuiteArgs,
    benches: &[Bench],
    cpu: usize,
    stress: Option<&StressSpec>,
    label: &str,
    timeout_s: u64,
) -> Result<Vec<BenchResult>, Failure> {
    let bar = match args.output.quiet {
        true => ProgressBar::hidden(),
        false => ProgressBar::new(benches.len() as u64),
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} benchmarks, {elapsed}")
            .expect("valid template"),
    );
    bar.set_message(label.to_string());
    let _stress = match stress {
        Some(spec) => {
            Some(Stress::start(spec, timeout_s).map_err(|e| Failure::environment(e.to_string()))?)
        }
        None => None,
    };
    let config = SuiteConfig {
        benches: benches.to_vec(),
        samples: args.samples,
        cpu,
        control: RunControl::new(),
    };
    let tick = bar.clone();
    let results = run_suite(&config, Arc::new(move |_| tick.inc(1))).map_err(suite_failure);
    bar.finish_and_clear();
    results
}

fn suite_failure(e: PlatformError) -> Failure {
    match e {
        PlatformError::Interrupted => Failure::environment("interrupted: nothing written"),
        e if e.is_environment() => Failure::environment(e.to_string()),
        e => Failure::environment(format!("the suite failed: {e}")),
    }
}
