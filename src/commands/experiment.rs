//! `kairos experiment CONFIG.toml`: the command line of the lab's experiments
//! (`kairos_lab::experiment`: acceptance-ratio sweeps, the RT-Xen and the guarantees studies).
//! Here the options become a request, the experiment's progress a bar, and its results text or
//! JSON.

use crate::args::CommandResult;
use indicatif::ProgressBar;
use kairos_lab::experiment::{self, Cluster, Event, Outcome, Request};
use std::path::PathBuf;
use std::sync::OnceLock;

#[derive(clap::Args)]
pub struct ExperimentArgs {
    /// Experiment config (TOML); see docs/analyze.md.
    pub config: PathBuf,
    /// Output folder (default: `results/<config name>`).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Discard results of an earlier run in the output folder instead of resuming.
    #[arg(long)]
    pub fresh: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Check the config and print the plan without running it.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the summary (ratios per point and method, files written) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run the task sets on a Dask cluster: the scheduler's address (tcp://host:8786). The
    /// results are the local run's, byte for byte.
    #[arg(long, value_name = "ADDRESS")]
    pub dask: Option<String>,
    /// The Python with the kairos package and Dask's `distributed` that drives the cluster
    /// (default: $KAIROS_PYTHON, else python3).
    #[arg(long, requires = "dask")]
    pub python: Option<PathBuf>,
}

pub fn run(args: &ExperimentArgs) -> CommandResult {
    let request = Request {
        config: args.config.clone(),
        out_dir: args.out_dir.clone(),
        jobs: args.jobs,
        fresh: args.fresh,
        dry_run: args.dry_run,
        dask: (args.dask.as_deref()).map(|address| Cluster::new(address, args.python.clone())),
    };
    // The bar appears once the experiment knows how many sets are left to run.
    let bar: OnceLock<ProgressBar> = OnceLock::new();
    let observe = |event: Event| match event {
        Event::Notice(line) => match bar.get() {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        },
        Event::Start { sets } => {
            bar.get_or_init(|| sets_bar(sets, args.quiet || args.json));
        }
        Event::Point { utilization } => {
            if let Some(bar) = bar.get() {
                bar.set_message(format!("U = {utilization}"));
            }
        }
        Event::Done { sets } => {
            if let Some(bar) = bar.get() {
                bar.inc(sets);
            }
        }
    };
    let outcome = experiment::run(&request, &observe);
    if let Some(bar) = bar.get() {
        bar.finish_and_clear();
    }
    match outcome? {
        Outcome::Planned(plan) => print!("{plan}"),
        Outcome::Finished(finished) if args.json => println!(
            "{}",
            serde_json::to_string_pretty(&finished).expect("summary serializes")
        ),
        Outcome::Finished(finished) => print!("{}", finished.text),
    }
    Ok(0)
}

/// A progress bar over `sets` task sets (`crate::progress` decides whether it is drawn).
fn sets_bar(sets: u64, quiet: bool) -> ProgressBar {
    let template = "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} sets, ETA {eta} {msg}";
    crate::progress::bar(sets, template, quiet)
}
