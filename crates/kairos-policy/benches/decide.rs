//! One decision of the global and partitioned policies, the simulator's hottest function
//! (docs/bench.md, "What a simulated job costs"): G-EDF, G-FP and P-EDF on 4 cores from a view
//! of 4, 8, 24 and 64 open jobs. 4 is about the mean at a decision of the SimSo workload, three
//! running and one just released; 8 and 24 are below the ready queues' threshold, 64 above,
//! the first four running. The decision is given back to the policy after each call as the
//! engines do. Deadlines and releases follow a fixed stride (no random choice).
//! `cargo bench -p kairos-policy --bench decide`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kairos_model::{Arrival, Duration, Instant, Part, Task, Workload};
use kairos_policy::{JobId, JobView, PolicyKind, PriorityOrder, View};

const CORES: usize = 4;

fn tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            let period = Duration::from_micros(1_000 + (i as u64 * 7_919) % 9_001);
            Task {
                name: format!("t{i}"),
                wcet: Duration::from_micros(100),
                bcet: Duration::from_micros(100),
                period,
                deadline: period,
                offset: Duration::ZERO,
                arrival: Arrival::Periodic,
                priority: None,
                core: None,
                imprecise: None,
            }
        })
        .collect()
}

/// One open job per task, the first `CORES` running on their cores, but the last job when
/// they are no more than the cores (just released, for a free core).
fn jobs(tasks: &[Task]) -> Vec<JobView> {
    let n = tasks.len();
    let runs = |i: usize| i < CORES && (n > CORES || i + 1 < n);
    (tasks.iter().enumerate())
        .map(|(i, t)| {
            let release = Instant::ZERO + Duration::from_micros((i as u64 * 3_571) % 997);
            JobView {
                id: JobId { task: i, number: 0 },
                release,
                absolute_deadline: release + t.deadline,
                part: Part::Mandatory,
                budget: t.wcet,
                executed: Duration::ZERO,
                running_on: runs(i).then_some(i),
                last_core: runs(i).then_some(i),
            }
        })
        .collect()
}

fn decide(c: &mut Criterion) {
    let mut group = c.benchmark_group("decide");
    for kind in [
        PolicyKind::GlobalEdf,
        PolicyKind::GlobalFp,
        PolicyKind::PartitionedEdf,
    ] {
        for n in [4, 8, 24, 64] {
            let workload = Workload {
                name: None,
                cores: CORES,
                tasks: tasks(n),
                overheads: Default::default(),
            };
            let jobs = jobs(&workload.tasks);
            let view = View {
                now: Instant::ZERO + Duration::from_micros(500),
                cores: CORES,
                mode: 0,
                jobs: &jobs,
                index: None,
                tasks: &workload.tasks,
                servers: &[],
            };
            let mut policy = kind.build(PriorityOrder::Auto);
            policy.prepare(&workload).expect("a plain task set");
            group.bench_function(BenchmarkId::new(kind.cli_name(), n), |b| {
                b.iter(|| {
                    let decision = policy.decide(&view);
                    policy.recycle(decision);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, decide);
criterion_main!(benches);
