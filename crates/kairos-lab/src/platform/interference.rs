//! `kairos platform interference`: the linearity experiment (section V.D) of
//! the OS-latency study of Linux PREEMPT_RT for mixed time-criticality (a model of intra- and inter-core interference and OS-induced latencies). The suite
//! (proc and mmap by default) runs with stress-ng on k = 0, 1, ..., n-1 of the other cores; for
//! each benchmark its ACET, MCET and WCET against k get a least-squares line with slope and R².
//! The k sweep is repeated (`--repeat`, interleaved so that drift of a shared machine falls on
//! every k alike): the line is fitted to every repeat's value, so R² says how much of the
//! spread k explains even on a 2-CPU machine, and the figure per k is the median of the repeats.
//! The slope is the measured d_curr of the study's equation 5: what one more busy core adds to
//! a call. `interference.json` is the form the resource manager reads (`fits`).

use super::table::Row;
use super::{benches, cpus, measure, plot, stressors, Observer, Suite};
use crate::error::write_output;
use crate::{Failure, Notify};
use kairos_os::signals::StopSignals;
use kairos_platform::oslat::Bench;
use kairos_platform::stress::StressSpec;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// One figure of one benchmark against k, with its least-squares line.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub bench: &'static str,
    /// `acet`, `mcet` or `wcet`.
    pub stat: &'static str,
    /// ns per additional stressed core.
    pub slope_ns: f64,
    pub intercept_ns: f64,
    /// Coefficient of determination over every repeat's value.
    pub r2: f64,
    /// The slope's 95 % confidence half-width (ns; none with fewer than three values).
    pub slope_ci95_ns: Option<f64>,
    /// The figure at each k, µs: the median of the repeats.
    pub values_us: Vec<f64>,
}

#[derive(Serialize)]
pub struct Point {
    pub k: usize,
    pub repeat: usize,
    pub stressed_cpus: Vec<usize>,
    pub benchmarks: Vec<Row>,
}

#[derive(Serialize)]
pub struct Report {
    pub cpu: usize,
    pub stressors: Vec<String>,
    pub repeats: usize,
    pub points: Vec<Point>,
    pub fits: Vec<Fit>,
}

