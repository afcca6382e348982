//! `kairos platform`: what this Linux machine does to a real-time task. `latency` is the
//! OS-latency suite (section V, twelve services timed call by call, with and without stress-ng
//! on the other cores); `interference` its linearity experiment (section V.D: the suite against
//! the number of stressed cores, fitted by least squares — the measured d_curr of its
//! equation 5); `load-sweep` the timer latency of
//! Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux), measured against best-effort load, with and
//! without an RT partition.

use crate::args::{duration_arg, CommandResult};
use kairos_lab::platform::{interference, latency, sweep, Observer, Progress, Suite};
use kairos_model::Duration;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    LoadSweep(SweepArgs),
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
    /// Also measure under stress-ng: `STRESSORS[:N]`, stressors among cpu, fork, mmap, vm,
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
        PlatformCommand::Latency(a) => {
            let request = latency::Request {
                suite: a.suite.suite(),
                stress: a.stress.clone(),
            };
            let report = latency::run(&request, &bar(&a.suite.output))?;
            show(
                &a.suite.output,
                &report,
                |dir| report.write(dir, &mut crate::args::to_stderr),
                |dir| report.text(dir),
            )
        }
        PlatformCommand::Interference(a) => {
            let request = interference::Request {
                suite: a.suite.suite(),
                stressors: a.stressors.clone(),
                repeat: a.repeat,
            };
            let report = interference::run(&request, &bar(&a.suite.output))?;
            show(
                &a.suite.output,
                &report,
                |dir| report.write(dir, &mut crate::args::to_stderr),
                |dir| report.text(dir),
            )
        }
        PlatformCommand::LoadSweep(a) => {
            let request = sweep::Request {
                loads: a.loads.clone(),
                duration: a.duration,
                interval: a.interval,
                rt: a.rt,
                cyclictest: !a.no_cyclictest,
            };
            let report = sweep::run(&request, &bar(&a.output))?;
            show(
                &a.output,
                &report,
                |dir| report.write(dir, &mut crate::args::to_stderr),
                |dir| report.text(dir),
            )
        }
    }
}

impl SuiteArgs {
    fn suite(&self) -> Suite {
        Suite {
            benches: self.bench.clone(),
            samples: self.samples,
            cpu: self.cpu,
        }
    }
}

/// Writes the report's files when asked, then prints it as JSON or text.
fn show(
    output: &Output,
    report: &impl serde::Serialize,
    write: impl FnOnce(&Path) -> Result<(), kairos_lab::Failure>,
    text: impl FnOnce(Option<&Path>) -> String,
) -> CommandResult {
    if let Some(dir) = &output.out_dir {
        write(dir)?;
    }
    match output.json {
        true => crate::args::print_json(report),
        false => print!("{}", text(output.out_dir.as_deref())),
    }
    Ok(0)
}

/// A progress bar on standard error (hidden with `--quiet`), drawn from the library's phases:
/// a fresh bar for each phase that starts after another ended.
fn bar(output: &Output) -> Observer {
    let quiet = output.quiet || output.json;
    let new_bar = move || crate::progress::bar(0, "{msg} [{bar:30}] {pos}/{len}, {elapsed}", quiet);
    let bar = Mutex::new(new_bar());
    Arc::new(move |progress: Progress<'_>| {
        let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
        match progress {
            Progress::Begin { label, total } => {
                if bar.is_finished() {
                    *bar = new_bar();
                }
                bar.set_message(label.to_string());
                bar.set_length(total as u64);
            }
            Progress::Step => bar.inc(1),
            Progress::End => bar.finish_and_clear(),
        }
    })
}

/// `kairos platform load-sweep`.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// Best-effort CPU loads in percent.
    #[arg(long, value_delimiter = ',', default_value = "0,20,40,60,80,100")]
    pub loads: Vec<u32>,
    /// Measurement time per configuration and load.
    #[arg(long, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// The timed thread's period.
    #[arg(long, value_parser = duration_arg, default_value = "1ms")]
    pub interval: Duration,
    /// The RT partition's CPU (default: the last online CPU).
    #[arg(long)]
    pub rt: Option<usize>,
    /// Do not run cyclictest beside the probe even when it is installed.
    #[arg(long)]
    pub no_cyclictest: bool,
    #[command(flatten)]
    pub output: Output,
}
