//! `kairos bench synth FILE...`: how long GMH-MC-DAG table synthesis takes on the user's own
//! systems, in two figures per file.
//!
//! - **first**: the first synthesis of that file in this process. Its memory is fresh from the
//!   kernel, so on a virtual machine it pays a page fault per 4 KiB touched; this is what one
//!   `kairos synth` invocation costs (its `time_ms`).
//! - **warm**: the median of `--repeat` further syntheses, with the allocator's memory and the
//!   caches already in use: the figure to set next to a reference tool whose JIT was warmed
//!   (`scripts/bench-mcdag-reference.sh` does).
//!
//! Import and checking are not timed: they are the same for every policy and are reported by
//! `kairos check`.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_mc::{synthesize, Policy, SynthOptions, Synthesis};
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, McSystem};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant as WallClock;

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

/// The figures of one file.
#[derive(Serialize)]
struct FileTimes {
    file: String,
    /// Hyper-period in slots.
    slots: u64,
    jobs: u64,
    intervals: u64,
    /// Whether the policy produced tables (a refusal is timed too: up to its verdict).
    schedulable: bool,
    first_ms: f64,
    warm_median_ms: f64,
    warm_min_ms: f64,
    repeat: u64,
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
    if args.json {
        let text = serde_json::to_string_pretty(&rows).expect("figures serialize");
        println!("{text}");
    } else {
        print_table(&rows, &args.policy);
    }
    Ok(0)
}

/// Times one system: the first synthesis, then `repeat` more.
fn time_file(
    file: String,
    system: &McSystem,
    options: &SynthOptions,
    repeat: u64,
) -> Result<FileTimes, String> {
    let (first, outcome) = timed(system, options);
    let outcome = match outcome {
        Err(failure) if failure.is_input_error() => return Err(failure.to_string()),
        other => other,
    };
    let mut warm: Vec<f64> = (0..repeat).map(|_| timed(system, options).0).collect();
    warm.sort_by(f64::total_cmp);
    let (slots, jobs, intervals) = match &outcome {
        Ok(out) => (
            out.tables.hyperperiod / out.slot.as_nanos(),
            out.quality.total.jobs,
            out.quality.total.intervals,
        ),
        Err(_) => (hyperperiod_slots(system), 0, 0),
    };
    Ok(FileTimes {
        file,
        slots,
        jobs,
        intervals,
        schedulable: outcome.is_ok(),
        first_ms: first,
        warm_median_ms: warm[warm.len() / 2],
        warm_min_ms: warm[0],
        repeat,
    })
}

/// One synthesis and its wall time in milliseconds.
fn timed(
    system: &McSystem,
    options: &SynthOptions,
) -> (f64, Result<Synthesis, kairos_mc::SynthFailure>) {
    let start = WallClock::now();
    let outcome = synthesize(system, options);
    (start.elapsed().as_secs_f64() * 1e3, outcome)
}

/// The hyper-period in slots of a system synthesis refused (0 if it has no grid).
fn hyperperiod_slots(system: &McSystem) -> u64 {
    kairos_mc::grid::Grid::of(system).map_or(0, |g| g.hyperperiod)
}

fn print_table(rows: &[FileTimes], policy: &str) {
    let width = rows.iter().map(|r| r.file.len()).max().unwrap_or(0).max(4);
    println!(
        "{:<width$} {:>9} {:>7} {:>9} {:>10} {:>10} {:>10}  outcome",
        "file", "slots", "jobs", "intervals", "first ms", "warm ms", "warm min"
    );
    for r in rows {
        println!(
            "{:<width$} {:>9} {:>7} {:>9} {:>10.3} {:>10.3} {:>10.3}  {}",
            r.file,
            r.slots,
            r.jobs,
            r.intervals,
            r.first_ms,
            r.warm_median_ms,
            r.warm_min_ms,
            if r.schedulable { "tables" } else { "no tables" }
        );
    }
    let repeat = rows.first().map_or(0, |r| r.repeat);
    println!(
        "policy {policy}; first: the first synthesis in this process (fresh memory); warm: median \
         of {repeat} more"
    );
}
