//! `kairos manage FILE`: the run-time resource manager of the OS-latency study (sections III
//! and IV) on this machine's cores: the RT task in its partition, best-effort programs under
//! CFS quotas, the partition of every core measured each period and adapted from the learned
//! interference model ([`kairos_platform::manage`]).

mod plot;
mod report;

use crate::args::{CommandResult, Failure};
use crate::commands::platform::Output;
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::managed::ManagedSystem;
use kairos_model::Duration;
use kairos_os::signals::StopSignals;
use kairos_platform::manage::{run as run_manager, ManageConfig, ManageError};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The managed system (TOML or JSON with `manager`, `rt`, `allocations`, `best_effort`).
    pub file: PathBuf,
    /// How long the manager runs after the isolation phase.
    #[arg(long, default_value = "60s", value_parser = crate::args::duration_arg)]
    pub duration: Duration,
    /// How long the RT task first runs alone to measure T_expected (at least 10 jobs).
    #[arg(long, default_value = "2s", value_parser = crate::args::duration_arg)]
    pub isolation: Duration,
    /// Hold the file's allocations: measure, learn and predict, but change nothing.
    #[arg(long)]
    pub unmanaged: bool,
    /// `interference.json` of `kairos platform interference`: the model's prior slope
    /// (overrides the file's `manager.interference`).
    #[arg(long)]
    pub interference: Option<PathBuf>,
    /// Also move interrupts and unbound kernel threads off the RT core.
    #[arg(long)]
    pub irqs: bool,
    #[command(flatten)]
    pub output: Output,
}

pub fn run(args: &Args) -> CommandResult {
    let system = load(&args.file)?;
    let prior = match &prior_path(args, &system) {
        Some(path) => Some(prior_per_call(path, &system.rt.work)?),
        None => None,
    };
    let _signals = StopSignals::install();
    let quiet = args.output.quiet || args.output.json;
    let config = ManageConfig {
        system: system.clone(),
        duration: args.duration,
        isolation: args.isolation,
        managed: !args.unmanaged,
        prior_per_call_ns: prior,
        irqs: args.irqs,
        progress: Box::new(move |phase| {
            if !quiet {
                eprintln!("kairos manage: {phase}");
            }
        }),
    };
    let outcome = run_manager(config).map_err(manage_failure)?;
    let report = report::Report::new(&args.file, &system, !args.unmanaged, &outcome, prior);
    if let Some(dir) = &args.output.out_dir {
        report.write(dir)?;
        plot::draw(dir, &report)?;
    }
    match args.output.json {
        true => println!(
            "{}",
            serde_json::to_string_pretty(&report.json()).expect("serializes")
        ),
        false => print!("{}", report.text()),
    }
    Ok(0)
}

fn load(path: &Path) -> Result<ManagedSystem, Failure> {
    let options = LoadOptions::default();
    match crate::input::load_for(path, "manage", &[InputKind::Managed], &options)?.input {
        Input::Managed(system) => Ok(system),
        _ => unreachable!("a managed file loads to a managed system"),
    }
}

fn prior_path(args: &Args, system: &ManagedSystem) -> Option<PathBuf> {
    args.interference.clone().or_else(|| {
        let given = system.manager.interference.as_ref()?;
        let base = args.file.parent().unwrap_or(Path::new("."));
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
