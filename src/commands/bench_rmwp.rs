//! `kairos bench rmwp`: the overhead measurements of Chishiro and Yamasaki's evaluation of
//! G-RMWP and P-RMWP on this machine's cores (`kairos_lab::bench::rmwp`).

use crate::args::{duration_arg, CommandResult};
use kairos_lab::bench::rmwp;
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RmwpArgs {
    /// Numbers of tasks, one set each.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
    pub tasks: Vec<usize>,
    /// Real-time utilization per core of every set (the paper's U).
    #[arg(long, default_value_t = 0.5)]
    pub utilization: f64,
    /// Cores (the first online CPUs).
    #[arg(long, default_value_t = 2)]
    pub cores: usize,
    /// Length of each run (1s to 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "2s")]
    pub duration: Duration,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Folder for rmwp-overheads.csv and the plots (default: print the table only).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &RmwpArgs) -> CommandResult {
    let request = rmwp::Request {
        tasks: args.tasks.clone(),
        utilization: args.utilization,
        cores: args.cores,
        duration: args.duration,
        seed: args.seed,
    };
    let rows = rmwp::run(&request, &mut crate::args::to_stderr)?;
    match args.json {
        true => crate::args::print_json(&rows),
        false => print!("{}", rmwp::text(&rows)),
    }
    if let Some(dir) = &args.out_dir {
        let files = rmwp::write(dir, &rows, &args.tasks, &mut crate::args::to_stderr)?;
        let files = files.join(", ");
        eprintln!("wrote {}/rmwp-overheads.csv and {files}", dir.display());
    }
    Ok(0)
}
