//! The run-time resource manager of the OS-latency study (sections III and IV) on this
//! machine's cores: the RT task in its partition, best-effort programs under CFS quotas, the
//! partition of every core measured each period and adapted from the learned interference model
//! ([`kairos_platform::manage`]); its report ([`report`]) and chart ([`plot`]).

pub mod plot;
pub mod report;

use crate::Failure;
use kairos_model::managed::ManagedSystem;
use kairos_model::Duration;
use kairos_os::signals::StopSignals;
use kairos_platform::manage::{run as run_manager, ManageConfig, ManageError, ManageOutcome};
use std::path::{Path, PathBuf};

/// What to run.
pub struct Request {
    /// The managed-system file (names the report; its `interference` is relative to it).
    pub file: PathBuf,
    pub system: ManagedSystem,
    pub duration: Duration,
    /// How long the RT task runs alone first, to learn its isolated time.
    pub isolation: Duration,
    /// False: the partition stays as configured (the baseline).
    pub managed: bool,
    /// The interference fits to start from, instead of the file's.
    pub interference: Option<PathBuf>,
    /// Route the RT cores' interrupts to the best-effort ones during the run.
    pub irqs: bool,
}

/// A finished managed run.
pub struct Managed {
    file: PathBuf,
    system: ManagedSystem,
    managed: bool,
    outcome: ManageOutcome,
    prior_per_call_ns: Option<f64>,
}

impl Managed {
    /// The run's report (text, JSON, files).
    pub fn report(&self) -> report::Report<'_> {
        let (system, outcome) = (&self.system, &self.outcome);
        report::Report::new(
            &self.file,
            system,
            self.managed,
            outcome,
            self.prior_per_call_ns,
        )
    }
}

/// Runs the manager as `request` asks; `progress` is told each phase as it starts. SIGINT and
/// SIGTERM stop the run cleanly.
pub fn run(
    request: Request,
    progress: Box<dyn Fn(&str) + Send + Sync>,
) -> Result<Managed, Failure> {
    let prior = match &prior_path(&request) {
        Some(path) => Some(prior_per_call(path, &request.system.rt.work)?),
        None => None,
    };
    let _signals = StopSignals::install();
    let config = ManageConfig {
        system: request.system.clone(),
        duration: request.duration,
        isolation: request.isolation,
        managed: request.managed,
        prior_per_call_ns: prior,
        irqs: request.irqs,
        progress,
    };
    let outcome = run_manager(config).map_err(manage_failure)?;
    Ok(Managed {
        file: request.file,
        system: request.system,
        managed: request.managed,
        outcome,
        prior_per_call_ns: prior,
    })
}

fn prior_path(request: &Request) -> Option<PathBuf> {
    request.interference.clone().or_else(|| {
        let given = request.system.manager.interference.as_ref()?;
        let base = request.file.parent().unwrap_or(Path::new("."));
        Some(base.join(given))
    })
}

/// The measured slope of `work`'s mean per call (ns per stressed core) from
/// `interference.json`. The mean (ACET), not the median (MCET): a job's time is the sum of its
/// calls, so it grows by the mean's growth per call, and interference that comes as interrupts
/// hits few calls and leaves the median where it was (static-key beside syscall here: mean
/// +0.21 µs per call, median +0.00).
fn prior_per_call(path: &Path, work: &str) -> Result<f64, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Failure::bad_input(format!("{}: not JSON: {e}", path.display())))?;
    let fits = json["fits"].as_array().ok_or_else(|| {
        Failure::bad_input(format!(
            "{}: no `fits` (write it with kairos platform interference --out-dir DIR)",
            path.display()
        ))
    })?;
    fits.iter()
        .find(|f| f["bench"] == work && f["stat"] == "acet")
        .and_then(|f| f["slope_ns"].as_f64())
        .ok_or_else(|| {
            Failure::bad_input(format!(
                "{}: no ACET fit for {work}: measure it with --bench {work}",
                path.display()
            ))
        })
}

fn manage_failure(e: ManageError) -> Failure {
    match e {
        ManageError::Platform(kairos_os::PlatformError::Interrupted) => {
            Failure::environment("interrupted before the run: nothing written")
        }
        e => Failure::environment(e.to_string()),
    }
}
