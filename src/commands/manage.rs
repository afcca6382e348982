//! `kairos manage FILE`: the run-time resource manager on this machine's cores
//! (`kairos_lab::manage`), its report printed and written.

use crate::args::{CommandResult, Failure};
use crate::commands::platform::Output;
use kairos_lab::manage::Request;
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::managed::ManagedSystem;
use kairos_model::Duration;
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
    let request = Request {
        file: args.file.clone(),
        system,
        duration: args.duration,
        isolation: args.isolation,
        managed: !args.unmanaged,
        interference: args.interference.clone(),
        irqs: args.irqs,
    };
    let quiet = args.output.quiet || args.output.json;
    let progress = Box::new(move |phase: &str| {
        if !quiet {
            eprintln!("kairos manage: {phase}");
        }
    });
    let managed = kairos_lab::manage::run(request, progress)?;
    let report = managed.report();
    if let Some(dir) = &args.output.out_dir {
        report.write(dir)?;
        kairos_lab::manage::plot::draw(dir, &report, &mut crate::args::to_stderr)?;
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
