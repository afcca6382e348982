//! Timer latency on this machine, back to back: kairos' timer-latency probe (the quantity
//! cyclictest reports: wake-up time minus programmed time, `kairos_rt::probe`), the release
//! latency of a real run with one periodic task per CPU, and, when asked, `cyclictest -m -S -p
//! 80` itself, whose histogram is parsed (a real run's release latency should stay near
//! cyclictest's: docs/bench.md). A benchmark: nothing here asserts a latency.

use crate::platform::cyclictest::{on_path, parse_cyclictest_histogram};
use crate::Failure;
use kairos_model::{check_source, Duration, Format};
use kairos_os::{privilege, signals::StopSignals};
use kairos_rt::calibrate::calibrate;
use kairos_rt::measure::{Distribution, Summary};
use kairos_rt::periodic::{run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::probe::timer_latency;
use kairos_rt::watchdog::RunControl;
use serde::Serialize;

/// What to measure.
pub struct Request {
    /// Length of each measurement (1s to 60s).
    pub duration: Duration,
    /// Timer period (at least 100us).
    pub interval: Duration,
    /// Also run cyclictest with the same interval and duration.
    pub cyclictest: bool,
}

/// The distributions measured, and the cyclictest failure if it failed (what kairos measured
/// is kept).
pub struct Report {
    pub rows: Vec<Row>,
    pub cpus: usize,
    pub dma_latency_held: bool,
    pub duration: Duration,
    pub interval: Duration,
    pub cyclictest_failure: Option<Failure>,
}

/// One measured distribution of the timer bench.
#[derive(Serialize)]
pub struct Row {
    pub what: String,
    pub latency_ns: Summary,
}

/// Measures as `request` asks.
pub fn run(args: &Request) -> Result<Report, Failure> {
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
    // A failing cyclictest must not throw away what kairos measured: it is reported beside it.
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
    Ok(Report {
        rows,
        cpus: cpus.len(),
        dma_latency_held: probe.dma_latency_held,
        duration: args.duration,
        interval: args.interval,
        cyclictest_failure: failure,
    })
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

impl Report {
    /// The report in text, as `kairos bench timer` prints it.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let held = if self.dma_latency_held {
            "held at 0"
        } else {
            "not held"
        };
        let mut out = format!(
            "timer latency on {} CPU(s), {} at {} each (wake-up or start minus programmed time); /dev/cpu_dma_latency {held}\n",
            self.cpus, self.duration, self.interval
        );
        for row in &self.rows {
            let _ = writeln!(out, "{:<72} {}", row.what, row.latency_ns.display_us());
        }
        if let Some(reference) = self.rows.get(2).map(|r| r.latency_ns.p50 as f64) {
            let ratio = |r: &Row| r.latency_ns.p50 as f64 / reference.max(1.0);
            let _ = writeln!(
                out,
                "ratio of medians to cyclictest: probe {:.2}x, kairos run {:.2}x",
                ratio(&self.rows[0]),
                ratio(&self.rows[1])
            );
        }
        out
    }
}
