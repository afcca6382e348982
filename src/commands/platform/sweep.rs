//! `kairos platform load-sweep`: Table I and figure 3 of
//! Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux). Timer latency (kairos's
//! periodic probe and, when installed, cyclictest) and the jitter of a periodic action's period
//! (the paper's GPIO toggle) at best-effort CPU loads of 0 to 100 % (stress-ng `--cpu-load`),
//! for three configurations: standard Linux (the timed thread SCHED_OTHER, free on every core,
//! the load on every core), the same under SCHED_FIFO, and partitioned (the timed thread
//! SCHED_FIFO on the RT partition, the load on the best-effort one; the partition is made for
//! the run and undone after it, on a signal, or by `kairos partition --reset` after a crash).

use super::plot;
use crate::args::{duration_arg, write_output, CommandResult, Failure};
use crate::commands::bench_runtime::{on_path, parse_cyclictest_histogram};
use indicatif::{ProgressBar, ProgressStyle};
use kairos_model::Duration;
use kairos_os::{online_cpus, priority, signals::StopSignals, thread::ThreadSpec};
use kairos_platform::partition::{self, Plan};
use kairos_platform::stress::{Stress, StressSpec};
use kairos_rt::measure::Summary;
use kairos_rt::probe::periodic_probe;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Best-effort CPU loads in percent.
    #[arg(long, value_delimiter = ',', default_value = "0,20,40,60,80,100")]
    pub loads: Vec<u32>,
    /// Measurement time per configuration and load.
    #[arg(long, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// The timed thread's period.
    #[arg(long, value_parser = duration_arg, default_value = "1ms")]
    pub interval: Duration,
    /// The RT partition's CPU (default: the last online CPU).
    #[arg(long)]
    pub rt: Option<usize>,
    /// Do not run cyclictest beside the probe even when it is installed.
    #[arg(long)]
    pub no_cyclictest: bool,
    #[command(flatten)]
    pub output: super::Output,
}

/// The three configurations of Multi-scheduling's Table I.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Config {
    Standard,
    Fifo,
    Partitioned,
}

impl Config {
    pub fn label(self) -> &'static str {
        match self {
            Config::Standard => "standard (SCHED_OTHER, any core)",
            Config::Fifo => "SCHED_FIFO, any core",
            Config::Partitioned => "partitioned (SCHED_FIFO on the RT CPU)",
        }
    }
}

/// One configuration at one load.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub config: Config,
    pub load_pct: u32,
    pub latency_ns: Summary,
    pub period_jitter_ns: Summary,
    /// The jitter's distribution: (highest value of the bucket in ns, count), ascending.
    pub period_jitter_histogram: Vec<(u64, u64)>,
    pub cyclictest_ns: Option<Summary>,
}

/// Undoes the run's partition however the run ends.
struct Partitioned;

impl Drop for Partitioned {
    fn drop(&mut self) {
        if let Err(e) = partition::reset() {
            eprintln!(
                "warning: the partition could not be undone ({e}): run kairos partition --reset"
            );
        }
    }
}

