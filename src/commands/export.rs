//! `kairos export rt-app FILE -o tasks.json`: the task set as an rt-app workload (rt-app, the
//! scheduler-test generator of the Linux scheduler community: JSON with `global` and `tasks`),
//! so a set analysed and simulated in kairos runs under rt-app as well. The threads get the
//! policy, priority or reservation, and CPUs that `kairos run` itself would give them (the
//! runtime's plan, [`kairos_rt::periodic::plan`]); each job is a `run` of the WCET on an
//! absolute `timer` of the period.

use crate::args::{write_output, CommandResult, Failure};
use kairos_lab::interchange::rt_app;
use kairos_model::Duration;
use kairos_rt::periodic::PeriodicPolicy;
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub format: ExportFormat,
}

#[derive(clap::Subcommand)]
pub enum ExportFormat {
    /// rt-app's JSON workload: one thread per task, a `run` of the WCET every period.
    RtApp(RtAppArgs),
}

#[derive(clap::Args)]
pub struct RtAppArgs {
    /// The workload (TOML or JSON).
    pub file: PathBuf,
    /// Where to write the rt-app JSON.
    #[arg(short = 'o', long = "out", alias = "output", value_name = "FILE.json")]
    pub out: PathBuf,
    /// Print what was written as JSON (`out`, `tasks`, `seconds`, `policy`, `notes`).
    #[arg(long)]
    pub json: bool,
    /// How long rt-app runs (its `global.duration`, whole seconds, at least 1).
    #[arg(long, default_value = "10s", value_parser = crate::args::duration_arg)]
    pub duration: Duration,
    /// How the kernel schedules the threads, as `kairos run` does: pfp (SCHED_FIFO, each task
    /// on its core), gfp (SCHED_FIFO on every core), edf (SCHED_DEADLINE).
    #[arg(long, default_value = "pfp")]
    pub policy: String,
    /// The machine's CPUs the workload's cores map to, in order (default 0, 1, ...).
    #[arg(long, value_delimiter = ',')]
    pub cpus: Vec<usize>,
}

pub fn run(args: &Args) -> CommandResult {
    match &args.format {
        ExportFormat::RtApp(a) => rt_app(a),
    }
}

fn rt_app(args: &RtAppArgs) -> CommandResult {
    let workload = crate::input::workload(&args.file, "export")?;
    let policy = PeriodicPolicy::from_cli_name(&args.policy).ok_or_else(|| {
        Failure::bad_input(format!(
            "unknown --policy {:?}: pfp, gfp or edf",
            args.policy
        ))
    })?;
    let exported = rt_app::export(&workload, policy, args.duration, &args.cpus)?;
    let text = serde_json::to_string_pretty(&exported.document).expect("serializes") + "\n";
    write_output(&args.out, text)?;
    if args.json {
        crate::args::print_json(&json!({
            "out": args.out.display().to_string(),
            "tasks": workload.tasks.len(),
            "seconds": exported.seconds,
            "policy": args.policy,
            "notes": exported.notes,
        }));
        return Ok(0);
    }
    for note in &exported.notes {
        eprintln!("note: {note}");
    }
    println!(
        "wrote {}: {} task(s), {} s, {}",
        args.out.display(),
        workload.tasks.len(),
        exported.seconds,
        args.policy
    );
    Ok(0)
}
