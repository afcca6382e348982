//! `kairos platform interference`: seed 003's linearity experiment (section V.D). The suite
//! (proc and mmap by default) runs with stress-ng on k = 0, 1, ..., n-1 of the other cores; for
//! each benchmark its ACET, MCET and WCET against k get a least-squares line with slope and R².
//! The slope is the measured d_curr of the seed's equation 5: what one more busy core adds to
//! a call. `interference.json` is the form the resource manager reads (`fits`).

use super::table::Row;
use super::{benches, cpus, measure, plot, stressors, InterferenceArgs};
use crate::args::{write_output, CommandResult, Failure};
use kairos_rt::oslat::Bench;
use kairos_rt::platform::signals::StopSignals;
use kairos_rt::stress::StressSpec;
use serde::Serialize;
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
    /// Coefficient of determination (1 for two points: a line through both).
    pub r2: f64,
    /// The figure at each k, µs.
    pub values_us: Vec<f64>,
}

/// `y = a + b x` by least squares: (a, b, R²). R² is 1 when y does not vary.
pub fn least_squares(xs: &[f64], ys: &[f64]) -> (f64, f64, f64) {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let a = my - b * mx;
    let ss_tot: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - a - b * x).powi(2))
        .sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    (a, b, r2)
}

#[derive(Serialize)]
struct Point {
    k: usize,
    stressed_cpus: Vec<usize>,
    benchmarks: Vec<Row>,
}

#[derive(Serialize)]
struct Report {
    cpu: usize,
    stressors: Vec<String>,
    points: Vec<Point>,
    fits: Vec<Fit>,
}

/// A figure of a row, by name.
type Stat = (&'static str, fn(&Row) -> u64);

const STATS: [Stat; 3] = [
    ("acet", |r| r.acet_ns),
    ("mcet", |r| r.mcet_ns),
    ("wcet", |r| r.wcet_ns),
];

fn fits(points: &[Point]) -> Vec<Fit> {
    let xs: Vec<f64> = points.iter().map(|p| p.k as f64).collect();
    let mut out = Vec::new();
    for (b, row) in points[0].benchmarks.iter().enumerate() {
        for (stat, of) in STATS {
            let ys: Vec<f64> = points.iter().map(|p| of(&p.benchmarks[b]) as f64).collect();
            let (a, slope, r2) = least_squares(&xs, &ys);
            out.push(Fit {
                bench: row.name,
                stat,
                slope_ns: slope,
                intercept_ns: a,
                r2,
                values_us: ys.iter().map(|y| y / 1000.0).collect(),
            });
        }
    }
    out
}

pub fn run(args: &InterferenceArgs) -> CommandResult {
    let benches = benches(&args.suite.bench, &[Bench::Proc, Bench::Mmap])?;
    let (cpu, others) = cpus(args.suite.cpu)?;
    let list = stressors(&args.stressors)?;
    if !others.is_empty() && !kairos_rt::stress::available() {
        return Err(Failure::environment(
            "needs stress-ng (Debian: apt install stress-ng)",
        ));
    }
    let _signals = StopSignals::install();
    let started = Instant::now();
    let mut points = Vec::new();
    for k in 0..=others.len() {
        let spec = match k {
            0 => None,
            _ => Some(StressSpec::parse(&list, others[..k].to_vec()).map_err(Failure::bad_input)?),
        };
        let timeout = 4 * started.elapsed().as_secs() + 60;
        let label = format!("k = {k} of {}", others.len());
        let rows = measure(&args.suite, &benches, cpu, spec.as_ref(), &label, timeout)?;
        points.push(Point {
            k,
            stressed_cpus: others[..k].to_vec(),
            benchmarks: rows.iter().map(Row::of).collect(),
        });
    }
    let report = Report {
        cpu,
        stressors: list.split(',').map(String::from).collect(),
        fits: fits(&points),
        points,
    };
    let json = serde_json::to_string_pretty(&report).expect("report serializes");
    if let Some(dir) = &args.suite.out {
        write_output(&dir.join("interference.json"), &json)?;
        let ks: Vec<usize> = report.points.iter().map(|p| p.k).collect();
        plot::interference(dir, &ks, &report.fits)?;
    }
    match args.suite.json {
        true => println!("{json}"),
        false => print!("{}", text(&report, args.suite.out.as_deref())),
    }
    Ok(0)
}

fn text(report: &Report, out: Option<&std::path::Path>) -> String {
    let mut s = format!(
        "interference on CPU {}: stress-ng {} on k = 0 .. {} other core(s)\n{:<8} {:<5}",
        report.cpu,
        report.stressors.join(","),
        report.points.len() - 1,
        "bench",
        "stat"
    );
    for p in &report.points {
        s.push_str(&format!(" {:>10}", format!("k={} µs", p.k)));
    }
    s.push_str(&format!(" {:>12} {:>7}\n", "slope µs/k", "R²"));
    for f in &report.fits {
        s.push_str(&format!("{:<8} {:<5}", f.bench, f.stat));
        for v in &f.values_us {
            s.push_str(&format!(" {v:>10.2}"));
        }
        s.push_str(&format!(" {:>12.3} {:>7.3}\n", f.slope_ns / 1000.0, f.r2));
    }
    if report.points.len() <= 2 {
        s.push_str(
            "(two points: each line passes through both, R² = 1; more cores give a real fit)\n",
        );
    }
    if let Some(dir) = out {
        s.push_str(&format!(
            "wrote {}: interference.json, interference.svg, interference.png\n",
            dir.display()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::least_squares;

    #[test]
    fn least_squares_recovers_a_line_and_scores_scatter_below_one() {
        let (a, b, r2) = least_squares(&[0.0, 1.0, 2.0, 3.0], &[1.0, 3.0, 5.0, 7.0]);
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
        let (_, b, r2) = least_squares(&[0.0, 1.0, 2.0, 3.0], &[1.0, 4.0, 4.0, 7.0]);
        assert!((b - 1.8).abs() < 1e-12, "{b}");
        assert!(r2 > 0.8 && r2 < 1.0, "{r2}");
    }
}
