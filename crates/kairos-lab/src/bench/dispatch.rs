//! What kairos's user-space dispatcher costs on this machine, against
//! the kernel on the same work (a benchmark, nothing asserted):
//!
//! 1. **release latency**, user dispatch against kernel SCHED_FIFO, in alternating rounds back
//!    to back: one short periodic task pinned to each CPU (`pfp`), so no job ever waits for
//!    another and the latency is the mechanism's alone (kernel: timer to the task's thread;
//!    user without lead: timer to the dispatcher, decision, futex wake of the worker; user
//!    with the default lead: the idle core's dispatcher decides ahead and the worker starts at
//!    the release itself);
//! 2. **per policy** (gedf, pedf, gfp, pfp, edzl) on a workload (default: the bundled
//!    `examples/runtime-2cores.toml`): the decision cost (callbacks, decide and check, lock
//!    held), the timer lateness, request to start (all and migrations), and how many jobs ran
//!    the simulation's core sequence (the simulation charging the run's measured overheads,
//!    as `kairos run --compare` does).

use crate::compare::{compare, RealRun};
use crate::{Failure, Notify};
use kairos_model::{check_source, Duration, Format, Workload};
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::calibrate::{calibrate, Calibration};
use kairos_rt::dispatcher::{self as user, run_user, UserRunConfig};
use kairos_rt::measure::{RunResult, Summary};
use kairos_rt::periodic::{run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::watchdog::RunControl;
use serde::Serialize;

/// The benchmark workload bundled with kairos (`examples/runtime-2cores.toml`).
pub const BUNDLED: &str = include_str!("../../../../examples/runtime-2cores.toml");

/// What to measure.
pub struct Request<'a> {
    /// Workload for the per-policy part.
    pub workload: &'a Workload,
    /// Length of each run (1s to 60s).
    pub duration: Duration,
    /// Rounds of the release-latency comparison (kernel then user, each round).
    pub rounds: usize,
    /// Period of the release-latency tasks (one per CPU, 20us of work each).
    pub interval: Duration,
}

/// One round of the release-latency comparison.
#[derive(Serialize)]
pub struct Round {
    pub kernel_ns: Summary,
    /// User dispatch, idle dispatchers waking at the release itself.
    pub user_no_lead_ns: Summary,
    /// User dispatch, idle dispatchers waking `DEFAULT_LEAD_NS` ahead (the default).
    pub user_ns: Summary,
    /// User medians over the kernel median.
    pub ratio_no_lead: f64,
    pub ratio: f64,
}

/// One policy's costs under user dispatch.
#[derive(Serialize)]
pub struct PolicyRow {
    pub policy: &'static str,
    pub jobs_released: u64,
    pub jobs_completed: u64,
    pub deadline_misses: u64,
    pub migrations: u64,
    pub decision_ns: Summary,
    pub timer_to_handler_ns: Summary,
    pub request_to_start_ns: Summary,
    pub migration_request_to_start_ns: Summary,
    pub lock_wait_ns: Summary,
    pub same_core_sequence_percent: f64,
}

#[derive(Serialize)]
pub struct Report {
    pub cpus: Vec<usize>,
    pub run_ns: u64,
    /// The release-latency tasks' period.
    #[serde(skip)]
    pub interval: Duration,
    pub release_latency: Vec<Round>,
    /// Median over rounds of the per-round ratio.
    pub release_latency_ratio_median: f64,
    pub policies: Vec<PolicyRow>,
}

