//! `kairos bench scale`: every default analysis test on a large generated set and G-EDF
//! simulated on a larger one (`kairos_lab::bench::scale`), with a spinner per stage on a
//! terminal.

use crate::args::{duration_arg, CommandResult};
use kairos_lab::bench::scale::{self, Request, MAX_ANALYSIS_TASKS, MAX_SIMULATION_TASKS};
use kairos_model::Duration;

#[derive(clap::Args)]
pub struct ScaleArgs {
    /// Tasks of the analysed set.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=MAX_ANALYSIS_TASKS as u64))]
    pub tasks: u64,
    /// Tasks of the simulated set.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=MAX_SIMULATION_TASKS as u64))]
    pub sim_tasks: u64,
    /// Cores of both sets (total utilization half of them).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=kairos_model::decode::MAX_CORES as u64))]
    pub cores: u64,
    /// Simulated time (at most 10s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "1s")]
    pub duration: Duration,
    /// Seed of both sets.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &ScaleArgs) -> CommandResult {
    let request = Request {
        analysis_tasks: args.tasks as usize,
        simulation_tasks: args.sim_tasks as usize,
        cores: args.cores as usize,
        duration: args.duration,
        seed: args.seed,
    };
    let mut spinner = None;
    let report = scale::run(&request, &mut |stage| {
        drop(spinner.take());
        spinner = Some(crate::progress::spinner(stage, args.json));
    })?;
    drop(spinner);
    match args.json {
        true => crate::args::print_json(&report),
        false => print!("{}", report.text()),
    }
    Ok(0)
}
