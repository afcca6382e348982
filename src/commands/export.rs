//! `kairos export rt-app FILE -o tasks.json`: the task set as an rt-app workload (rt-app, the
//! scheduler-test generator of the Linux scheduler community: JSON with `global` and `tasks`),
//! so a set analysed and simulated in kairos runs under rt-app as well. The threads get the
//! policy, priority or reservation, and CPUs that `kairos run` itself would give them (the
//! runtime's plan, [`kairos_rt::periodic::plan`]); each job is a `run` of the WCET on an
//! absolute `timer` of the period.

use crate::args::{write_output, CommandResult, Failure};
use kairos_model::{Duration, Workload};
use kairos_os::sched::Policy;
use kairos_rt::periodic::{plan, PeriodicConfig, PeriodicPolicy};
use serde_json::{json, Map, Value};
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
    let seconds = args.duration.as_nanos().div_ceil(1_000_000_000);
    if seconds == 0 {
        return Err(Failure::bad_input(
            "--duration must be at least 1s (rt-app counts whole seconds)",
        ));
    }
    let cpus = match args.cpus.is_empty() {
        true => (0..workload.cores).collect(),
        false => args.cpus.clone(),
    };
    let config = PeriodicConfig::new(policy, args.duration.as_nanos());
    let plan = plan(&workload, &config, &cpus).map_err(|e| Failure::bad_input(e.to_string()))?;
    let document = document(&workload, &plan.threads, seconds);
    let text = serde_json::to_string_pretty(&document).expect("serializes") + "\n";
    write_output(&args.out, text)?;
    if args.json {
        crate::args::print_json(&json!({
            "out": args.out.display().to_string(),
            "tasks": workload.tasks.len(),
            "seconds": seconds,
            "policy": args.policy,
            "notes": plan.notes,
        }));
        return Ok(0);
    }
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    println!(
        "wrote {}: {} task(s), {} s, {}",
        args.out.display(),
        workload.tasks.len(),
        seconds,
        args.policy
    );
    Ok(0)
}

/// Whole microseconds, rt-app's unit, at least 1.
fn us(d: Duration) -> u64 {
    d.as_nanos().div_ceil(1000).max(1)
}

fn document(
    workload: &Workload,
    threads: &[kairos_rt::periodic::ThreadPlan],
    seconds: u64,
) -> Value {
    let mut tasks = Map::new();
    for thread in threads {
        let task = &workload.tasks[thread.task];
        let mut entry = json!({
            "cpus": thread.cpus,
            "loop": -1,
            "run": us(task.wcet),
            "timer": { "ref": task.name, "period": us(task.period) },
        });
        let fields = entry.as_object_mut().expect("an object");
        match thread.policy {
            Policy::Fifo { priority } => {
                fields.insert("policy".into(), json!("SCHED_FIFO"));
                fields.insert("priority".into(), json!(priority));
            }
            Policy::Deadline(p) => {
                fields.insert("policy".into(), json!("SCHED_DEADLINE"));
                fields.insert("dl-runtime".into(), json!(p.runtime.div_ceil(1000)));
                fields.insert("dl-period".into(), json!(p.period.div_ceil(1000)));
                fields.insert("dl-deadline".into(), json!(p.deadline.div_ceil(1000)));
            }
            Policy::Other => {
                fields.insert("policy".into(), json!("SCHED_OTHER"));
            }
        }
        if !task.offset.is_zero() {
            fields.insert("delay".into(), json!(us(task.offset)));
        }
        tasks.insert(task.name.clone(), entry);
    }
    // `log_size` is left out: the Debian rt-app 1.0 build reads it inverted.
    json!({
        "global": {
            "duration": seconds,
            "calibration": "CPU0",
            "default_policy": "SCHED_OTHER",
            "lock_pages": true,
            "logdir": "./",
            "log_basename": "rt-app",
            "ftrace": false,
            "gnuplot": false,
        },
        "tasks": tasks,
    })
}
