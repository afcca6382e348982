//! `kairos bench synth FILE...`: how long GMH-MC-DAG table synthesis takes on the user's own
//! systems, first in this process and warm (`kairos_lab::bench::synth`).

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_lab::bench::synth::{table, time_file};
use kairos_mc::{Policy, SynthOptions};
use kairos_model::input::LoadOptions;
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SynthBenchArgs {
    /// MC-DAG systems: kairos TOML/JSON, or the MC-DAG framework's XML (.xml).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Slot priority policy.
    #[arg(long, value_parser = ["gedzl", "gedf", "gllf"], default_value = "gedzl")]
    pub policy: String,
    /// Number of cores, replacing each file's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Length of one time unit of an XML file (the format has no unit).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
    /// Warm syntheses per file after the first; the median is reported.
    #[arg(long, default_value_t = 31, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub repeat: u64,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &SynthBenchArgs) -> CommandResult {
    let options = SynthOptions {
        policy: Policy::from_name(&args.policy).unwrap_or_default(),
        cores: args.cores.map(|c| c as usize),
    };
    let mut rows = Vec::with_capacity(args.files.len());
    let load = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    for path in &args.files {
        let system = crate::input::mc_system(path, "bench synth", &load)?;
        let name = path.display().to_string();
        let row = time_file(name, &system, &options, args.repeat)
            .map_err(|why| Failure::bad_input(format!("{}: {why}", path.display())))?;
        rows.push(row);
    }
    match args.json {
        true => crate::args::print_json(&rows),
        false => print!("{}", table(&rows, &args.policy)),
    }
    Ok(0)
}
