//! `kairos report FILE -o report.html`: the one self-contained page `kairos_lab::report` builds
//! (the workload, the analysis, each policy's simulation; an MC system's tables and mode
//! changes; a VM system's interfaces and two-level schedule), written where asked.

use crate::args::{duration_arg, CommandResult};
use crate::input::load_for;
use kairos_lab::report::{headline, write, Request, TAKES};
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, Instant};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A workload (.toml or .json), a SimSo configuration (.xml), a mixed-criticality DAG system
    /// (kairos file or MC-DAG framework .xml), or a VM system (`kairos check` says which).
    pub file: PathBuf,
    /// The policies to simulate, comma-separated. Default: grmwp, prmwp, grm and prm for a
    /// workload with imprecise tasks, else gedf, pedf, gfp, pfp and edzl.
    #[arg(long, value_delimiter = ',', value_parser = crate::args::policy_values(false, &[]))]
    pub policies: Option<Vec<String>>,
    /// Simulated time per policy (default: as `kairos simulate`, the feasibility interval
    /// (one hyper-period, or max offset + 2 of them with offsets), at most 10 s).
    #[arg(long, value_parser = duration_arg)]
    pub duration: Option<Duration>,
    /// The part of each schedule the Gantt charts show, e.g. 0ms..50ms (cut at the simulated
    /// duration).
    #[arg(long, value_name = "START..END", default_value = "0ms..100ms", value_parser = crate::args::window_arg)]
    pub gantt_window: (Instant, Instant),
    /// Seed of the random draws (mixed-criticality overruns).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Mixed-criticality systems: each job above the lowest level overruns to a higher level's
    /// WCET with this probability, so the page shows mode changes.
    #[arg(long, default_value_t = 0.2)]
    pub overrun: f64,
    /// The most events each simulation's trace may hold, estimated before it runs (past it the
    /// report is refused: shorten --duration or raise the cap).
    #[arg(long, value_name = "N", default_value_t = kairos_lab::simulate::budget::DEFAULT_MAX_TRACE_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_events: u64,
    /// The page to write.
    #[arg(short = 'o', long = "out", alias = "output", value_name = "FILE.html")]
    pub out: PathBuf,
    /// Print what the page holds as JSON (`out`, `file`, `kind`, `duration_ns`, and per
    /// simulation its policy, jobs released and completed, deadline misses) after writing it.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> CommandResult {
    let taken = load_for(&args.file, "report", &TAKES, &LoadOptions::default())?;
    let request = Request {
        file: &args.file,
        policies: args.policies.as_deref(),
        duration: args.duration,
        gantt_window: args.gantt_window,
        seed: args.seed,
        overrun: args.overrun,
        max_events: args.max_events,
    };
    let notify = &mut crate::args::to_stderr;
    let written = write(&request, taken.input, &args.out, notify)?;
    if args.json {
        crate::args::print_json(&written);
    } else {
        println!("{}", headline(&written));
    }
    Ok(0)
}
