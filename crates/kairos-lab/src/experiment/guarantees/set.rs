//! One set under one family: the family's tests without and with the overheads charged
//! (`kairos_lab::analyze::analyze_with`, Brandenburg's accounting), and, when either accepts
//! it, a run under the family's policy — on this machine's cores on kairos's user-space
//! dispatcher, or in the simulator charging the profile's overheads — for `duration`.

use super::family::{self, Family};
use crate::analyze::{analyze_with, OverheadRequest, TestVerdict};
use kairos_analysis::overheads::Quantile;
use kairos_analysis::registry::TestList;
use kairos_analysis::Verdict;
use kairos_model::{Duration, Overheads, Workload};
use kairos_os::signals;
use kairos_policy::ExecutionTimeModel;
use kairos_rt::calibrate::Calibration;
use kairos_rt::dispatcher::{run_user, UserRunConfig};
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::{run_periodic, PeriodicConfig};
use kairos_rt::watchdog::RunControl;
use kairos_sim::SimConfig;

/// Where accepted sets run.
pub enum Execution {
    /// On the first cores of this machine, their busy work calibrated once for the study.
    Real(Calibration),
    /// In the simulator, every switch charged a draw from the profile's distributions.
    Simulated,
}

/// What every set of a study shares.
pub struct Setup {
    /// The profile cut at `quantile` ([`Quantile::cap`]): what the analysis charges, and no
    /// draw of a simulation above it, so that a simulated miss breaks the guarantee and a real
    /// one is weighed against the schedule the guarantee promises.
    pub profile: Overheads,
    /// Kernel dispatch's own profile, likewise cut, for the families the kernel schedules
    /// (none: they are charged `profile`).
    pub kernel_profile: Option<Overheads>,
    pub quantile: Quantile,
    pub duration: Duration,
    pub execution: Execution,
}

/// What one set gives one family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// The ideal analysis accepts the set.
    pub ideal: bool,
    /// The overhead-aware analysis accepts it.
    pub aware: bool,
    /// The run, when either accepted it.
    pub ran: Option<Counts>,
    /// The set as it ran, when the overhead-aware analysis accepted it and the run still
    /// missed by the schedule: a broken guarantee, kept to be run again by hand.
    pub kept: Option<Kept>,
}

/// A set as files `kairos run` reads, and the arguments that run it as the study did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// `(extension, contents)`: the set's `.toml` first, then any file its run needs and
    /// what its run saw ([`EVIDENCE`]).
    pub files: Vec<(&'static str, String)>,
    /// The `kairos run` arguments after the set's file: `{stem}` stands for the files' path
    /// without extension, `{profile}` for the profile's.
    pub run_args: String,
}

impl Judged {
    /// `kept` when the overhead-aware analysis accepted and the run `counts` a schedule miss
    /// on real cores (`real`; a simulated run is not what `kairos run` would repeat).
    pub(super) fn with_run(
        self,
        counts: Counts,
        real: bool,
        kept: impl FnOnce() -> Kept,
    ) -> Judged {
        let broken = real && self.aware && counts.schedule > 0;
        Judged {
            ran: Some(counts),
            kept: broken.then(kept),
            ..self
        }
    }
}

/// What one run counts: its misses by cause (`kairos_rt::attribution`: `host` when stalls of
/// the machine, or a core slowed under the job, took more than the slack the job had in the
/// run's simulated twin, `schedule` otherwise; a simulation has only the latter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub jobs: u64,
    pub misses: u64,
    pub schedule: u64,
    pub host: u64,
    /// Of the host misses, those the stalled twin decided (`kairos_rt::attribution`'s third
    /// case).
    pub host_stalled_twin: u64,
    /// The watchdog ended the run before its duration.
    pub stopped: bool,
}