/// Measures as `request` asks, each phase announced to `notify`.
pub fn run(args: &Request, notify: Notify) -> Result<Report, Failure> {
    let duration = args.duration.as_nanos();
    if !(1_000_000_000..=60_000_000_000).contains(&duration) {
        return Err(Failure::bad_input("--duration must be between 1s and 60s"));
    }
    if args.rounds == 0 || args.rounds > 20 {
        return Err(Failure::bad_input("--rounds must be between 1 and 20"));
    }
    let workload = args.workload;
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let cpus = kairos_os::online_cpus();
    let calibration = calibrate(&cpus).map_err(|e| Failure::environment(e.to_string()))?;
    let signals = StopSignals::install();
    let pinned = one_task_per_cpu(cpus.len(), args.interval)?;
    let mut rounds = Vec::new();
    for round in 0..args.rounds {
        notify(&format!(
            "release latency, round {} of {}",
            round + 1,
            args.rounds
        ));
        let kernel = kernel_run(&pinned, duration, &calibration)?.release_latency_ns;
        interrupted(&signals)?;
        let pfp = PolicyKind::PartitionedFp;
        let no_lead = user_run(&pinned, pfp, duration, &calibration, 0)?.release_latency_ns;
        interrupted(&signals)?;
        let lead = user::DEFAULT_LEAD_NS;
        let user = user_run(&pinned, pfp, duration, &calibration, lead)?.release_latency_ns;
        interrupted(&signals)?;
        let ratio = |s: &Summary| s.p50 as f64 / kernel.p50.max(1) as f64;
        rounds.push(Round {
            ratio_no_lead: ratio(&no_lead),
            ratio: ratio(&user),
            kernel_ns: kernel,
            user_no_lead_ns: no_lead,
            user_ns: user,
        });
    }
    let mut policies = Vec::new();
    for kind in PolicyKind::ALL {
        let name = workload.name.as_deref().unwrap_or("the workload");
        notify(&format!("{} on {name}", kind.cli_name()));
        let result = user_run(
            workload,
            kind,
            duration,
            &calibration,
            user::DEFAULT_LEAD_NS,
        )?;
        interrupted(&signals)?;
        policies.push(policy_row(workload, kind, &result, notify)?);
    }
    drop(signals);
    let mut ratios: Vec<f64> = rounds.iter().map(|r| r.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    Ok(Report {
        cpus,
        run_ns: duration,
        interval: args.interval,
        release_latency_ratio_median: ratios[ratios.len() / 2],
        release_latency: rounds,
        policies,
    })
}

/// The bundled benchmark workload, or another given as text.
pub fn parse(source: &str) -> Result<Workload, Failure> {
    check_source(source, Format::Toml)
        .workload
        .ok_or_else(|| Failure::bad_input("the benchmark workload is not valid"))
}

/// One task of 20us per CPU, bound to it, released every `period`.
fn one_task_per_cpu(cpus: usize, period: Duration) -> Result<Workload, Failure> {
    if period < Duration::from_micros(100) {
        return Err(Failure::bad_input("--interval must be at least 100us"));
    }
    let mut source = format!("name = \"release-latency\"\ncores = {cpus}\n");
    for core in 0..cpus {
        source.push_str(&format!(
            "[[tasks]]\nname = \"t{core}\"\nwcet = \"20us\"\nperiod = \"{}ns\"\ncore = {core}\n",
            period.as_nanos()
        ));
    }
    parse(&source)
}

fn kernel_run(w: &Workload, duration: u64, c: &Calibration) -> Result<RunResult, Failure> {
    let config = PeriodicConfig::new(PeriodicPolicy::Pfp, duration);
    run_periodic(w, &config, c, RunControl::new()).map_err(|e| Failure::environment(e.to_string()))
}

fn user_run(
    w: &Workload,
    kind: PolicyKind,
    duration: u64,
    c: &Calibration,
    lead_ns: u64,
) -> Result<RunResult, Failure> {
    let mut config = UserRunConfig::new(duration);
    config.calibration = Some(c.clone());
    config.lead_ns = lead_ns;
    let run = run_user(w, kind.build(PriorityOrder::Auto), &config)
        .map_err(|e| Failure::environment(e.to_string()))?;
    Ok(run.result)
}

fn policy_row(
    w: &Workload,
    kind: PolicyKind,
    r: &RunResult,
    notify: Notify,
) -> Result<PolicyRow, Failure> {
    let overheads = kairos_rt::dispatcher::measured_overheads(r);
    let wcet = (kairos_sim::ExecutionTimeModel::Wcet, 0);
    let ran = RealRun::of(r);
    let sim =
        crate::compare::simulate_same(w, kind, PriorityOrder::Auto, ran, overheads, wcet, notify)?;
    let summary = |name: &str| {
        r.histograms
            .get(name)
            .map(|h| h.summary)
            .unwrap_or_default()
    };
    Ok(PolicyRow {
        policy: kind.cli_name(),
        jobs_released: r.jobs_released,
        jobs_completed: r.jobs_completed,
        deadline_misses: r.deadline_misses,
        migrations: r.migrations,
        decision_ns: summary(user::DECISION_COST),
        timer_to_handler_ns: summary(user::TIMER_TO_HANDLER),
        request_to_start_ns: summary(user::REQUEST_TO_START),
        migration_request_to_start_ns: summary(user::MIGRATION_REQUEST_TO_START),
        lock_wait_ns: summary(user::LOCK_WAIT),
        same_core_sequence_percent: compare(&r.trace, &sim).same_core_percent(),
    })
}

fn interrupted(signals: &StopSignals) -> Result<(), Failure> {
    match signals.received() {
        Some(_) => Err(Failure::environment("interrupted")),
        None => Ok(()),
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}

impl Report {
    /// The report in text, as `kairos bench dispatch` prints it.
    pub fn text(&self) -> String {
        text(self)
    }
}

fn text(r: &Report) -> String {
    let mut out = format!(
        "user-space dispatch on CPU(s) {:?}, {} per run\nrelease latency, one 20us task per CPU every {} (pfp), medians in us:\n",
        r.cpus,
        Duration::from_nanos(r.run_ns),
        r.interval
    );
    for (i, round) in r.release_latency.iter().enumerate() {
        out.push_str(&format!(
            "  round {}: kernel FIFO {} (p99 {}); user {} (p99 {}), {:.2}x; user without lead {} (p99 {}), {:.2}x\n",
            i + 1,
            us(round.kernel_ns.p50),
            us(round.kernel_ns.p99),
            us(round.user_ns.p50),
            us(round.user_ns.p99),
            round.ratio,
            us(round.user_no_lead_ns.p50),
            us(round.user_no_lead_ns.p99),
            round.ratio_no_lead
        ));
    }
    out.push_str(&format!(
        "  median ratio user/kernel: {:.2}x\nper policy (us: p50/p99; same core: jobs on the simulation's core sequence):\n",
        r.release_latency_ratio_median
    ));
    out.push_str(&format!(
        "  {:<6} {:>6} {:>7} {:>6} {:>13} {:>13} {:>13} {:>13} {:>10}\n",
        "policy",
        "jobs",
        "misses",
        "migr",
        "decision",
        "timer late",
        "req->start",
        "migr->start",
        "same core"
    ));
    for p in &r.policies {
        let pair = |s: &Summary| format!("{}/{}", us(s.p50), us(s.p99));
        out.push_str(&format!(
            "  {:<6} {:>6} {:>7} {:>6} {:>13} {:>13} {:>13} {:>13} {:>9.1}%\n",
            p.policy,
            p.jobs_completed,
            p.deadline_misses,
            p.migrations,
            pair(&p.decision_ns),
            pair(&p.timer_to_handler_ns),
            pair(&p.request_to_start_ns),
            pair(&p.migration_request_to_start_ns),
            p.same_core_sequence_percent
        ));
    }
    out
}
