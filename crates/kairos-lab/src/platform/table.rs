//! The suite's figures per benchmark as the OS-latency study tabulates them (WCET = max, ACET = mean,
//! MCET = median, STDEV; here also p99 and the sample count), as text, CSV and JSON.

use kairos_platform::oslat::BenchResult;
use serde::Serialize;

/// One benchmark's figures (ns per sample; `fs` samples are batches of `items` operations).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub name: &'static str,
    pub n: u64,
    pub wcet_ns: u64,
    pub acet_ns: u64,
    pub mcet_ns: u64,
    pub stdev_ns: u64,
    pub p99_ns: u64,
    pub min_ns: u64,
    /// Operations per sample (500 for fs, else 1).
    pub items: u64,
    pub what: &'static str,
    /// The distribution: (highest value of the bucket in ns, count), ascending.
    pub histogram: Vec<(u64, u64)>,
}

impl Row {
    pub fn of(r: &BenchResult) -> Row {
        let s = r.summary();
        Row {
            name: r.bench.name(),
            n: s.count,
            wcet_ns: s.max,
            acet_ns: s.mean,
            mcet_ns: s.p50,
            stdev_ns: r.stdev_ns.round() as u64,
            p99_ns: s.p99,
            min_ns: s.min,
            items: r.bench.items(),
            what: r.bench.what(),
            histogram: r.distribution.buckets(),
        }
    }
}

/// How much worse a figure got under stress, in percent.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Deterioration {
    pub name: &'static str,
    pub wcet_pct: f64,
    pub acet_pct: f64,
    pub mcet_pct: f64,
    pub stdev_ratio: f64,
}

fn pct(before: u64, after: u64) -> f64 {
    match before {
        0 => 0.0,
        b => 100.0 * (after as f64 - b as f64) / b as f64,
    }
}

pub fn deterioration(calm: &[Row], stressed: &[Row]) -> Vec<Deterioration> {
    calm.iter()
        .zip(stressed)
        .map(|(c, s)| Deterioration {
            name: c.name,
            wcet_pct: pct(c.wcet_ns, s.wcet_ns),
            acet_pct: pct(c.acet_ns, s.acet_ns),
            mcet_pct: pct(c.mcet_ns, s.mcet_ns),
            stdev_ratio: s.stdev_ns as f64 / c.stdev_ns.max(1) as f64,
        })
        .collect()
}

fn us(ns: u64) -> String {
    format!("{:.2}", ns as f64 / 1000.0)
}

fn cells(r: &Row) -> String {
    format!(
        "{:>9} {:>9} {:>9} {:>8}",
        us(r.wcet_ns),
        us(r.acet_ns),
        us(r.mcet_ns),
        us(r.stdev_ns)
    )
}

/// The study's table: µs per sample, without stress, with stress and the change.
pub fn text(calm: &[Row], stressed: Option<&[Row]>) -> String {
    let mut out = format!(
        "{:<8} {:>6} {:>9} {:>9} {:>9} {:>8}",
        "bench", "n", "WCET", "ACET", "MCET", "STDEV"
    );
    if stressed.is_some() {
        out.push_str(&format!(
            "  | stressed: {:>9} {:>9} {:>9} {:>8} | {:>7} {:>7}",
            "WCET", "ACET", "MCET", "STDEV", "WCET", "ACET"
        ));
    }
    out.push('\n');
    for (i, c) in calm.iter().enumerate() {
        out.push_str(&format!("{:<8} {:>6} {}", c.name, c.n, cells(c)));
        if let Some(s) = stressed.map(|s| &s[i]) {
            out.push_str(&format!(
                "  |           {} | {:>+6.0}% {:>+6.0}%",
                cells(s),
                pct(c.wcet_ns, s.wcet_ns),
                pct(c.acet_ns, s.acet_ns)
            ));
        }
        out.push('\n');
    }
    out.push_str(
        "(µs per sample; fs: per batch of 500 files; WCET = max, ACET = mean, MCET = median)\n",
    );
    out
}

pub fn csv(calm: &[Row], stressed: Option<&[Row]>) -> String {
    let mut out =
        String::from("bench,stress,n,wcet_ns,acet_ns,mcet_ns,stdev_ns,p99_ns,min_ns,items\n");
    let runs = [(calm, "no")]
        .into_iter()
        .chain(stressed.map(|s| (s, "yes")));
    for (rows, stress) in runs {
        for r in rows {
            out.push_str(&format!(
                "{},{stress},{},{},{},{},{},{},{},{}\n",
                r.name,
                r.n,
                r.wcet_ns,
                r.acet_ns,
                r.mcet_ns,
                r.stdev_ns,
                r.p99_ns,
                r.min_ns,
                r.items
            ));
        }
    }
    out
}