pub fn run(args: &SweepArgs) -> CommandResult {
    let cpus = online_cpus();
    let rt = args.rt.unwrap_or(cpus[cpus.len() - 1]);
    let be: Vec<usize> = cpus.iter().copied().filter(|&c| c != rt).collect();
    if !cpus.contains(&rt) || be.is_empty() {
        return Err(Failure::bad_input(format!(
            "--rt {rt}: needs one of this process's CPUs {cpus:?} and at least one other"
        )));
    }
    if let Some(bad) = args.loads.iter().find(|&&l| l > 100) {
        return Err(Failure::bad_input(format!("--loads: {bad} is above 100 %")));
    }
    if args.duration.as_nanos() < 10 * args.interval.as_nanos()
        || args.interval.as_nanos() < 100_000
    {
        return Err(Failure::bad_input(
            "--interval at least 100us and --duration at least 10 intervals",
        ));
    }
    if args.loads.iter().any(|&l| l > 0) && !kairos_platform::stress::available() {
        return Err(Failure::environment(
            "loads above 0 % need stress-ng (Debian: apt install stress-ng)",
        ));
    }
    kairos_os::privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let cyclictest = !args.no_cyclictest && on_path("cyclictest");
    let _signals = StopSignals::install();
    let configs = [Config::Standard, Config::Fifo, Config::Partitioned];
    let bar = progress(args, configs.len() * args.loads.len());
    let mut points = Vec::new();
    for config in configs {
        let _partition = match config {
            Config::Partitioned => Some(make_partition(rt, &be)?),
            _ => None,
        };
        for &load in &args.loads {
            bar.set_message(format!("{} at {load} %", config.label()));
            points.push(measure(args, config, load, rt, &cpus, &be, cyclictest)?);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    report(args, &points)
}

fn progress(args: &SweepArgs, n: usize) -> ProgressBar {
    let bar = match args.output.quiet {
        true => ProgressBar::hidden(),
        false => ProgressBar::new(n as u64),
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}, {elapsed}")
            .expect("valid template"),
    );
    bar
}

fn make_partition(rt: usize, be: &[usize]) -> Result<Partitioned, Failure> {
    let plan = Plan {
        rt: vec![rt],
        be: be.to_vec(),
        irqs: false,
        affinity_only: false,
    };
    match partition::apply(&plan) {
        Ok(_) => Ok(Partitioned),
        Err(e) => {
            let _ = partition::reset();
            Err(Failure::environment(format!(
                "the partitioned configuration needs a partition: {e}"
            )))
        }
    }
}

fn interrupted() -> Result<(), Failure> {
    match kairos_os::signals::received() {
        Some(_) => Err(Failure::environment("interrupted: nothing written")),
        None => Ok(()),
    }
}

fn measure(
    args: &SweepArgs,
    config: Config,
    load: u32,
    rt: usize,
    all: &[usize],
    be: &[usize],
    cyclictest: bool,
) -> Result<Point, Failure> {
    let loaded = match config {
        Config::Partitioned => be,
        _ => all,
    };
    let seconds = args.duration.as_nanos().div_ceil(1_000_000_000);
    if config == Config::Partitioned {
        // stress-ng starts from the best-effort cpuset, whose CPUs it is pinned to.
        join_cpuset(false)?;
    }
    let _stress = match load {
        0 => None,
        _ => {
            let mut spec = StressSpec::parse("cpu", loaded.to_vec()).map_err(Failure::bad_input)?;
            spec.cpu_load = load;
            let timeout = 2 * seconds + 60;
            Some(Stress::start(&spec, timeout).map_err(|e| Failure::environment(e.to_string()))?)
        }
    };
    if config == Config::Partitioned {
        join_cpuset(true)?;
    }
    let spec = match config {
        Config::Standard => ThreadSpec::other("kairos-sweep", all.to_vec()),
        Config::Fifo => ThreadSpec::fifo("kairos-sweep", priority::PROBE, all.to_vec()),
        Config::Partitioned => ThreadSpec::fifo("kairos-sweep", priority::PROBE, vec![rt]),
    };
    let probe = periodic_probe(
        spec,
        args.interval.as_nanos(),
        args.duration.as_nanos(),
        RunControl::new(),
    )
    .map_err(|e| Failure::environment(e.to_string()))?;
    interrupted()?;
    let reference = match cyclictest {
        true => Some(run_cyclictest(
            config,
            rt,
            args.interval.as_nanos(),
            seconds,
        )?),
        false => None,
    };
    interrupted()?;
    Ok(Point {
        config,
        load_pct: load,
        latency_ns: probe.latency.summary(),
        period_jitter_ns: probe.period_jitter.summary(),
        period_jitter_histogram: probe.period_jitter.buckets(),
        cyclictest_ns: reference,
    })
}

/// Moves kairos itself into the RT cpuset (when the partition uses cpusets), so that its
/// timed thread and cyclictest may run on the RT CPU, or back into the best-effort one, where
/// its stressors start.
fn join_cpuset(rt_side: bool) -> Result<(), Failure> {
    let state = partition::state::State::load()
        .map_err(|e| Failure::environment(e.to_string()))?
        .ok_or_else(|| Failure::environment("the partition disappeared during the run"))?;
    partition::join(&state, rt_side).map_err(|e| Failure::environment(e.to_string()))
}

fn run_cyclictest(
    config: Config,
    rt: usize,
    interval: u64,
    seconds: u64,
) -> Result<Summary, Failure> {
    let mut command = std::process::Command::new("timeout");
    command.args([
        "-s",
        "KILL",
        &(seconds + 15).to_string(),
        "cyclictest",
        "-m",
        "-q",
        "-h",
        "5000",
    ]);
    command.args([
        "-i",
        &(interval / 1000).to_string(),
        "-D",
        &seconds.to_string(),
    ]);
    match config {
        // cyclictest's -p selects SCHED_FIFO: the policy must be named after it.
        Config::Standard => command.args(["-p", "0", "--policy=other"]),
        Config::Fifo => command.args(["-p", "80"]),
        Config::Partitioned => command.args(["-p", "80", "-a", &rt.to_string()]),
    };
    let output = command
        .output()
        .map_err(|e| Failure::environment(format!("cannot run cyclictest: {e}")))?;
    let histogram = parse_cyclictest_histogram(&String::from_utf8_lossy(&output.stdout));
    match histogram.count() {
        0 => Err(Failure::environment(format!(
            "cyclictest gave no histogram (exit {:?}): {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
        _ => Ok(histogram.summary()),
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1000.0)
}

fn report(args: &SweepArgs, points: &[Point]) -> CommandResult {
    let json =
        serde_json::to_string_pretty(&serde_json::json!({ "points": points })).expect("serializes");
    if let Some(dir) = &args.output.out_dir {
        write_output(&dir.join("load-sweep.json"), &json)?;
        let mut csv = String::from("config,load_pct,latency_p50_ns,latency_p99_ns,latency_max_ns,jitter_p99_ns,jitter_max_ns,cyclictest_p50_ns,cyclictest_p99_ns,cyclictest_max_ns\n");
        for p in points {
            let c = p
                .cyclictest_ns
                .map_or(",,".into(), |c| format!("{},{},{}", c.p50, c.p99, c.max));
            let (l, j) = (&p.latency_ns, &p.period_jitter_ns);
            csv.push_str(
                &format!(
                    "{:?},{},{},{},{},{},{},{c}\n",
                    p.config, p.load_pct, l.p50, l.p99, l.max, j.p99, j.max
                )
                .to_lowercase(),
            );
        }
        write_output(&dir.join("load-sweep.csv"), csv)?;
        plot::sweep(dir, points)?;
    }
    if args.output.json {
        println!("{json}");
        return Ok(0);
    }
    println!(
        "timer latency and period jitter vs best-effort load (µs; {} per point, period {})",
        args.duration, args.interval
    );
    println!(
        "{:<40} {:>5} | {:>7} {:>7} {:>8} | {:>7} {:>8} | cyclictest {:>7} {:>7} {:>8}",
        "configuration", "load", "p50", "p99", "max", "jit p99", "jit max", "p50", "p99", "max"
    );
    for p in points {
        let (l, j) = (&p.latency_ns, &p.period_jitter_ns);
        let c = p.cyclictest_ns.map_or("-".into(), |c| {
            format!("{:>7} {:>7} {:>8}", us(c.p50), us(c.p99), us(c.max))
        });
        println!(
            "{:<40} {:>4}% | {:>7} {:>7} {:>8} | {:>7} {:>8} |            {c}",
            p.config.label(),
            p.load_pct,
            us(l.p50),
            us(l.p99),
            us(l.max),
            us(j.p99),
            us(j.max)
        );
    }
    if let Some(dir) = &args.output.out_dir {
        println!(
            "wrote {}: load-sweep.json, load-sweep.csv, load-sweep.svg, load-sweep.png",
            dir.display()
        );
    }
    Ok(0)
}
