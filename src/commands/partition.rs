//! `kairos partition`: an RT and a best-effort partition inside this Linux (as in
//! Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux)), made,
//! held until a signal, or undone (`--reset`, which also repairs what a crashed run left). See
//! [`kairos_platform::partition`] for the mechanisms and the state file.

use crate::args::{CommandResult, Failure};
use kairos_os::signals::StopSignals;
use kairos_platform::partition::state::{cpu_list, parse_cpu_list, State};
use kairos_platform::partition::{apply, reset, PartitionError, Plan, Report};

/// A CPU list on the command line ("1", "0-3,6").
#[derive(Clone, Debug)]
pub struct CpuList(pub Vec<usize>);

fn cpu_list_arg(text: &str) -> Result<CpuList, String> {
    parse_cpu_list(text).map(CpuList)
}

#[derive(clap::Args)]
pub struct Args {
    /// The RT partition's CPUs (a list such as 1 or 2-3).
    #[arg(long, value_parser = cpu_list_arg, required_unless_present = "reset")]
    pub rt: Option<CpuList>,
    /// The best-effort partition's CPUs (default: every other CPU).
    #[arg(long, value_parser = cpu_list_arg)]
    pub be: Option<CpuList>,
    /// Also move interrupts and unbound kernel threads off the RT CPUs.
    #[arg(long)]
    pub irqs: bool,
    /// Use affinity masks even where cpusets exist.
    #[arg(long)]
    pub affinity_only: bool,
    /// Keep the partition until SIGINT or SIGTERM, then undo it (default: leave it in place
    /// until `kairos partition --reset`).
    #[arg(long)]
    pub hold: bool,
    /// Undo the partition in place (after a run, a signal or a crash).
    #[arg(long, conflicts_with_all = ["rt", "be", "irqs", "hold", "affinity_only"])]
    pub reset: bool,
    /// Print what was done as JSON.
    #[arg(long)]
    pub json: bool,
}

fn failure(e: PartitionError) -> Failure {
    match e {
        PartitionError::Refused(m) => Failure::bad_input(m),
        e => Failure::environment(e.to_string()),
    }
}

pub fn run(args: &Args) -> CommandResult {
    if args.reset {
        let undone = reset().map_err(failure)?;
        if args.json {
            crate::args::print_json(&serde_json::json!({ "undone": undone }));
            return Ok(0);
        }
        return match undone {
            Some(state) => {
                println!(
                    "partition undone: RT CPUs {}, best-effort CPUs {}; {} change(s) reverted",
                    cpu_list(&state.rt),
                    cpu_list(&state.be),
                    state.changes.len()
                );
                Ok(0)
            }
            None => {
                println!("no partition in place: nothing to undo");
                Ok(0)
            }
        };
    }
    kairos_os::privilege::require_rt()
        .map_err(|e| Failure::environment(format!("partitioning needs root: {e}")))?;
    let rt = args
        .rt
        .clone()
        .expect("clap requires --rt without --reset")
        .0;
    let be = args.be.clone().map(|b| b.0).unwrap_or_else(|| {
        (kairos_os::online_cpus().into_iter())
            .filter(|c| !rt.contains(c))
            .collect()
    });
    let plan = Plan {
        rt,
        be,
        irqs: args.irqs,
        affinity_only: args.affinity_only,
    };
    let signals = args.hold.then(StopSignals::install);
    let (state, report) = match apply(&plan) {
        Ok(done) => done,
        Err(e) => {
            // Undo whatever was recorded before the failure.
            let _ = reset();
            return Err(failure(e));
        }
    };
    print_report(&state, &report, args)?;
    if let Some(signals) = signals {
        while signals.received().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        reset().map_err(failure)?;
        eprintln!("partition undone on a stop signal");
    }
    Ok(0)
}

fn print_report(state: &State, report: &Report, args: &Args) -> Result<(), Failure> {
    match args.json {
        true => crate::args::print_json(&serde_json::json!({ "state": state, "report": report })),
        false => print!(
            "{}",
            kairos_lab::text::partition(state, report, args.irqs, args.hold)
        ),
    }
    Ok(())
}
