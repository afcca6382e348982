//! The scheduling overheads of kairos's user-space dispatcher on this
//! machine, measured on a real run and written as the workload file's `[overheads]` table with
//! one measured distribution per overhead (`docs/model.md`), so that `kairos simulate
//! --overheads FILE` charges what this machine costs ("simulate this machine"). Those of kernel
//! dispatch, where the kernel schedules the task threads, are measured by [`run_kernel`] from
//! what the jobs saw (`kernel`).
//!
//! The simulator's three overheads come from the run's histograms:
//! - `scheduling`: the decision (callbacks, decide, check, lock held) and the wait for the
//!   scheduler's lock, plus the dispatcher's timer lateness when idle cores do not wake ahead
//!   (`--lead 0s`);
//! - `context_switch`: from the dispatcher's request to the job's first instruction;
//! - `migration`: what a switch-in on another core adds to that: the distribution of request to
//!   start for jobs resuming on another core, less the median request to start of all.
//!
//! The overhead-aware analysis (`kairos analyze --overheads`) charges four more, when the run
//! measured them:
//! - `release`: a dispatcher pass with its lock wait, which is how kairos handles a release;
//! - `release_latency`: the timer's lateness (timer to handler);
//! - `ipi`: a doorbell from one core's dispatcher to another's handler;
//! - `part_callback`: the policy's callback at the end of an imprecise job's part;
//!
//! and two shares of each core: the kernel's real-time throttling (`rt_throttle`), and the
//! execution loss (`execution_loss_ppm`), the share of the workers' wall time on their cores
//! that held no work (`kairos_model::ExecutionLoss`), both charged by the analysis only.
//!
//! Sums of measured distributions are taken quantile by quantile: exact when they move
//! together, otherwise an upper bound on the sum's maximum, and on its other quantiles erring
//! toward charging too much.
//!
//! Beside them, the floor under `context_switch` on this machine
//! ([`kairos_rt::dispatcher::same_core_floor`]: a futex wake of a worker-priority thread by a
//! dispatcher-priority one on the same CPU, which then sleeps), measured after the run.

use crate::Failure;
use crate::Notify;
use kairos_model::{Duration, Workload};
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::attribution::host_stop_evidence;
use kairos_rt::dispatcher::{
    run_user, same_core_floor, UserRunConfig, DECISION_COST, DOORBELL_TO_HANDLER, LOCK_WAIT,
    MIGRATION_REQUEST_TO_START, PART_POLICY, REQUEST_TO_START, TIMER_TO_HANDLER,
};
use kairos_rt::measure::{execution_loss, RunResult, SegmentRecord};
use kairos_rt::watchdog::RunControl;

mod kernel;
mod kernel_samples;
mod quantiles;
mod worse;

pub use kernel::{run_kernel, KERNEL_POLICIES, KERNEL_WORKLOAD};
use quantiles::{
    combine, inline_table, quantiles_from_samples, quantiles_of, quantiles_of_histogram,
};

/// What to measure.
pub struct Request<'a> {
    pub workload: &'a Workload,
    /// Policy the dispatcher runs (a global one sees migrations).
    pub policy: &'a str,
    /// Length of the run (1s to 60s).
    pub duration: Duration,
    /// How early an idle core's dispatcher wakes before a release (as `kairos run --lead`).
    pub lead: Duration,
}

/// Runs at most, when the host stops them early ([`whole_run`]).
const RUNS: u32 = 3;

/// Same-core hand-offs timed for the floor (0.4 s).
const FLOOR_SAMPLES: u32 = 2000;

/// The overheads as measured (ns: min, p50, p90, p99, p99.9, max), the analysis-only ones `None`
/// when the run had no such event, and the floor under `context_switch`.
#[derive(serde::Serialize)]
pub struct Measured {
    /// `user` (kairos's dispatcher) or `kernel` (the kernel schedules the task threads).
    pub dispatch: &'static str,
    pub policy: &'static str,
    pub cpus: usize,
    pub scheduling: [u64; 6],
    pub context_switch: [u64; 6],
    pub migration: [u64; 6],
    pub release: [u64; 6],
    pub release_latency: Option<[u64; 6]>,
    pub ipi: Option<[u64; 6]>,
    pub part_callback: Option<[u64; 6]>,
    /// A same-core futex hand-off on the run's first CPU, without a decision.
    /// Under user dispatch only: the kernel's own switches are the ones measured.
    pub same_core_floor: Option<[u64; 6]>,
    /// The kernel's real-time throttling when measured, in microseconds: runtime of every
    /// period (`None`: unlimited or unreadable).
    pub rt_throttle_us: Option<(u64, u64)>,
    /// The share of the workers' wall time they did no work, parts per million
    /// ([`kairos_rt::measure::execution_loss`]).
    pub execution_loss_ppm: u32,
    /// User dispatch: the dispatcher's decisions; kernel: the preemptions sampled.
    pub decisions: u64,
    /// User dispatch: the workers' switch-ins; kernel: the hand-overs sampled.
    pub switch_ins: u64,
    /// User dispatch: the switch-ins onto another core; kernel: the hand-overs onto another CPU.
    pub migrations: u64,
}

