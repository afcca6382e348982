//! Loading inputs built to be slow: `cargo bench -p kairos-model --bench adversarial`. Each
//! family is timed at 10,000, 40,000 and 100,000 elements; the time must grow in proportion
//! (a position found by rescanning the text made these quadratic: 1.55 s for the one-line
//! file of 100,000 elements, 16 s for the XML read as TOML).
//!
//! - one line of unknown MC-DAG XML elements, one warning each (positions on one long line);
//! - the same text read as TOML, one syntax error per element;
//! - elements nested 100,000 deep (refused at the nesting bound);
//! - a SimSo configuration with one bad task per element, every error reported.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kairos_model::document::{parse, Format};
use kairos_model::input::{load, LoadOptions};
use std::path::Path;

const SIZES: [usize; 3] = [10_000, 40_000, 100_000];

fn one_line(n: usize) -> String {
    format!("<mcsystem>{}</mcsystem>\n", "<a/>".repeat(n))
}

fn nested(n: usize) -> String {
    format!(
        "<mcsystem>{}{}</mcsystem>\n",
        "<a>".repeat(n),
        "</a>".repeat(n)
    )
}

fn bad_simso(n: usize) -> String {
    let task = "<task WCET=\"NaN\" activationDate=\"0\" deadline=\"1\" period=\"1\"/>";
    format!(
        "<simulation cycles_per_ms=\"1\" duration=\"1\"><sched class=\"EDF\"/>\
         <processors><processor/></processors><tasks>{}</tasks></simulation>\n",
        task.repeat(n)
    )
}

fn adversarial(c: &mut Criterion) {
    let mut group = c.benchmark_group("adversarial");
    group.sample_size(10);
    let options = LoadOptions::default();
    for n in SIZES {
        let xml = one_line(n);
        group.bench_with_input(BenchmarkId::new("mcdag-one-line", n), &xml, |b, text| {
            b.iter(|| load(Path::new("f.xml"), text, &options))
        });
        group.bench_with_input(BenchmarkId::new("xml-as-toml", n), &xml, |b, text| {
            b.iter(|| parse(text, Format::Toml))
        });
        let deep = nested(n);
        group.bench_with_input(BenchmarkId::new("mcdag-nested", n), &deep, |b, text| {
            b.iter(|| load(Path::new("f.xml"), text, &options))
        });
        let simso = bad_simso(n);
        group.bench_with_input(BenchmarkId::new("simso-bad-tasks", n), &simso, |b, text| {
            b.iter(|| load(Path::new("f.xml"), text, &options))
        });
    }
    group.finish();
}

criterion_group!(benches, adversarial);
criterion_main!(benches);
