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

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_lab::platform::cyclictest::{on_path, parse_cyclictest_histogram};
use kairos_model::{check_source, Duration, Format};
use kairos_os::{privilege, signals::StopSignals};
use kairos_rt::calibrate::calibrate;
use kairos_rt::measure::{Distribution, Summary};
use kairos_rt::periodic::{run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::probe::timer_latency;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;

/// The benchmarks with a subcommand of their own: the Linux runtime's, and table synthesis.
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
    /// workload's [overheads] table for `kairos simulate --overheads` (docs/bench.md).
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
        RuntimeBench::Dispatch(args) => crate::commands::bench_dispatch::run(args),
        RuntimeBench::Overheads(args) => crate::commands::bench_overheads::run(args),
        RuntimeBench::Rmwp(args) => crate::commands::bench_rmwp::run(args),
        RuntimeBench::Vmm(args) => crate::commands::bench_vmm::run(args),
    }
}

/// One measured distribution of the timer bench.
#[derive(Serialize)]
struct Row {
    what: String,
    latency_ns: Summary,
}

fn timer(args: &TimerArgs) -> CommandResult {
    let (duration, interval) = (args.duration.as_nanos(), args.interval.as_nanos());
    if !(1_000_000_000..=60_000_000_000).contains(&duration) {
        return Err(Failure::bad_input("--duration must be between 1s and 60s"));
    }
    if interval < 100_000 || interval > duration {
        return Err(Failure::bad_input(
            "--interval must be at least 100us and at most --duration",
        ));
    }
    if args.cyclictest && !on_path("cyclictest") {
        return Err(Failure::environment(CYCLICTEST_MISSING));
    }
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let cpus = kairos_os::online_cpus();
    let signals = StopSignals::install();
    let mut rows = Vec::new();
    let probe = timer_latency(&cpus, interval, duration, RunControl::new())
        .map_err(|e| Failure::environment(e.to_string()))?;
    rows.push(Row {
        what: "kairos probe (clock_nanosleep ABSTIME, FIFO 80, one thread per CPU)".into(),
        latency_ns: probe.merged().summary(),
    });
    interrupted(&signals)?;
    rows.push(Row {
        what: format!(
            "kairos run release latency (one {} periodic task per CPU, pfp)",
            args.interval
        ),
        latency_ns: run_release_latency(cpus.len(), args.interval, duration)?,
    });
    interrupted(&signals)?;
    // A failing cyclictest must not throw away what kairos measured: print it, then fail.
    let reference = match args.cyclictest {
        true => Some(cyclictest(interval, duration)),
        false => None,
    };
    let failure = match reference {
        Some(Ok(histogram)) => {
            rows.push(Row {
                what: format!(
                    "cyclictest -m -S -p 80 -i {} -D {} -q -h 5000",
                    interval / 1000,
                    duration.div_ceil(1_000_000_000)
                ),
                latency_ns: histogram.summary(),
            });
            None
        }
        Some(Err(failure)) => Some(failure),
        None => None,
    };
    drop(signals);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("rows serialize")
        );
    } else {
        print_rows(&rows, cpus.len(), args, probe.dma_latency_held);
    }
    failure.map_or(Ok(0), Err)
}

const CYCLICTEST_MISSING: &str =
    "cyclictest is not installed: `apt-get install -y rt-tests` (Debian), then run again";

fn interrupted(signals: &StopSignals) -> Result<(), Failure> {
    match signals.received() {
        Some(_) => Err(Failure::environment("interrupted")),
        None => Ok(()),
    }
}

/// Release latency of `kairos run` with one short periodic task pinned to each CPU.
fn run_release_latency(cpus: usize, period: Duration, duration: u64) -> Result<Summary, Failure> {
    let mut source = format!("name = \"timer-bench\"\ncores = {cpus}\n");
    for core in 0..cpus {
        source.push_str(&format!(
            "[[tasks]]\nname = \"t{core}\"\nwcet = \"20us\"\nperiod = \"{}ns\"\ncore = {core}\n",
            period.as_nanos()
        ));
    }
    let workload = check_source(&source, Format::Toml)
        .workload
        .ok_or_else(|| Failure::bad_input("--interval too short for a 20us job"))?;
    let config = PeriodicConfig::new(PeriodicPolicy::Pfp, duration);
    let calibration =
        calibrate(&kairos_os::online_cpus()).map_err(|e| Failure::environment(e.to_string()))?;
    let result = run_periodic(&workload, &config, &calibration, RunControl::new())
        .map_err(|e| Failure::environment(e.to_string()))?;
    Ok(result.release_latency_ns)
}

/// Runs cyclictest under `timeout -s KILL` and reads its histogram (1 us buckets).
fn cyclictest(interval: u64, duration: u64) -> Result<Distribution, Failure> {
    let seconds = duration.div_ceil(1_000_000_000);
    let output = std::process::Command::new("timeout")
        .args(["-s", "KILL", &(seconds + 15).to_string(), "cyclictest"])
        .args(["-m", "-S", "-p", "80", "-q", "-h", "5000"])
        .args(["-i", &(interval / 1000).to_string()])
        .args(["-D", &seconds.to_string()])
        .output()
        .map_err(|e| Failure::environment(format!("cannot run timeout/cyclictest: {e}")))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() && output.status.code() == Some(127) {
        return Err(Failure::environment(CYCLICTEST_MISSING));
    }
    let histogram = parse_cyclictest_histogram(&text);
    if histogram.count() == 0 {
        return Err(Failure::environment(format!(
            "cyclictest gave no histogram (exit {:?}): {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(histogram)
}

fn print_rows(rows: &[Row], cpus: usize, args: &TimerArgs, dma_held: bool) {
    println!(
        "timer latency on {cpus} CPU(s), {} at {} each (wake-up or start minus programmed time); /dev/cpu_dma_latency {}",
        args.duration,
        args.interval,
        if dma_held { "held at 0" } else { "not held" }
    );
    for row in rows {
        println!("{:<72} {}", row.what, row.latency_ns.display_us());
    }
    if let Some(reference) = rows.get(2).map(|r| r.latency_ns.p50 as f64) {
        let ratio = |r: &Row| r.latency_ns.p50 as f64 / reference.max(1.0);
        println!(
            "ratio of medians to cyclictest: probe {:.2}x, kairos run {:.2}x",
            ratio(&rows[0]),
            ratio(&rows[1])
        );
    }
}
