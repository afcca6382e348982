//! Scale: every default schedulability test on 10,000 tasks on 64 cores, and the simulator on
//! 100,000 tasks (64 cores, G-EDF, 1 ms simulated: every task releases at 0, so this is the
//! simulator's most crowded stretch). Both sets are drawn with seed 1 (UUniFast-discard,
//! total utilization 32, periods uniform in 10-100 ms, implicit deadlines, 1 us grid).
//! `cargo bench --bench scale`; `cargo bench --bench scale -- analyze/gfb` runs one test.

use criterion::{criterion_group, criterion_main, Criterion};
use kairos_analysis::{registry, tasks_of};
use kairos_gen::{generate_with_uunifast, make_workload, seeded, DeadlineDist, PeriodDist};
use kairos_model::{Duration, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};

const CORES: usize = 64;

/// `tasks` tasks of total utilization 32 on 64 cores, seed 1.
fn workload(tasks: usize) -> Workload {
    let mut rng = seeded(1);
    let drawn = generate_with_uunifast(
        &mut rng,
        tasks,
        32.0,
        PeriodDist::UniModerate,
        DeadlineDist::Implicit,
        Duration::from_micros(1),
        1.0,
    )
    .expect("valid generator parameters");
    make_workload(Some(format!("scale-{tasks}")), CORES, drawn)
}

fn analyze_ten_thousand(c: &mut Criterion) {
    let tasks = tasks_of(&workload(10_000));
    let selection = registry::select("default", CORES).expect("the default list");
    let mut group = c.benchmark_group("analyze");
    group.sample_size(10);
    for test in selection.run {
        group.bench_function(test.name.as_str(), |b| b.iter(|| test.run(&tasks, CORES)));
    }
    group.finish();
}

fn simulate_hundred_thousand(c: &mut Criterion) {
    let workload = workload(100_000);
    let config = SimConfig {
        duration: Duration::from_millis(1),
        ..SimConfig::default()
    };
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.bench_function("gedf-100000-tasks-1ms", |b| {
        b.iter(|| {
            let mut policy = PolicyKind::GlobalEdf.build(PriorityOrder::Auto);
            simulate(&workload, policy.as_mut(), &config).expect("simulates")
        })
    });
    group.finish();
}

criterion_group!(benches, analyze_ten_thousand, simulate_hundred_thousand);
criterion_main!(benches);
