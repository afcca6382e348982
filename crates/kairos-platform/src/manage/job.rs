//! The RT task's jobs: each calls one OS service (the OS-latency suite's, [`crate::oslat`]) or
//! the cache-sensitive pointer chase ([`Chase`]) a fixed number of times, released every A on absolute time. A job released while the
//! previous one still runs starts when it ends (its response time shows the wait). T_RT(z) is
//! the job's execution: wall time from start to end in free execution (the job runs to
//! completion at the top priority of its core, so the wall time is what the interference
//! stretches), the thread's CPU time in constrained execution (what the reservation supplies;
//! equation 6).

use super::chase::Chase;
use crate::oslat::{job_sampler, Bench, Sampler};
use kairos_model::managed::Execution;
use kairos_model::Duration;
use kairos_os::{clock, memory, PlatformError};
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::path::Path;

/// One job as measured.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct JobRecord {
    pub job: u64,
    /// Release, from the start of the phase.
    pub release: Duration,
    /// Start minus release (the release latency, or the wait behind the previous job).
    pub start: Duration,
    /// End minus release.
    pub response: Duration,
    /// T_RT(z).
    pub execution: Duration,
    /// The thread's CPU time during the job.
    pub cpu: Duration,
}

/// What one call of a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// One of the OS-latency suite's one-process services.
    Service(Bench),
    /// The cache-sensitive pointer chase ([`Chase`]).
    Memory,
}

impl Work {
    /// `memory` or a service's name.
    pub fn parse(name: &str) -> Result<Work, String> {
        match name {
            "memory" => Ok(Work::Memory),
            other => Bench::parse(other).map(Work::Service),
        }
    }

    fn sampler(self, dir: &Path) -> Result<Box<dyn Sampler>, PlatformError> {
        match self {
            Work::Service(bench) => job_sampler(bench, dir),
            Work::Memory => Ok(Box::new(Chase::new())),
        }
    }
}

/// What the job loop needs.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub work: Work,
    pub calls: u64,
    pub period: Duration,
    pub execution: Execution,
}

/// Calls per job so that one job takes about `length` in isolation: a first estimate from the
/// median of 40 single calls after 10 warm-up calls, then the median of three blocks of a
/// quarter job each, timed whole as a job is. A fast service's single call lasts a few of the
/// clock's steps: its median jumped between 150 and 230 ns from run to run here, and a 4 ms
/// length gave jobs of 3.4 to 4.9 ms. The isolation checks the result ([`isolate`]).
pub fn calibrate(work: Work, length: Duration, dir: &Path) -> Result<u64, PlatformError> {
    memory::prefault_stack();
    let mut sampler = work.sampler(dir)?;
    for _ in 0..10 {
        sampler.sample()?;
    }
    let mut times: Vec<u64> = (0..40)
        .map(|_| sampler.sample())
        .collect::<Result<_, _>>()?;
    times.sort_unstable();
    let first = calls_for(length, times[times.len() / 2].max(1) as f64);
    let block = (first / 4).max(1);
    let mut per_call = (0..3)
        .map(|_| {
            let start = clock::now_ns();
            for _ in 0..block {
                sampler.sample()?;
            }
            Ok((clock::now_ns() - start) as f64 / block as f64)
        })
        .collect::<Result<Vec<f64>, PlatformError>>()?;
    per_call.sort_by(f64::total_cmp);
    Ok(calls_for(length, per_call[1]))
}

fn calls_for(length: Duration, per_call_ns: f64) -> u64 {
    (length.as_nanos() as f64 / per_call_ns.max(1.0))
        .round()
        .max(1.0) as u64
}

/// How many times the isolation runs at the most: once, and again while a job sized from a
/// length misses it by more than 5 %.
pub const ISOLATIONS: u64 = 3;

/// The isolation phase: `jobs` jobs of `spec` alone on the core. A job sized from `length`
/// whose median misses it by more than 5 % is resized by the ratio and the phase runs
/// again: the calibration's few milliseconds can catch the core in a slow moment (a 4 ms
/// length gave 3.0 ms jobs in about one run in ten here), and T_expected, the baseline of
/// every I(z), should be the length the file asks for. The calls per job and the last phase's
/// records.
pub fn isolate(
    mut spec: JobSpec,
    dir: &Path,
    jobs: u64,
    control: &RunControl,
    length: Option<Duration>,
) -> Result<(u64, Vec<JobRecord>), PlatformError> {
    let mut attempt = 1;
    loop {
        let mut records = Vec::new();
        run_jobs(&spec, dir, Some(jobs), control, |r| records.push(r))?;
        let mut times: Vec<u64> = records.iter().map(|r| r.execution.as_nanos()).collect();
        times.sort_unstable();
        let (Some(length), Some(&median)) = (length, times.get(times.len() / 2)) else {
            return Ok((spec.calls, records));
        };
        let ratio = length.as_nanos() as f64 / median.max(1) as f64;
        if (0.95..=1.05).contains(&ratio) || attempt == ISOLATIONS || control.should_stop() {
            return Ok((spec.calls, records));
        }
        spec.calls = (spec.calls as f64 * ratio).round().max(1.0) as u64;
        attempt += 1;
    }
}

/// Runs jobs every `spec.period` until `jobs` have run or `control` stops, handing each record
/// to `sink` as it completes (the manager's next decision applies to the next job).
pub fn run_jobs(
    spec: &JobSpec,
    dir: &Path,
    jobs: Option<u64>,
    control: &RunControl,
    mut sink: impl FnMut(JobRecord),
) -> Result<(), PlatformError> {
    memory::prefault_stack();
    let mut sampler = spec.work.sampler(dir)?;
    sampler.sample()?;
    let period = spec.period.as_nanos();
    // The first release leaves a period to settle after the set-up.
    let origin = clock::now_ns() + period;
    let mut z = 0;
    while jobs.is_none_or(|n| z < n) && !stopped(control) {
        let release = origin + z * period;
        clock::sleep_until(release);
        if stopped(control) {
            break;
        }
        let record = one_job(spec, sampler.as_mut(), z, origin, release)?;
        sink(record);
        z += 1;
    }
    Ok(())
}

fn stopped(control: &RunControl) -> bool {
    control.should_stop() || kairos_os::signals::received().is_some()
}

fn one_job(
    spec: &JobSpec,
    sampler: &mut dyn Sampler,
    z: u64,
    origin: u64,
    release: u64,
) -> Result<JobRecord, PlatformError> {
    let (start, cpu_start) = (clock::now_ns(), clock::thread_cpu_ns());
    for _ in 0..spec.calls {
        sampler.sample()?;
    }
    let (end, cpu_end) = (clock::now_ns(), clock::thread_cpu_ns());
    let cpu = Duration::from_nanos(cpu_end - cpu_start);
    Ok(JobRecord {
        job: z,
        release: Duration::from_nanos(release - origin),
        start: Duration::from_nanos(start.saturating_sub(release)),
        response: Duration::from_nanos(end.saturating_sub(release)),
        execution: match spec.execution {
            Execution::Free => Duration::from_nanos(end - start),
            Execution::Constrained => cpu,
        },
        cpu,
    })
}
