//! `kairos bench migration | mode-change | cyclic`: the table runtime's benchmarks
//! (`kairos_lab::bench::table`), printed point by point and written into `--out-dir`.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_lab::bench::table::{self, Cyclic, Migration, ModeChange};
use kairos_lab::bench::TableReport;
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct MigrationArgs {
    /// Length of the migrating run (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// The task moves to the other core at every window boundary.
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "1ms")]
    pub window: Duration,
    /// Samples of each raw mechanism (futex wake, sched_setaffinity).
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    /// Folder for the CSV and the plots.
    #[arg(long, value_name = "DIR", default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct ModeChangeArgs {
    /// Numbers of tasks, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4,8,12,16")]
    pub tasks: Vec<usize>,
    #[arg(long, default_value_t = 2)]
    pub cores: usize,
    /// Hyper-periods per point, one mode change each.
    #[arg(long, default_value_t = 200)]
    pub periods: u64,
    /// LO budget of every task (HI tasks get twice as much at HI).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "500us")]
    pub unit: Duration,
    /// Folder for the CSV and the plots.
    #[arg(long, value_name = "DIR", default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct CyclicArgs {
    /// Cores used: `2..` (2 up to this machine's), `2..8`, or a single number.
    #[arg(long, default_value = "2..")]
    pub cores: String,
    /// Every task moves to the next core at every window boundary.
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "10ms")]
    pub window: Duration,
    /// Length of the run per number of cores (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// Folder for the CSV and the plots.
    #[arg(long, value_name = "DIR", default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `kairos bench migration`.
pub fn migration(args: &MigrationArgs) -> CommandResult {
    let request = Migration {
        duration: args.duration,
        window: args.window,
        samples: args.samples,
        out_dir: args.out_dir.clone(),
    };
    show(args.json, |say| table::migration(&request, say))
}

/// `kairos bench mode-change`.
pub fn mode_change(args: &ModeChangeArgs) -> CommandResult {
    let request = ModeChange {
        tasks: args.tasks.clone(),
        cores: args.cores,
        periods: args.periods,
        unit: args.unit,
        out_dir: args.out_dir.clone(),
    };
    show(args.json, |say| table::mode_change(&request, say))
}

/// `kairos bench cyclic`.
pub fn cyclic(args: &CyclicArgs) -> CommandResult {
    let request = Cyclic {
        cores: args.cores.clone(),
        window: args.window,
        duration: args.duration,
        out_dir: args.out_dir.clone(),
    };
    show(args.json, |say| table::cyclic(&request, say))
}

/// Runs a bench, its table printed as it goes (or its JSON at the end), then what it wrote.
fn show(
    json: bool,
    bench: impl FnOnce(kairos_lab::Notify) -> Result<TableReport, Failure>,
) -> CommandResult {
    let mut say = |line: &str| {
        if !json {
            println!("{line}");
        }
    };
    let report = bench(&mut say)?;
    for warning in &report.warnings {
        eprintln!("{warning}");
    }
    match json {
        true => crate::args::print_json(&report),
        false => println!("{}", report.written()),
    }
    Ok(0)
}
