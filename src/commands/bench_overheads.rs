//! `kairos bench overheads`: the scheduling overheads of kairos's user-space dispatcher on this
//! machine, written as a workload's `[overheads]` table (`kairos_lab::bench::overheads`), so
//! that `kairos simulate --overheads FILE` charges what this machine costs.

use crate::args::{duration_arg, CommandResult};
use kairos_lab::bench::dispatch::{parse, BUNDLED};
use kairos_lab::bench::overheads::{self, summary_lines};
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct OverheadsArgs {
    /// Workload to run (default: examples/runtime-2cores.toml, bundled).
    pub file: Option<PathBuf>,
    /// Policy the dispatcher runs (a global one sees migrations).
    #[arg(long, value_parser = crate::args::policy_values(false, &[]), default_value = "gedf")]
    pub policy: String,
    /// Length of the run (1s to 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "3s")]
    pub duration: Duration,
    /// How early an idle core's dispatcher wakes before a release (as `kairos run --lead`).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "50us")]
    pub lead: Duration,
    /// Write the [overheads] table to this file (default: print it).
    #[arg(short = 'o', long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
    /// Print the measured distributions as JSON (ns: min, p50, p90, p99, p99.9, max per overhead,
    /// and the sample counts) instead of the table; with --out the file is still written.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &OverheadsArgs) -> CommandResult {
    let workload = match &args.file {
        Some(path) => crate::input::workload(path, "bench overheads")?,
        None => parse(BUNDLED)?,
    };
    let request = overheads::Request {
        workload: &workload,
        policy: &args.policy,
        duration: args.duration,
        lead: args.lead,
    };
    let measured = overheads::run(&request, &mut crate::args::to_stderr)?;
    let table = measured.table(&provenance(args));
    if let Some(path) = &args.out {
        crate::args::write_output(path, &table)?;
    }
    match (&args.out, args.json) {
        (_, true) => crate::args::print_json(&measured),
        (Some(path), false) => {
            print!("{}", summary_lines(&table));
            println!("written to {}", path.display());
        }
        (None, false) => print!("{table}"),
    }
    Ok(0)
}

/// The command that measured the figures, recorded in the file they are written to.
fn provenance(args: &OverheadsArgs) -> String {
    let source = (args.file.as_ref()).map_or("examples/runtime-2cores.toml".into(), |p| {
        p.display().to_string()
    });
    format!(
        "kairos bench overheads {source} --policy {} --duration {} --lead {}",
        args.policy, args.duration, args.lead
    )
}
