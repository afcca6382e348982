//! What this Linux machine does to a real-time task. [`latency`] is the OS-latency suite of
//! the OS-latency study (section V: twelve services timed call by call, with and without
//! stress-ng on the other cores); [`interference`] its linearity experiment (section V.D: the
//! suite against the number of stressed cores, fitted by least squares, the measured d_curr of
//! its equation 5); [`sweep`] the timer latency of Multi-scheduling (RT and non-RT schedulers on
//! separate cores of one Linux) against best-effort load, with and without an RT partition.

pub mod cyclictest;
pub mod interference;
pub mod latency;
pub mod plot;
pub mod sweep;
pub mod table;

use crate::Failure;
use kairos_os::{online_cpus, PlatformError};
use kairos_platform::oslat::{run_suite, Bench, BenchResult, SuiteConfig};
use kairos_platform::stress::{Stress, StressSpec};
use kairos_rt::watchdog::RunControl;
use std::sync::Arc;

/// What a suite measures.
#[derive(Clone, Debug, Default)]
pub struct Suite {
    /// Benchmark names (empty: the study's default set).
    pub benches: Vec<String>,
    /// Samples per benchmark (None: each benchmark's own).
    pub samples: Option<usize>,
    /// The measured CPU (None: the first online).
    pub cpu: Option<usize>,
}

/// Where a long measurement reports how far it is.
pub enum Progress<'a> {
    /// A phase of `total` steps starts.
    Begin { label: &'a str, total: usize },
    /// One step of the phase is done.
    Step,
    /// The phase is over.
    End,
}

/// The caller's progress display (called from the measuring thread).
pub type Observer = Arc<dyn Fn(Progress<'_>) + Send + Sync>;

fn benches(names: &[String], fallback: &[Bench]) -> Result<Vec<Bench>, Failure> {
    if names.is_empty() {
        return Ok(fallback.to_vec());
    }
    (names.iter())
        .map(|n| Bench::parse(n.trim()).map_err(Failure::bad_input))
        .collect()
}

/// The measured CPU and the others.
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

/// A stressor list, `all` meaning the study's five.
fn stressors(text: &str) -> Result<String, Failure> {
    let list = match text {
        "all" => "cpu,fork,mmap,vm,syscall",
        _ => text,
    };
    StressSpec::parse(list, Vec::new()).map_err(Failure::bad_input)?;
    Ok(list.to_string())
}

/// Runs the suite's `benches` on `cpu`, under `stress` when given (stopped after
/// `timeout_s`), telling `progress` each benchmark done.
fn measure(
    suite: &Suite,
    benches: &[Bench],
    cpu: usize,
    stress: Option<&StressSpec>,
    label: &str,
    timeout_s: u64,
    progress: &Observer,
) -> Result<Vec<BenchResult>, Failure> {
    progress(Progress::Begin {
        label,
        total: benches.len(),
    });
    let _stress = match stress {
        Some(spec) => {
            Some(Stress::start(spec, timeout_s).map_err(|e| Failure::environment(e.to_string()))?)
        }
        None => None,
    };
    let config = SuiteConfig {
        benches: benches.to_vec(),
        samples: suite.samples,
        cpu,
        control: RunControl::new(),
    };
    let tick = progress.clone();
    let results = run_suite(&config, Arc::new(move |_| tick(Progress::Step))).map_err(failure);
    progress(Progress::End);
    results
}

fn failure(e: PlatformError) -> Failure {
    match e {
        PlatformError::Interrupted => Failure::environment("interrupted: nothing written"),
        e if e.is_environment() => Failure::environment(e.to_string()),
        e => Failure::environment(format!("the suite failed: {e}")),
    }
}
