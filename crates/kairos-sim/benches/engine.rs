//! The engine's cost per event against the number of tasks: G-EDF and P-FP on 64 cores at
//! utilization 32, with 1,000 and 100,000 tasks, simulated for 20 ms. Two release patterns:
//! `spread`, each task's first release at a point of its period proportional to its index (a
//! few jobs open at a time among many idle tasks), and `synchronous`, every task released at 0
//! (a backlog of every task's job, drained over the 20 ms). The throughput is in events (the
//! scheduling points of one run), so the figures are time per event; flat across sizes means
//! the per-event cost does not grow with the idle tasks or the open jobs.
//! `cargo bench -p kairos-sim --bench engine`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kairos_model::{Arrival, Duration, Overheads, Task, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};

const CORES: usize = 64;

/// `n` tasks of total utilization 32, periods spread over 10-100 ms by a fixed stride (no
/// random choice), released first at 0 or, `spread`, at a point of their period proportional
/// to their index.
fn workload(n: u64, spread: bool) -> Workload {
    let tasks = (0..n)
        .map(|i| {
            let period_us = 10_000 + (i * 7_919) % 90_001;
            let wcet_ns = (period_us * 1_000 * 32 / n).max(1);
            Task {
                name: format!("t{i}"),
                wcet: Duration::from_nanos(wcet_ns),
                bcet: Duration::from_nanos(wcet_ns),
                period: Duration::from_micros(period_us),
                deadline: Duration::from_micros(period_us),
                offset: Duration::from_micros(if spread { period_us * i / n } else { 0 }),
                arrival: Arrival::Periodic,
                priority: None,
                core: None,
                imprecise: None,
            }
        })
        .collect();
    Workload {
        name: Some(format!("engine-{n}")),
        cores: CORES,
        tasks,
        overheads: Overheads::default(),
    }
}

fn per_event(c: &mut Criterion) {
    let config = SimConfig {
        duration: Duration::from_millis(20),
        ..SimConfig::default()
    };
    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    let patterns = [("spread", true), ("synchronous", false)];
    for (kind, (pattern, spread)) in [PolicyKind::GlobalEdf, PolicyKind::PartitionedFp]
        .into_iter()
        .flat_map(|k| patterns.map(|p| (k, p)))
    {
        for n in [1_000, 100_000] {
            let workload = workload(n, spread);
            let run = || {
                let mut policy = kind.build(PriorityOrder::Auto);
                simulate(&workload, policy.as_mut(), &config).expect("simulates")
            };
            group.throughput(Throughput::Elements(run().metrics.scheduling_points));
            let id = BenchmarkId::new(format!("{}-{pattern}", kind.cli_name()), n);
            group.bench_with_input(id, &n, |b, _| b.iter(run));
        }
    }
    group.finish();
}

criterion_group!(benches, per_event);
criterion_main!(benches);
