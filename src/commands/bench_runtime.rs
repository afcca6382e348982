//! `kairos bench <runtime bench>`: measurements of the Linux runtime on this machine (benchmarks,
//! not tests: nothing here asserts a latency). Each runtime benchmark is a variant of [`RuntimeBench`]; the
//! table-driven runtime adds its own (migration, mode change, cyclic migrations) next to
//! `timer`.
//!
//! `timer` runs, back to back on the same machine: kairos' timer-latency probe (the quantity
//! cyclictest reports: wake-up time minus programmed time, `kairos_rt::probe`), the release
//! latency of `kairos run` with one 1 ms periodic task per CPU, and with `--cyclictest`
//! `cyclictest -m -S -p 80 -i 1000 -D 10 -q -h 5000` itself, whose histogram is parsed; it
//! prints the three distributions and the ratios of the medians (kairos run's release latency
//! should stay near cyclictest's: docs/bench.md).

use crate::args::{duration_arg, CommandResult};
use kairos_model::Duration;

/// The benchmarks with a subcommand of their own: the Linux runtime's, table synthesis, and
/// analysis and simulation at scale.
#[derive(clap::Subcommand)]
pub enum RuntimeBench {
    /// Timer wake-up latency (cyclictest's quantity) and kairos run's release latency,
    /// optionally next to cyclictest run back to back.
    Timer(TimerArgs),
    /// Slot-boundary migration of the table runtime next to the raw floor (futex wake,
    /// sched_setaffinity to the other CPU).
    Migration(crate::commands::bench_table::MigrationArgs),
    /// Mode change time of the table runtime against the number of tasks (docs/bench.md).
    ModeChange(crate::commands::bench_table::ModeChangeArgs),
    /// Every task migrating to the next core every window (docs/bench.md).
    Cyclic(crate::commands::bench_table::CyclicArgs),
    /// The user-space dispatcher: release latency against kernel SCHED_FIFO (alternating
    /// rounds) and, per policy, decision cost, dispatch latencies and agreement with the
    /// simulation (docs/bench.md).
    Dispatch(crate::commands::bench_dispatch::DispatchArgs),
    /// The user-space dispatcher's overheads as measured distributions, written as a
    /// workload's `[overheads]` table for `kairos simulate --overheads` (docs/bench.md).
    Overheads(crate::commands::bench_overheads::OverheadsArgs),
    /// The overhead measurements of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP:
    /// end_mandatory, end_optional, terminate_optional, the scheduler and a whole dispatcher
    /// pass, average and maximum, against the number of tasks (docs/bench.md).
    Rmwp(crate::commands::bench_rmwp::RmwpArgs),
    /// The VMM scheduler's costs on real cores (rt-global, rt-partition, credit): the
    /// distributions of RT-Xen 2.0's do_schedule and context_switch counterparts
    /// (docs/bench.md).
    Vmm(crate::commands::bench_vmm::VmmArgs),
    /// Table synthesis time per MC-DAG file: the first synthesis in the process and the warm
    /// median (docs/synth.md).
    Synth(crate::commands::bench_synth::SynthBenchArgs),
    /// Every default analysis test on 10,000 generated tasks on 64 cores, and G-EDF simulated
    /// on 100,000 tasks for 1 s: wall times, events, ns per event (docs/bench.md).
    Scale(crate::commands::bench_scale::ScaleArgs),
}

#[derive(clap::Args)]
pub struct TimerArgs {
    /// Length of each measurement (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "10s")]
    pub duration: Duration,
    /// Timer period (at least 100us).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "1ms")]
    pub interval: Duration,
    /// Also run cyclictest (Debian package rt-tests) with the same interval and duration.
    #[arg(long)]
    pub cyclictest: bool,
    /// Print the distributions as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(bench: &RuntimeBench) -> CommandResult {
    match bench {
        RuntimeBench::Timer(args) => timer(args),
        RuntimeBench::Migration(args) => crate::commands::bench_table::migration(args),
        RuntimeBench::ModeChange(args) => crate::commands::bench_table::mode_change(args),
        RuntimeBench::Cyclic(args) => crate::commands::bench_table::cyclic(args),
        RuntimeBench::Synth(args) => crate::commands::bench_synth::run(args),
        RuntimeBench::Scale(args) => crate::commands::bench_scale::run(args),
        RuntimeBench::Dispatch(args) => crate::commands::bench_dispatch::run(args),
        RuntimeBench::Overheads(args) => crate::commands::bench_overheads::run(args),
        RuntimeBench::Rmwp(args) => crate::commands::bench_rmwp::run(args),
        RuntimeBench::Vmm(args) => crate::commands::bench_vmm::run(args),
    }
}

fn timer(args: &TimerArgs) -> CommandResult {
    let request = kairos_lab::bench::timer::Request {
        duration: args.duration,
        interval: args.interval,
        cyclictest: args.cyclictest,
    };
    let report = kairos_lab::bench::timer::run(&request)?;
    match args.json {
        true => crate::args::print_json(&report.rows),
        false => print!("{}", report.text()),
    }
    // A failing cyclictest does not throw away what kairos measured: printed, then the failure.
    report.cyclictest_failure.map_or(Ok(0), Err)
}