/// Runs the workload on the dispatcher and measures its overheads; what is run is told to
/// `notify` first.
pub fn run(args: &Request, notify: Notify) -> Result<Measured, Failure> {
    check_duration(args)?;
    let workload = args.workload;
    let kind = kairos_policy::registry::of_tasks(args.policy).map_err(Failure::bad_input)?;
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let mut config = UserRunConfig::new(args.duration.as_nanos());
    config.lead_ns = args.lead.as_nanos();
    announce(notify, args, kind.cli_name(), "user");
    let once = || {
        // A control of its own per run: a stopped one stays stopped.
        config.control = Some(RunControl::new());
        let run = run_user(workload, kind.build(PriorityOrder::Auto), &config);
        Ok(run.map_err(|e| Failure::environment(e.to_string()))?.result)
    };
    let result = whole_run(once, notify)?;
    let floor = same_core_floor(result.cpus[0], FLOOR_SAMPLES)
        .map_err(|e| Failure::environment(e.to_string()))?;
    let floor = quantiles_of_histogram(&floor);
    notify(&format!(
        "floor under context_switch: a same-core futex hand-off without a decision, \
         p50 {:.1} us, p99 {:.1} us",
        floor[1] as f64 / 1000.0,
        floor[3] as f64 / 1000.0
    ));
    measure(&result, args, kind, floor)
}

/// Tells what is measured: the workload, under which policy and dispatch, for how long.
fn announce(notify: Notify, args: &Request, policy: &str, dispatch: &str) {
    let name = args.workload.name.as_deref().unwrap_or("the workload");
    let length = args.duration;
    notify(&format!(
        "measuring: {name} under {policy} ({dispatch} dispatch) for {length}"
    ));
}

/// The run's length must be 1 s to 60 s.
fn check_duration(args: &Request) -> Result<(), Failure> {
    match (1_000_000_000..=60_000_000_000).contains(&args.duration.as_nanos()) {
        true => Ok(()),
        false => Err(Failure::bad_input("--duration must be between 1s and 60s")),
    }
}

/// Runs `once` until one run is whole: a run the host stopped early
/// ([`host_stop_evidence`]: its pile-up's misses all the host's, or more than a tenth of a
/// CPU's time the host's, a measurement of the host's neighbours) runs again, at most
/// [`RUNS`] in all, its evidence told first; a run stopped for any other reason is a failure.
fn whole_run(
    mut once: impl FnMut() -> Result<RunResult, Failure>,
    notify: Notify,
) -> Result<RunResult, Failure> {
    let mut attempt = 1;
    loop {
        let signals = StopSignals::install();
        let run = once();
        let interrupted = signals.received().is_some();
        drop(signals);
        let run = run?;
        let Some(reason) = &run.stopped_by else {
            return Ok(run);
        };
        // A signal's stop is the user's, whatever the host did.
        let evidence = (!interrupted).then(|| host_stop_evidence(&run)).flatten();
        let failure = match evidence {
            Some(evidence) if attempt < RUNS => {
                attempt += 1;
                notify(&format!(
                    "host: the run stopped early ({reason}), and the host caused it: \
                     {evidence}; measuring again ({attempt} of {RUNS})"
                ));
                continue;
            }
            Some(evidence) => format!(
                "the run stopped early {RUNS} times, the last: {reason}; \
                 the host caused it: {evidence}"
            ),
            // The run's misses by cause and lost time per CPU follow.
            None => format!(
                "the run stopped early: {reason}\n{}",
                crate::run::lost_time(&run).trim_end()
            ),
        };
        return Err(Failure::environment(failure));
    }
}

/// The run's histograms as the simulator's three overheads.
fn measure(
    result: &RunResult,
    args: &Request,
    kind: PolicyKind,
    same_core_floor: [u64; 6],
) -> Result<Measured, Failure> {
    let pass = match quantiles_of(result, LOCK_WAIT) {
        Ok(wait) => combine(quantiles_of(result, DECISION_COST)?, wait),
        Err(_) => quantiles_of(result, DECISION_COST)?,
    };
    let start = quantiles_of(result, REQUEST_TO_START)?;
    let release_latency = quantiles_of(result, TIMER_TO_HANDLER).ok();
    let scheduling = match (args.lead.is_zero(), release_latency) {
        (true, Some(late)) => combine(pass, late),
        _ => pass,
    };
    let migration = match quantiles_of(result, MIGRATION_REQUEST_TO_START) {
        Ok(moved) => moved.map(|v| v.saturating_sub(start[1])),
        Err(_) => [0; 6],
    };
    let count = |name: &str| result.histograms.get(name).map_or(0, |h| h.summary.count);
    Ok(Measured {
        dispatch: "user",
        policy: kind.cli_name(),
        cpus: result.cpus.len(),
        scheduling,
        context_switch: start,
        migration,
        release: pass,
        release_latency,
        ipi: quantiles_of(result, DOORBELL_TO_HANDLER).ok(),
        part_callback: quantiles_of(result, PART_POLICY).ok(),
        same_core_floor: Some(same_core_floor),
        rt_throttle_us: rt_throttle_us(),
        execution_loss_ppm: loss_ppm(&result.segments)?,
        decisions: count(DECISION_COST),
        switch_ins: count(REQUEST_TO_START),
        migrations: count(MIGRATION_REQUEST_TO_START),
    })
}

