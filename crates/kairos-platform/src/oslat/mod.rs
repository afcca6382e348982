//! The OS-latency suite of the OS-latency study of Linux PREEMPT_RT for mixed time-criticality (a model of intra- and inter-core interference and OS-induced latencies),
//! section V: what each of twelve
//! operating-system services costs a real-time task, as a per-call distribution (WCET = max,
//! ACET = mean, MCET = median, STDEV, p99), not lmbench's mean per operation. Each sample is
//! timed on its own by a thread configured as the study's RT process: SCHED_FIFO, memory locked,
//! stack prefaulted, pinned to one CPU, `/dev/cpu_dma_latency` held at 0. The partner processes
//! of the two-process benchmarks are forked from it and so share its CPU and policy: every
//! sample stays on the measured core, and stressors on the other cores reach it only through
//! the kernel (locks, TLB shootdowns, memory bandwidth) — the interference the study measures.
//!
//! The definitions (one sample each) are in [`Bench::what`]; `calls` has the one-process
//! services, `ipc` the two-process ones. No busy loop runs under SCHED_FIFO here (every
//! sample blocks in or returns from the kernel), so unlike the dispatcher the suite needs no
//! watchdog; it stops between samples on SIGINT/SIGTERM or when its control is stopped.

mod calls;
mod ipc;

use kairos_os::{dma, memory, priority, thread, PlatformError};
use kairos_rt::measure::{Distribution, Summary};
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::sync::Arc;

/// One of the suite's twelve measurements, in the study's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bench {
    Ctx,
    Fcntl,
    Mmap,
    Proc,
    Signal,
    Syscall,
    Unix,
    Fifo,
    Fs,
    Pipe,
    Sem,
    Udp,
}

impl Bench {
    pub const ALL: [Bench; 12] = [
        Bench::Ctx,
        Bench::Fcntl,
        Bench::Mmap,
        Bench::Proc,
        Bench::Signal,
        Bench::Syscall,
        Bench::Unix,
        Bench::Fifo,
        Bench::Fs,
        Bench::Pipe,
        Bench::Sem,
        Bench::Udp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Bench::Ctx => "ctx",
            Bench::Fcntl => "fcntl",
            Bench::Mmap => "mmap",
            Bench::Proc => "proc",
            Bench::Signal => "signal",
            Bench::Syscall => "syscall",
            Bench::Unix => "unix",
            Bench::Fifo => "fifo",
            Bench::Fs => "fs",
            Bench::Pipe => "pipe",
            Bench::Sem => "sem",
            Bench::Udp => "udp",
        }
    }

    /// What one sample is.
    pub fn what(self) -> &'static str {
        match self {
            Bench::Ctx => "a context switch: half a token round trip through a pipe pair between two processes on one CPU",
            Bench::Fcntl => "lock and unlock of a file region (F_SETLK)",
            Bench::Mmap => "map 1 MiB of a file, touch every page, unmap",
            Bench::Proc => "fork, child exit, wait",
            Bench::Signal => "install a handler (sigaction) and catch a signal sent to self",
            Bench::Syscall => "a trivial system call (getpid through syscall(2))",
            Bench::Unix => "round trip of 8 bytes over a UNIX-domain socket pair between two processes",
            Bench::Fifo => "round trip through two named FIFOs between two processes",
            Bench::Fs => "create and delete 500 files (one sample is the batch)",
            Bench::Pipe => "round trip through two pipes between two processes",
            Bench::Sem => "one System V semop",
            Bench::Udp => "round trip of 8 bytes over loopback UDP between two processes",
        }
    }

    /// Operations in one sample (the per-operation figure divides by it).
    pub fn items(self) -> u64 {
        match self {
            Bench::Fs => calls::FS_FILES as u64,
            _ => 1,
        }
    }

    /// Samples taken when none are asked for: about a second or less each on this kind of
    /// machine (a file-system batch costs milliseconds, a system call a fraction of a µs).
    pub fn default_samples(self) -> usize {
        match self {
            Bench::Fs => 50,
            Bench::Proc | Bench::Mmap => 2_000,
            _ => 10_000,
        }
    }

    pub fn parse(name: &str) -> Result<Bench, String> {
        Bench::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Bench::ALL.iter().map(|b| b.name()).collect();
                format!("unknown benchmark {name:?}: one of {}", names.join(", "))
            })
    }
}

/// A service measured once per [`Sampler::sample`], its resources released on drop.
pub(crate) trait Sampler {
    /// One sample: the nanoseconds the measured operation took.
    fn sample(&mut self) -> Result<u64, PlatformError>;
}

