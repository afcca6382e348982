//! `kairos exec`: the task assigner of Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux). `--rt` starts a command in the RT partition under
//! SCHED_FIFO or SCHED_RR with the RT CPUs' affinity; `--be` in the best-effort partition
//! under SCHED_OTHER. kairos joins the partition, sets the policy and then replaces itself with
//! the command (execvp), so its exit status and signals are the command's own.

use crate::args::{CommandResult, Failure};
use kairos_os::sched;
use kairos_platform::partition::state::State;
use std::os::unix::process::CommandExt;

#[derive(clap::Args)]
pub struct Args {
    /// Run in the RT partition with a real-time policy.
    #[arg(long, conflicts_with = "be", required_unless_present = "be")]
    pub rt: bool,
    /// Run in the best-effort partition under SCHED_OTHER.
    #[arg(long)]
    pub be: bool,
    /// The real-time policy (with --rt).
    #[arg(long, value_parser = ["fifo", "rr"], default_value = "fifo")]
    pub policy: String,
    /// The kernel's real-time priority (with --rt): 1 to 99, 99 the most urgent, as chrt
    /// counts; the reverse of a workload's `priority`, where 1 is the most important.
    #[arg(long = "rt-priority", alias = "priority", value_name = "1-99", default_value = "50", value_parser = clap::value_parser!(u8).range(1..=99))]
    pub rt_priority: u8,
    /// The command and its arguments (after `--`).
    #[arg(trailing_var_arg = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// A real-time priority as the kernel takes it (1..=99, checked by clap).
#[derive(Clone, Copy)]
struct RtPriority(u8);

pub fn run(args: &Args) -> CommandResult {
    let state = State::load()
        .map_err(|e| Failure::environment(format!("cannot read the partition state: {e}")))?
        .ok_or_else(|| {
            Failure::bad_input(
                "no partition in place: make one first with kairos partition --rt CPUS",
            )
        })?;
    let (cpus, cpuset) = match args.rt {
        true => (&state.rt, state.cpusets.as_ref().map(|c| &c.0)),
        false => (&state.be, state.cpusets.as_ref().map(|c| &c.1)),
    };
    if let Some(dir) = cpuset {
        std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string()).map_err(|e| {
            Failure::environment(format!(
                "cannot join {}: {e} (kairos exec needs root)",
                dir.display()
            ))
        })?;
    }
    sched::set_affinity(0, cpus).map_err(|e| Failure::environment(e.to_string()))?;
    match args.rt {
        true => set_rt(&args.policy, RtPriority(args.rt_priority))?,
        false => sched::set_other(0).map_err(|e| Failure::environment(e.to_string()))?,
    }
    let error = std::process::Command::new(&args.command[0])
        .args(&args.command[1..])
        .exec();
    // exec only returns on failure; the shells' conventions for the status.
    eprintln!("error: cannot run {}: {error}", args.command[0]);
    Ok(if error.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    })
}

fn set_rt(policy: &str, priority: RtPriority) -> Result<(), Failure> {
    let priority = i32::from(priority.0);
    let set = match policy {
        "rr" => sched::set_rr_self(priority),
        _ => sched::set_fifo(0, priority),
    };
    set.map_err(|e| Failure::environment(format!("cannot set a real-time policy: {e}")))
}