/// The run's execution loss in parts per million; a run whose workers did no work for over
/// 90 % of their time is refused (no analysis could charge it).
fn loss_ppm(segments: &[SegmentRecord]) -> Result<u32, Failure> {
    let loss = execution_loss(segments).ok_or_else(|| {
        Failure::environment(
            "the run's workers did no work for over 90 % of their time: the machine is too disturbed to measure",
        )
    })?;
    Ok(loss.ppm())
}

impl Measured {
    /// The `[overheads]` file: a comment saying where the figures come from (`provenance`, how
    /// they were measured), then the table.
    pub fn table(&self, provenance: &str) -> String {
        overheads_table(self, provenance)
    }
}

fn overheads_table(m: &Measured, provenance: &str) -> String {
    let kernel = m.dispatch == "kernel";
    let (who, counts) = match kernel {
        true => (
            "Kernel dispatch (the kernel schedules the task threads)",
            format!(
                "{} preemptions, {} hand-overs, {} of them onto another CPU",
                m.decisions, m.switch_ins, m.migrations
            ),
        ),
        false => (
            "kairos's user-space dispatcher",
            format!(
                "{} decisions, {} switch-ins, {} migrations",
                m.decisions, m.switch_ins, m.migrations
            ),
        ),
    };
    let floor = (m.same_core_floor).map_or(String::new(), |f| {
        format!(
            "; the floor under context_switch\n\
             # (a same-core futex hand-off without a decision): p50 {}ns, p99 {}ns",
            f[1], f[3]
        )
    });
    let mut out = format!(
        "# {who} on this machine ({} CPUs used), measured by\n\
         # `{provenance}`:\n\
         # {counts}{floor}.\n\
         # Simulate this machine with `kairos simulate WORKLOAD --policy P --overheads THIS_FILE`;\n\
         # analyse a set as it runs here with `kairos analyze WORKLOAD --overheads THIS_FILE`\n\
         # (release, release_latency, ipi, part_callback, rt_throttle and execution_loss_ppm are\n\
         # charged by the analysis only).\n\
         [overheads]\n",
        m.cpus,
    );
    let rows = [
        ("scheduling", Some(m.scheduling)),
        ("context_switch", Some(m.context_switch)),
        ("migration", Some(m.migration)),
        ("release", Some(m.release)),
        ("release_latency", m.release_latency),
        ("ipi", m.ipi),
        ("part_callback", m.part_callback),
    ];
    for (key, values) in rows {
        if let Some(values) = values {
            out.push_str(&format!("{key} = {}\n", inline_table(values)));
        }
    }
    if let Some((runtime, period)) = m.rt_throttle_us {
        out.push_str(&format!(
            "rt_throttle = {{ runtime = \"{runtime}us\", period = \"{period}us\" }}\n"
        ));
    }
    out.push_str(&format!(
        "# of the workers' wall time on their cores, the share without work: interrupts, the\n\
         # stall watcher, a core slower than at calibration\n\
         execution_loss_ppm = {}\n",
        m.execution_loss_ppm
    ));
    out
}

/// This machine's real-time throttling (`/proc/sys/kernel/sched_rt_runtime_us` of
/// `sched_rt_period_us`), which the overhead-aware analysis charges as the share of a CPU left
/// to real-time work; `None` when the limit is off (`-1`) or unreadable.
fn rt_throttle_us() -> Option<(u64, u64)> {
    let (runtime, period) = kairos_os::sched::read_rt_limits()?;
    Some((u64::try_from(runtime).ok()?, u64::try_from(period).ok()?))
}

/// The table's lines without its comment, for the terminal after writing the file.
pub fn summary_lines(table: &str) -> String {
    table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_rt::measure::WorkerTime;

    /// A segment of 1 ms of wall time in which the worker did `work_us` of work.
    fn worked(work_us: u64) -> SegmentRecord {
        SegmentRecord {
            cpu: 0,
            task: 0,
            job: 0,
            start: 0,
            end: 1_000_000,
            worker_time: Some(WorkerTime {
                on_cpu: Duration::from_millis(1),
                work: Duration::from_micros(work_us),
                dispatching: Duration::ZERO,
                optional: false,
            }),
        }
    }

    #[test]
    fn a_run_whose_workers_mostly_did_no_work_is_refused() {
        assert_eq!(loss_ppm(&[worked(970)]).ok(), Some(30_000));
        assert_eq!(loss_ppm(&[worked(100)]).ok(), Some(900_000));
        let refused = loss_ppm(&[worked(99)]).expect_err("over 90 % lost");
        assert!(
            format!("{refused:?}").contains("too disturbed to measure"),
            "{refused:?}"
        );
    }
}
