//! The overheads of kernel dispatch (`kairos run --dispatch kernel`: the kernel schedules one
//! thread per task, SCHED_FIFO for pfp and gfp, SCHED_DEADLINE for edf), measured on a real
//! run from its job records and segments ([`super::kernel_samples`]), in the roles of the
//! overhead-aware analysis (Brandenburg's accounting, `kairos_analysis::overheads`):
//! - `release_latency` (`Δev`): a release onto a free CPU, to the job's first instruction;
//! - `context_switch` (`Δcxs`): at each quantile the larger of half a preemption's round trip
//!   and a hand-over on one CPU, each a kernel decision and one switch;
//! - `scheduling` (`Δsch`): zero, the kernel's decision being inside both of those;
//! - `release` (`Δrel`): at each quantile the larger of a preemption's round trip and a release
//!   onto a free CPU. The release's interrupt and wake-up are not in the round trip (this kernel
//!   charges them to the thread they interrupt, whose busy work counts CPU time, so no sample of
//!   a busy CPU shows them), but they are inside a release onto a free CPU, with the timer's
//!   lateness: an upper bound, on the safe side;
//! - `migration` (`Δcpmd`): what a hand-over onto a CPU the thread did not last run on takes
//!   beyond the median hand-over on its own CPU (beyond half the median round trip when no job
//!   handed over on its own CPU; none measured: zero, as a partitioned run has);
//! - no `ipi`: a release the kernel wakes on another CPU than its timer's pays the IPI inside its
//!   release latency;
//! - `execution_loss_ppm`: the share of the completed jobs' wall time (their segments) beyond
//!   their work, their WCETs (the stall watcher, and preemptions shorter than the segments
//!   resolve), and `rt_throttle`.

use super::kernel_samples::{kernel_samples, KernelSamples, Resolution};
use super::{quantiles_from_samples, whole_run, Measured, Request};
use crate::{Failure, Notify};
use kairos_model::Workload;
use kairos_os::privilege;
use kairos_rt::calibrate::{calibrate, CHUNK_US};
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::{plan, run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::watchdog::RunControl;
use std::collections::HashSet;

/// The stamps of kernel dispatch's runs: a segment after a preemption is stamped up to a busy
/// chunk early (with room for a slow one), and a job's start stamp and its first segment's
/// start are two clock reads in a row, well under the 10 us off the CPU that splits a segment.
const RESOLUTION: Resolution = Resolution {
    chunk: (2.0 * CHUNK_US * 1000.0) as u64,
    start: 5_000,
};

/// The workload measured by default: one that preempts and hands over on each CPU, often.
pub const KERNEL_WORKLOAD: &str = include_str!("../../../../../examples/kernel-overheads.toml");

/// The policies the kernel schedules (`gedf` is also taken for `edf`, as `kairos run
/// --dispatch kernel` takes it).
pub const KERNEL_POLICIES: [&str; 3] = ["pfp", "gfp", "edf"];

/// Runs the workload under kernel dispatch and measures the kernel's overheads; what is run is
/// told to `notify` first.
pub fn run_kernel(args: &Request, notify: Notify) -> Result<Measured, Failure> {
    super::check_duration(args)?;
    let policy = PeriodicPolicy::of_dispatched(args.policy).ok_or_else(|| {
        Failure::bad_input(format!(
            "kernel dispatch runs {}, not {}",
            KERNEL_POLICIES.join(", "),
            args.policy
        ))
    })?;
    let workload = args.workload;
    let config = PeriodicConfig::new(policy, args.duration.as_nanos());
    let plan = plan(workload, &config, &kairos_os::online_cpus())
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let calibration = calibrate(&plan.cpus).map_err(|e| Failure::environment(e.to_string()))?;
    super::announce(notify, args, policy.cli_name(), "kernel");
    let once = || {
        run_periodic(workload, &config, &calibration, RunControl::new())
            .map_err(|e| Failure::environment(e.to_string()))
    };
    let result = whole_run(once, notify)?;
    measure(&result, workload, policy)
}

/// The run's samples in the analysis's roles (see the module documentation).
fn measure(
    result: &RunResult,
    workload: &Workload,
    policy: PeriodicPolicy,
) -> Result<Measured, Failure> {
    let mut samples = kernel_samples(&result.jobs, &result.segments, RESOLUTION);
    let counts = (
        samples.preemption.len() as u64,
        (samples.hand_over.len() + samples.moved_hand_over.len()) as u64,
        samples.moved_hand_over.len() as u64,
    );
    let roles = roles(&mut samples)?;
    Ok(Measured {
        dispatch: "kernel",
        policy: policy.cli_name(),
        cpus: result.cpus.len(),
        scheduling: [0; 6],
        context_switch: roles.context_switch,
        migration: roles.migration,
        release: roles.release,
        release_latency: Some(roles.release_latency),
        ipi: None,
        part_callback: None,
        same_core_floor: None,
        rt_throttle_us: super::rt_throttle_us(),
        execution_loss_ppm: loss_ppm(result, workload)?,
        decisions: counts.0,
        switch_ins: counts.1,
        migrations: counts.2,
    })
}

/// The samples' quantiles in their roles.
struct Roles {
    release_latency: [u64; 6],
    release: [u64; 6],
    context_switch: [u64; 6],
    migration: [u64; 6],
}

fn roles(samples: &mut KernelSamples) -> Result<Roles, Failure> {
    let missing = |what: &str| {
        Failure::environment(format!(
            "the run measured no {what}: give a workload in which higher-priority jobs preempt \
             lower ones on each CPU and jobs wait for their CPU"
        ))
    };
    let release_latency = quantiles_from_samples(&mut samples.release_latency)
        .ok_or_else(|| missing("release onto a free CPU"))?;
    let round_trip =
        quantiles_from_samples(&mut samples.preemption).ok_or_else(|| missing("preemption"))?;
    let release = std::array::from_fn(|i| round_trip[i].max(release_latency[i]));
    let half = round_trip.map(|v| v.div_ceil(2));
    let same = quantiles_from_samples(&mut samples.hand_over);
    let context_switch = match same {
        Some(same) => std::array::from_fn(|i| half[i].max(same[i])),
        None => half,
    };
    let median_same = same.map_or(half[1], |s| s[1]);
    let migration = quantiles_from_samples(&mut samples.moved_hand_over)
        .map_or([0; 6], |moved| moved.map(|v| v.saturating_sub(median_same)));
    Ok(Roles {
        release_latency,
        release,
        context_switch,
        migration,
    })
}

/// The completed jobs' wall time beyond their work (their WCETs: the run draws none other),
/// in parts per million; a run whose jobs took over ten times their work is refused.
fn loss_ppm(result: &RunResult, workload: &Workload) -> Result<u32, Failure> {
    let completed: HashSet<(usize, u64)> = (result.jobs.iter())
        .filter(|j| j.completion.is_some())
        .map(|j| (j.task, j.job))
        .collect();
    let work: u64 = (completed.iter())
        .map(|&(task, _)| workload.tasks[task].wcet.as_nanos())
        .sum();
    let wall: u64 = (result.segments.iter())
        .filter(|s| completed.contains(&(s.task, s.job)))
        .map(|s| s.end.saturating_sub(s.start))
        .sum();
    if wall == 0 || work * 10 < wall {
        return Err(Failure::environment(
            "the run's jobs took over ten times their work: the machine is too disturbed to measure",
        ));
    }
    Ok((wall.saturating_sub(work) as u128 * 1_000_000 / wall as u128) as u32)
}