/// A figure of a row, by name.
type Stat = (&'static str, fn(&Row) -> u64);

const STATS: [Stat; 3] = [
    ("acet", |r| r.acet_ns),
    ("mcet", |r| r.mcet_ns),
    ("wcet", |r| r.wcet_ns),
];

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n % 2 {
        1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn fits(points: &[Point], ks: usize) -> Vec<Fit> {
    let xs: Vec<f64> = points.iter().map(|p| p.k as f64).collect();
    let mut out = Vec::new();
    for (b, row) in points[0].benchmarks.iter().enumerate() {
        for (stat, of) in STATS {
            let ys: Vec<f64> = points.iter().map(|p| of(&p.benchmarks[b]) as f64).collect();
            let line = kairos_platform::fit::least_squares(&xs, &ys);
            let at = |k: usize| {
                let mine = points
                    .iter()
                    .zip(&ys)
                    .filter(|(p, _)| p.k == k)
                    .map(|(_, y)| *y);
                median(mine.collect()) / 1000.0
            };
            out.push(Fit {
                bench: row.name,
                stat,
                slope_ns: line.slope,
                intercept_ns: line.intercept,
                r2: line.r2,
                slope_ci95_ns: line.slope_ci95,
                values_us: (0..ks).map(at).collect(),
            });
        }
    }
    out
}

/// What to measure: the suite with `stressors` on k = 0, 1, ... of the other cores, `repeat`
/// times over.
pub struct Request {
    pub suite: Suite,
    /// A stressor list, or `all`.
    pub stressors: String,
    pub repeat: usize,
}

/// Runs the experiment as `request` asks; SIGINT and SIGTERM stop it (nothing is reported).
pub fn run(request: &Request, progress: &Observer) -> Result<Report, Failure> {
    let benches = benches(&request.suite.benches, &[Bench::Proc, Bench::Mmap])?;
    let (cpu, others) = cpus(request.suite.cpu)?;
    let list = stressors(&request.stressors)?;
    let needs_stress_ng = StressSpec::parse(&list, Vec::new())
        .map_err(Failure::bad_input)?
        .needs_stress_ng();
    if !others.is_empty() && needs_stress_ng && !kairos_platform::stress::available() {
        return Err(Failure::environment(
            "needs stress-ng (Debian: apt install stress-ng)",
        ));
    }
    let _signals = StopSignals::install();
    let started = Instant::now();
    if request.repeat == 0 {
        return Err(Failure::bad_input("--repeat must be at least 1"));
    }
    let mut points = Vec::new();
    for repeat in 0..request.repeat {
        for k in 0..=others.len() {
            let spec = match k {
                0 => None,
                _ => Some(
                    StressSpec::parse(&list, others[..k].to_vec()).map_err(Failure::bad_input)?,
                ),
            };
            let timeout = 4 * started.elapsed().as_secs() + 60;
            let label = format!(
                "repeat {} of {}, k = {k} of {}",
                repeat + 1,
                request.repeat,
                others.len()
            );
            let rows = measure(
                &request.suite,
                &benches,
                cpu,
                spec.as_ref(),
                &label,
                timeout,
                progress,
            )?;
            points.push(Point {
                k,
                repeat,
                stressed_cpus: others[..k].to_vec(),
                benchmarks: rows.iter().map(Row::of).collect(),
            });
        }
    }
    let report = Report {
        cpu,
        stressors: list.split(',').map(String::from).collect(),
        repeats: request.repeat,
        fits: fits(&points, others.len() + 1),
        points,
    };
    Ok(report)
}

impl Report {
    /// Writes `interference.json` and the chart into `dir`.
    pub fn write(&self, dir: &Path, notify: Notify) -> Result<(), Failure> {
        let json = serde_json::to_string_pretty(self).expect("report serializes");
        write_output(&dir.join("interference.json"), &json)?;
        let ks: Vec<usize> = (0..self.fits.first().map_or(0, |f| f.values_us.len())).collect();
        plot::interference(dir, &ks, &self.fits, notify)
    }

    /// The report in text; `written` is the folder the files went to, if any.
    pub fn text(&self, written: Option<&Path>) -> String {
        text(self, written)
    }
}

fn text(report: &Report, out: Option<&Path>) -> String {
    let ks = report.fits.first().map_or(0, |f| f.values_us.len());
    let mut s = format!(
        "interference on CPU {}: stressors {} on k = 0 .. {} other core(s), {} repeat(s); medians\n{:<8} {:<5}",
        report.cpu,
        report.stressors.join(","),
        ks.saturating_sub(1),
        report.repeats,
        "bench",
        "stat"
    );
    for k in 0..ks {
        s.push_str(&format!(" {:>10}", format!("k={k} µs")));
    }
    s.push_str(&format!(
        " {:>12} {:>9} {:>7}\n",
        "slope µs/k", "± 95 %", "R²"
    ));
    for f in &report.fits {
        s.push_str(&format!("{:<8} {:<5}", f.bench, f.stat));
        for v in &f.values_us {
            s.push_str(&format!(" {v:>10.2}"));
        }
        let ci = f
            .slope_ci95_ns
            .map_or("-".to_string(), |h| format!("{:.3}", h / 1000.0));
        s.push_str(&format!(
            " {:>12.3} {ci:>9} {:>7.3}\n",
            f.slope_ns / 1000.0,
            f.r2
        ));
    }
    s.push_str("(slope and R² fitted to every repeat's value: R² is the share of their spread k explains;\n");
    s.push_str(
        " a slope within its 95 % interval of zero is not distinguishable from no interference)\n",
    );
    if let Some(dir) = out {
        s.push_str(&format!(
            "wrote {}: interference.json, interference.svg, interference.png\n",
            dir.display()
        ));
    }
    s
}