/// The service `bench` as a resource manager's job calls it: as the suite's sampler, except
/// that `fs` creates and deletes one file per call (the suite's batch of 500 is too coarse
/// for a job of a few milliseconds).
pub(crate) fn job_sampler(
    bench: Bench,
    dir: &std::path::Path,
) -> Result<Box<dyn Sampler>, PlatformError> {
    match bench {
        Bench::Fs => Ok(Box::new(calls::Fs::with_files(dir, 1))),
        other => sampler(other, dir),
    }
}

fn sampler(bench: Bench, dir: &std::path::Path) -> Result<Box<dyn Sampler>, PlatformError> {
    Ok(match bench {
        Bench::Syscall => Box::new(calls::Syscall),
        Bench::Sem => Box::new(calls::Sem::new()?),
        Bench::Fcntl => Box::new(calls::Fcntl::new(dir)?),
        Bench::Signal => Box::new(calls::Signal::new()?),
        Bench::Mmap => Box::new(calls::Mmap::new(dir)?),
        Bench::Proc => Box::new(calls::Proc),
        Bench::Fs => Box::new(calls::Fs::new(dir)),
        Bench::Ctx => Box::new(ipc::Pair::pipes(true)?),
        Bench::Pipe => Box::new(ipc::Pair::pipes(false)?),
        Bench::Unix => Box::new(ipc::Pair::unix()?),
        Bench::Fifo => Box::new(ipc::Pair::fifos(dir)?),
        Bench::Udp => Box::new(ipc::Pair::udp()?),
    })
}

/// What to measure and where.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    pub benches: Vec<Bench>,
    /// Samples per benchmark; None: [`Bench::default_samples`].
    pub samples: Option<usize>,
    /// The CPU the measuring thread (and its partners) run on.
    pub cpu: usize,
    pub control: Arc<RunControl>,
}

/// One benchmark's distribution of per-sample times.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub bench: Bench,
    pub distribution: Distribution,
    /// Standard deviation of the samples (ns), computed from the samples themselves.
    pub stdev_ns: f64,
}

impl BenchResult {
    pub fn summary(&self) -> Summary {
        self.distribution.summary()
    }
}

/// Warm-up samples, discarded: the first calls fault in code and kernel caches.
const WARM_UP: usize = 20;

/// Called after each benchmark (a progress bar's tick).
pub type Progress = Arc<dyn Fn(Bench) + Send + Sync>;

/// Runs the suite on `config.cpu` (see the module documentation).
pub fn run_suite(
    config: &SuiteConfig,
    progress: Progress,
) -> Result<Vec<BenchResult>, PlatformError> {
    kairos_os::privilege::require_rt()?;
    memory::lock_all_memory()?;
    let _dma = dma::DmaLatencyGuard::acquire();
    let dir = scratch_dir()?;
    let spec = thread::ThreadSpec::fifo("kairos-oslat", priority::PROBE, vec![config.cpu]);
    let (config, path) = (config.clone(), dir.path.clone());
    thread::spawn(spec, move || measure_all(&config, &path, progress.as_ref()))?.join()?
}

fn measure_all(
    config: &SuiteConfig,
    dir: &std::path::Path,
    progress: &(dyn Fn(Bench) + Send + Sync),
) -> Result<Vec<BenchResult>, PlatformError> {
    memory::prefault_stack();
    let mut out = Vec::with_capacity(config.benches.len());
    for &bench in &config.benches {
        let n = config.samples.unwrap_or(bench.default_samples());
        let mut sampler = sampler(bench, dir)?;
        for _ in 0..WARM_UP.min(n) {
            sampler.sample()?;
        }
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            if config.control.should_stop() || kairos_os::signals::received().is_some() {
                return Err(PlatformError::Interrupted);
            }
            values.push(sampler.sample()?);
        }
        drop(sampler);
        out.push(result(bench, &values));
        progress(bench);
    }
    Ok(out)
}

fn result(bench: Bench, values: &[u64]) -> BenchResult {
    let mut distribution = Distribution::new();
    values.iter().for_each(|&v| distribution.record(v));
    let n = values.len().max(1) as f64;
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|&v| (v as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    BenchResult {
        bench,
        distribution,
        stdev_ns: var.sqrt(),
    }
}

/// A private directory for the file benchmarks, removed on drop.
pub(crate) struct ScratchDir {
    pub(crate) path: std::path::PathBuf,
}

pub(crate) fn scratch_dir() -> Result<ScratchDir, PlatformError> {
    let path = kairos_os::scratch::private_folder("kairos-oslat-", "").map_err(|source| {
        PlatformError::Os {
            op: "create the suite's scratch directory",
            source,
        }
    })?;
    Ok(ScratchDir { path })
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
