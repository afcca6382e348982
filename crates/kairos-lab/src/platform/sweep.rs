//! `kairos platform load-sweep`: Table I and figure 3 of
//! Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux). Timer latency (kairos's
//! periodic probe and, when installed, cyclictest) and the jitter of a periodic action's period
//! (the paper's GPIO toggle) at best-effort CPU loads of 0 to 100 % (stress-ng `--cpu-load`),
//! for three configurations: standard Linux (the timed thread SCHED_OTHER, free on every core,
//! the load on every core), the same under SCHED_FIFO, and partitioned (the timed thread
//! SCHED_FIFO on the RT partition, the load on the best-effort one; the partition is made for
//! the run and undone after it, on a signal, or by `kairos partition --reset` after a crash).

use super::cyclictest::{on_path, parse_cyclictest_histogram};
use super::{plot, Observer, Progress};
use crate::error::write_output;
use crate::{Failure, Notify};
use kairos_model::Duration;
use kairos_os::{online_cpus, priority, signals::StopSignals, thread::ThreadSpec};
use kairos_platform::partition::{self, Plan};
use kairos_platform::stress::{Stress, StressSpec};
use kairos_rt::measure::Summary;
use kairos_rt::probe::periodic_probe;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::path::Path;

/// What to measure.
pub struct Request {
    /// Best-effort CPU loads in percent.
    pub loads: Vec<u32>,
    /// Measurement time per configuration and load.
    pub duration: Duration,
    /// The timed thread's period.
    pub interval: Duration,
    /// The RT partition's CPU (None: the last online CPU).
    pub rt: Option<usize>,
    /// Run cyclictest beside the probe when it is installed.
    pub cyclictest: bool,
}

/// The sweep's points (`kairos platform load-sweep --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    #[serde(skip)]
    pub duration: Duration,
    #[serde(skip)]
    pub interval: Duration,
    pub points: Vec<Point>,
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
        // A drop has no caller to tell: standard error is where a user will look.
        if let Err(e) = partition::reset() {
            eprintln!(
                "warning: the partition could not be undone ({e}): run kairos partition --reset"
            );
        }
    }
}

/// Runs the sweep as `request` asks (it makes and undoes an RT partition); SIGINT and SIGTERM
/// stop it (nothing is reported).
pub fn run(request: &Request, progress: &Observer) -> Result<Report, Failure> {
    let args = request;
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
    let cyclictest = args.cyclictest && on_path("cyclictest");
    let _signals = StopSignals::install();
    let configs = [Config::Standard, Config::Fifo, Config::Partitioned];
    let total = configs.len() * args.loads.len();
    let mut points = Vec::new();
    for config in configs {
        let _partition = match config {
            Config::Partitioned => Some(make_partition(rt, &be)?),
            _ => None,
        };
        for &load in &args.loads {
            let label = format!("{} at {load} %", config.label());
            progress(Progress::Begin {
                label: &label,
                total,
            });
            points.push(measure(args, config, load, rt, &cpus, &be, cyclictest)?);
            progress(Progress::Step);
        }
    }
    progress(Progress::End);
    Ok(Report {
        duration: args.duration,
        interval: args.interval,
        points,
    })
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
    args: &Request,
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

impl Report {
    /// Writes `load-sweep.json`, `load-sweep.csv` and the chart into `dir`.
    pub fn write(&self, dir: &Path, notify: Notify) -> Result<(), Failure> {
        let json = serde_json::to_string_pretty(self).expect("serializes");
        write_output(&dir.join("load-sweep.json"), &json)?;
        write_output(&dir.join("load-sweep.csv"), csv(&self.points))?;
        plot::sweep(dir, &self.points, notify)
    }

    /// The report in text; `written` is the folder the files went to, if any.
    pub fn text(&self, written: Option<&Path>) -> String {
        use std::fmt::Write;
        let mut out = format!(
            "timer latency and period jitter vs best-effort load (µs; {} per point, period {})\n",
            self.duration, self.interval
        );
        let _ = writeln!(
            out,
            "{:<40} {:>5} | {:>7} {:>7} {:>8} | {:>7} {:>8} | cyclictest {:>7} {:>7} {:>8}",
            "configuration", "load", "p50", "p99", "max", "jit p99", "jit max", "p50", "p99", "max"
        );
        for p in &self.points {
            let (l, j) = (&p.latency_ns, &p.period_jitter_ns);
            let c = p.cyclictest_ns.map_or("-".into(), |c| {
                format!("{:>7} {:>7} {:>8}", us(c.p50), us(c.p99), us(c.max))
            });
            let _ = writeln!(
                out,
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
        if let Some(dir) = written {
            let files = "load-sweep.json, load-sweep.csv, load-sweep.svg, load-sweep.png";
            let _ = writeln!(out, "wrote {}: {files}", dir.display());
        }
        out
    }
}

fn csv(points: &[Point]) -> String {
    let mut csv = String::from("config,load_pct,latency_p50_ns,latency_p99_ns,latency_max_ns,jitter_p99_ns,jitter_max_ns,cyclictest_p50_ns,cyclictest_p99_ns,cyclictest_max_ns\n");
    for p in points {
        let c = (p.cyclictest_ns).map_or(",,".into(), |c| format!("{},{},{}", c.p50, c.p99, c.max));
        let (l, j) = (&p.latency_ns, &p.period_jitter_ns);
        let line = format!(
            "{:?},{},{},{},{},{},{},{c}\n",
            p.config, p.load_pct, l.p50, l.p99, l.max, j.p99, j.max
        );
        csv.push_str(&line.to_lowercase());
    }
    csv
}
