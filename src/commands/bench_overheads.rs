//! `kairos bench overheads`: the scheduling overheads of kairos's user-space dispatcher, or of
//! kernel dispatch, on this machine, written as a workload's `[overheads]` table
//! (`kairos_lab::bench::overheads`), so that `kairos simulate --overheads FILE` and `kairos
//! analyze --overheads FILE` charge what this machine costs.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_lab::bench::dispatch::{parse, BUNDLED};
use kairos_lab::bench::overheads::{self, summary_lines};
use kairos_model::Duration;
use kairos_rt::periodic::PeriodicPolicy;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct OverheadsArgs {
    /// Workload to run (default, bundled: examples/runtime-2cores.toml under user dispatch,
    /// examples/kernel-overheads.toml under kernel dispatch).
    pub file: Option<PathBuf>,
    /// Policy run (a global one sees migrations). Default: gedf under user dispatch, pfp under
    /// kernel dispatch, which runs pfp, gfp and edf (or gedf: SCHED_DEADLINE).
    #[arg(long, value_parser = crate::args::policy_values(false, &[("edf", "G-EDF by the kernel's SCHED_DEADLINE (--dispatch kernel)")]))]
    pub policy: Option<String>,
    /// Who schedules: user (kairos's dispatcher, the policy object the simulator runs) or kernel
    /// (the kernel schedules one thread per task, as `kairos run --dispatch kernel`).
    #[arg(long, value_enum, default_value = "user")]
    pub dispatch: Dispatch,
    /// Length of the run (1s to 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "3s")]
    pub duration: Duration,
    /// How early an idle core's dispatcher wakes before a release (as `kairos run --lead`; user
    /// dispatch only).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "50us")]
    pub lead: Duration,
    /// Write the `[overheads]` table to this file (default: print it).
    #[arg(short = 'o', long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
    /// Print the measured distributions as JSON (ns: min, p50, p90, p99, p99.9, max per overhead,
    /// and the sample counts) instead of the table; with --out the file is still written.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dispatch {
    User,
    Kernel,
}

pub fn run(args: &OverheadsArgs) -> CommandResult {
    let policy = policy_of(args)?;
    let workload = match (&args.file, args.dispatch) {
        (Some(path), _) => crate::input::workload(path, "bench overheads")?,
        (None, Dispatch::User) => parse(BUNDLED)?,
        (None, Dispatch::Kernel) => parse(overheads::KERNEL_WORKLOAD)?,
    };
    let request = overheads::Request {
        workload: &workload,
        policy,
        duration: args.duration,
        lead: args.lead,
    };
    let notify = &mut crate::args::to_stderr;
    let measured = match args.dispatch {
        Dispatch::User => overheads::run(&request, notify)?,
        Dispatch::Kernel => overheads::run_kernel(&request, notify)?,
    };
    let table = measured.table(&provenance(args, policy));
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

/// The policy run: the one given, which the dispatch must run, or the dispatch's default.
fn policy_of(args: &OverheadsArgs) -> Result<&str, Failure> {
    let kernel = overheads::KERNEL_POLICIES;
    match (args.dispatch, args.policy.as_deref()) {
        (Dispatch::User, None) => Ok("gedf"),
        (Dispatch::Kernel, None) => Ok("pfp"),
        (Dispatch::User, Some("edf")) => Err(Failure::bad_input(
            "edf is the kernel's SCHED_DEADLINE: give --dispatch kernel (or gedf for kairos's \
             dispatcher)",
        )),
        (Dispatch::Kernel, Some(p)) if PeriodicPolicy::of_dispatched(p).is_none() => {
            Err(Failure::bad_input(format!(
                "kernel dispatch runs {}, not {p}: give --dispatch user for {p}",
                kernel.join(", ")
            )))
        }
        (_, Some(p)) => Ok(p),
    }
}

/// The command that measured the figures, recorded in the file they are written to.
fn provenance(args: &OverheadsArgs, policy: &str) -> String {
    let bundled = match args.dispatch {
        Dispatch::User => "examples/runtime-2cores.toml",
        Dispatch::Kernel => "examples/kernel-overheads.toml",
    };
    let source = (args.file.as_ref()).map_or(bundled.into(), |p| p.display().to_string());
    let how = match args.dispatch {
        Dispatch::User => format!("--lead {}", args.lead),
        Dispatch::Kernel => "--dispatch kernel".to_string(),
    };
    format!(
        "kairos bench overheads {source} --policy {policy} --duration {} {how}",
        args.duration
    )
}
