//! `kairos bench dispatch`: what kairos's user-space dispatcher costs on this machine, against
//! the kernel on the same work (`kairos_lab::bench::dispatch`).

use crate::args::{duration_arg, CommandResult};
use kairos_lab::bench::dispatch::{self, parse, BUNDLED};
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DispatchArgs {
    /// Workload for the per-policy part (default: examples/runtime-2cores.toml, bundled).
    pub file: Option<PathBuf>,
    /// Length of each run (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "3s")]
    pub duration: Duration,
    /// Rounds of the release-latency comparison (kernel then user, each round).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Period of the release-latency tasks (one per CPU, 20us of work each).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "1ms")]
    pub interval: Duration,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DispatchArgs) -> CommandResult {
    let workload = match &args.file {
        Some(path) => crate::input::workload(path, "bench dispatch")?,
        None => parse(BUNDLED)?,
    };
    let request = dispatch::Request {
        workload: &workload,
        duration: args.duration,
        rounds: args.rounds,
        interval: args.interval,
    };
    let report = dispatch::run(&request, &mut crate::args::to_stderr)?;
    match args.json {
        true => crate::args::print_json(&report),
        false => print!("{}", report.text()),
    }
    Ok(0)
}
