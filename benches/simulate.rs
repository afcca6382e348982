//! Simulator throughput on the SimSo side-by-side workload (20 tasks, 4 cores, U = 3, 10 s
//! simulated, 6608 jobs). `cargo bench --bench simulate`; for the ratio against SimSo measured
//! in the same run, use `kairos bench`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kairos_model::{check_source, Duration, Format};
use kairos_policy::PolicyKind;
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, SimConfig};

const WORKLOAD: &str = include_str!("../examples/simso-n20-m4-u3.toml");

fn simulate_ten_seconds(c: &mut Criterion) {
    let workload = check_source(WORKLOAD, Format::Toml)
        .workload
        .expect("valid workload");
    let config = SimConfig {
        duration: Duration::from_secs(10),
        ..SimConfig::default()
    };
    let mut group = c.benchmark_group("simso-n20-m4-u3/10s");
    group.throughput(Throughput::Elements(6608));
    for kind in PolicyKind::ALL {
        group.bench_function(kind.cli_name(), |b| {
            b.iter(|| {
                let mut policy = kind.build(PriorityOrder::Auto);
                simulate(&workload, policy.as_mut(), &config).expect("simulates")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, simulate_ten_seconds);
criterion_main!(benches);
