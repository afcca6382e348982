//! Synthesis speed on the MC-DAG framework's ten example systems on 8 cores (hyper-periods
//! 594-7236 slots). `cargo bench -p kairos-mc`; `scripts/bench-mcdag-reference.sh` runs the
//! reference Java tool on the same files next to it (docs/synth.md).
//!
//! First a plain table: per file, the median of 51 runs of import + G-EDZL synthesis (the six
//! files the importer refuses, a critical path above the deadline, are timed up to that
//! refusal), then synthesis alone, the outcome, and the tables' size against hyper-period x
//! cores. Then criterion's own measurements of synthesis alone.

use criterion::{criterion_group, criterion_main, Criterion};
use kairos_mc::{synthesize, Policy, SynthOptions};
use kairos_model::{mcdag_xml, Duration, McSystem};
use std::time::Instant;

const FILES: usize = 10;
const RUNS: usize = 51;

fn source(i: usize) -> String {
    let path = format!(
        "{}/../../examples/mcdag/xml/test-6-{i}.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn import(text: &str) -> Option<McSystem> {
    mcdag_xml::import(text, Duration::from_millis(1)).system
}

fn options(policy: Policy) -> SynthOptions {
    SynthOptions {
        policy,
        cores: Some(8),
    }
}

/// Median wall time of `RUNS` calls, in microseconds.
fn median_us(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[RUNS / 2]
}

fn summary() {
    println!(
        "{:<13} {:>12} {:>12} {:>9} {:>10} {:>13}  outcome",
        "file", "import+syn", "synth", "H slots", "intervals", "H x cores"
    );
    for i in 0..FILES {
        let text = source(i);
        let end_to_end = median_us(|| {
            if let Some(system) = import(&text) {
                let _ = synthesize(&system, &options(Policy::Gedzl));
            }
        });
        let name = format!("test-6-{i}.xml");
        let Some(system) = import(&text) else {
            println!("{name:<13} {end_to_end:>10.1}us {:>12} {:>9} {:>10} {:>13}  refused by the importer", "-", "-", "-", "-");
            continue;
        };
        let synth = median_us(|| {
            let _ = synthesize(&system, &options(Policy::Gedzl));
        });
        let slots = system.hyperperiod().map_or(0, |h| h.as_nanos() / 1_000_000);
        let (intervals, outcome) = match synthesize(&system, &options(Policy::Gedzl)) {
            Ok(out) => (
                out.tables.interval_count().to_string(),
                "tables".to_string(),
            ),
            Err(e) => (
                "-".into(),
                format!("no: {}", e.to_string().chars().take(60).collect::<String>()),
            ),
        };
        println!(
            "{name:<13} {end_to_end:>10.1}us {synth:>10.1}us {slots:>9} {intervals:>10} {:>13}  {outcome}",
            slots * 8 * system.level_count() as u64
        );
    }
}

fn bench(c: &mut Criterion) {
    summary();
    let mut group = c.benchmark_group("synth-8-cores");
    for i in 0..FILES {
        let Some(system) = import(&source(i)) else {
            continue;
        };
        for policy in Policy::ALL {
            group.bench_function(format!("test-6-{i}/{}", policy.name()), |b| {
                b.iter(|| synthesize(&system, &options(policy)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