impl Counts {
    pub(super) fn of(result: &RunResult) -> Counts {
        Counts {
            jobs: result.jobs_released,
            misses: result.deadline_misses,
            schedule: result.misses_by_cause.schedule,
            host: result.misses_by_cause.host,
            host_stalled_twin: result.misses_by_cause.by_stalled_twin.unwrap_or(0),
            stopped: result.stopped_by.is_some(),
        }
    }
}

impl Setup {
    /// The profile charged to `family`'s sets.
    pub fn profile_for(&self, family: Family) -> Overheads {
        match (family.kernel(), self.kernel_profile) {
            (Some(_), Some(kernel)) => kernel,
            _ => self.profile,
        }
    }
}

/// `workload` (drawn from `seed`) judged and, when accepted, run under `family`.
pub fn judge(
    family: Family,
    workload: &Workload,
    seed: u64,
    setup: &Setup,
) -> Result<Judged, String> {
    let list = TestList::parse(family.tests()).expect("the family's tests are registered");
    let request = OverheadRequest {
        profile: Some(setup.profile_for(family)),
        quantile: setup.quantile,
    };
    let analysis = analyze_with("set", workload, &list, &request);
    let aware = (analysis.overheads.as_ref()).filter(|o| o.schedulable);
    let judged = Judged {
        ideal: analysis.schedulable,
        aware: aware.is_some(),
        ..Judged::default()
    };
    // When the overhead-aware analysis accepts, its partition and optional deadlines run: its
    // guarantee is the one the run puts to the test.
    let verdict = match aware {
        Some(aware) => accepting(&aware.tests),
        None if analysis.schedulable => accepting(&analysis.tests),
        None => return Ok(judged),
    };
    let ready = family::prepared(family, workload, verdict).map_err(|f| f.message)?;
    let (counts, evidence) = match &setup.execution {
        Execution::Real(calibration) => on_cores(family, &ready, seed, setup, calibration)?,
        Execution::Simulated => (simulated(family, &ready, seed, setup)?, String::new()),
    };
    let real = matches!(setup.execution, Execution::Real(_));
    Ok(judged.with_run(counts, real, || Kept {
        files: vec![
            (".toml", kairos_model::workload_write::to_toml(&ready)),
            (EVIDENCE, evidence),
        ],
        run_args: format!(
            "--policy {} --dispatch {} --duration {} --seed {seed} --compare --overheads {} --overhead-quantile {}",
            family.kind().cli_name(),
            family.dispatch(),
            setup.duration,
            match (family.kernel(), setup.kernel_profile) {
                (Some(_), Some(_)) => KERNEL_PROFILE,
                _ => "{profile}",
            },
            setup.quantile.name(),
        ),
    }))
}

/// The verdict of the first test that accepted.
fn accepting(tests: &[TestVerdict]) -> &Verdict {
    let test = tests.iter().find(|t| t.verdict.schedulable);
    &test
        .expect("an accepting analysis has an accepting test")
        .verdict
}

/// The file beside a kept set with what its run in the study saw: its misses by cause, the
/// stalls and schedule misses named, each core's lost time (as `kairos run` prints them). A
/// rerun meets another moment of the host; this is the evidence the study judged.
pub const EVIDENCE: &str = ".run.txt";

/// Stands in a kept set's `kairos run` arguments for kernel dispatch's profile file.
pub const KERNEL_PROFILE: &str = "{kernel-profile}";

/// A run on this machine's cores, stopped cleanly by SIGINT or SIGTERM: on the dispatcher
/// (one dispatcher thread and SCHED_FIFO workers per core, as `kairos run --dispatch user`
/// runs), or one thread per task that the kernel schedules (`--dispatch kernel`); its misses
/// attributed against its twins, the simulation of the same run charging the family's profile
/// and, when a miss is left with the schedule, the same with the run's stalls as outages (as
/// `kairos run --compare --overheads PROFILE` attributes them); with the attribution's text.
fn on_cores(
    family: Family,
    workload: &Workload,
    seed: u64,
    setup: &Setup,
    calibration: &Calibration,
) -> Result<(Counts, String), String> {
    stopped()?;
    let duration = setup.duration.as_nanos();
    // The calibrated CPUs, named: what the first online CPUs are can change.
    let mut result = match family.kernel() {
        Some(policy) => {
            let mut config = PeriodicConfig::new(policy, duration);
            (config.priorities, config.seed) = (family.order(), seed);
            config.cpus = Some(calibration.per_core.iter().map(|c| c.cpu).collect());
            run_periodic(workload, &config, calibration, RunControl::new())
        }
        None => {
            let mut config = UserRunConfig::new(duration);
            config.cpus = Some(calibration.per_core.iter().map(|c| c.cpu).collect());
            config.calibration = Some(calibration.clone());
            config.control = Some(RunControl::new());
            config.seed = seed;
            let policy = family.kind().build(family.order());
            run_user(workload, policy, &config).map(|run| run.result)
        }
    }
    .map_err(|e| e.to_string())?;
    stopped()?;
    // Both runtimes run each job for its WCET, as the twin draws it.
    let draws = (ExecutionTimeModel::Wcet, seed);
    let mut quiet = |_: &str| {};
    let profile = setup.profile_for(family);
    let policy = (family.kind(), family.order());
    let charged = (profile, Some(&profile));
    // Kernel dispatch numbers its stalls by CPU and the kernel placed the jobs: no stalled twin.
    let ran = (&result, family.kernel().is_none());
    let twins = crate::run::periodic_twins(workload, policy, ran, charged, draws, &mut quiet)
        .map_err(|f| f.message)?;
    crate::run::weigh(&mut result, twins);
    let evidence = crate::run::lost_time(&result);
    Ok((Counts::of(&result), evidence))
}

/// An error once SIGINT or SIGTERM came: no run starts after it, and the one it ended does
/// not count.
pub(super) fn stopped() -> Result<(), String> {
    match signals::received() {
        Some(signal) => Err(format!(
            "stopped by {}; the points finished before it are kept and the study resumes after them",
            signals::signal_name(signal)
        )),
        None => Ok(()),
    }
}

/// The same run in the simulator, charging the profile's switch and migration costs.
fn simulated(
    family: Family,
    workload: &Workload,
    seed: u64,
    setup: &Setup,
) -> Result<Counts, String> {
    let mut policy = family.kind().build(family.order());
    let config = SimConfig {
        duration: setup.duration,
        seed,
        overheads: setup.profile_for(family),
        ..SimConfig::default()
    };
    let outcome =
        kairos_sim::simulate(workload, policy.as_mut(), &config).map_err(|e| e.to_string())?;
    Ok(Counts {
        jobs: outcome.metrics.jobs_released,
        misses: outcome.metrics.deadline_misses,
        schedule: outcome.metrics.deadline_misses,
        host: 0,
        host_stalled_twin: 0,
        stopped: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(kernel: Option<Overheads>) -> Setup {
        let cost = |us| kairos_model::Cost::Fixed(Duration::from_micros(us));
        Setup {
            profile: Overheads {
                context_switch: cost(10),
                ..Overheads::default()
            },
            kernel_profile: kernel.map(|mut k| {
                k.context_switch = cost(3);
                k
            }),
            quantile: Quantile::P99,
            duration: Duration::from_secs(1),
            execution: Execution::Simulated,
        }
    }

    #[test]
    fn a_kernel_family_is_charged_kernel_dispatchs_profile_when_there_is_one() {
        let both = setup(Some(Overheads::default()));
        let switch = |s: &Setup, f| s.profile_for(f).context_switch;
        assert_ne!(switch(&both, Family::PfpKernel), switch(&both, Family::Gfp));
        assert_eq!(
            switch(&both, Family::GfpKernel),
            switch(&both, Family::PfpKernel)
        );
        assert_eq!(both.profile_for(Family::Gfp), both.profile);
        // A given profile only: every family is charged it.
        let given = setup(None);
        assert_eq!(given.profile_for(Family::PfpKernel), given.profile);
    }
}
