//! FIFO priorities of kernel-dispatched fixed-priority runs: the simulator's total order per
//! group of competing threads, or a refusal.

use super::*;

/// `n` tasks with distinct periods (1 ms, 1.1 ms, ...) and utilization 0.02 each, so
/// rate-monotonic order is task order and first-fit fills a core with 50 of them.
fn tasks(n: usize, cores: usize) -> Workload {
    let mut source = format!("name = \"many\"\ncores = {cores}\n");
    for i in 0..n {
        source.push_str(&format!(
            "[[tasks]]\nname = \"t{i}\"\nwcet = \"{}us\"\nperiod = \"{}us\"\n",
            20 + 2 * i,
            1000 + 100 * i
        ));
    }
    kairos_model::check_source(&source, kairos_model::Format::Toml)
        .workload
        .expect("valid workload")
}

fn fifo_priority(thread: &ThreadPlan) -> i32 {
    match thread.policy {
        Policy::Fifo { priority } => priority,
        ref other => panic!("not a FIFO thread: {other:?}"),
    }
}

#[test]
fn global_fp_gives_each_task_its_own_level_in_rate_monotonic_order() {
    let w = tasks(3, 2);
    let plan = plan(&w, &PeriodicConfig::new(PeriodicPolicy::Gfp, 1), &[0, 1]).unwrap();
    let levels: Vec<i32> = plan.threads.iter().map(fifo_priority).collect();
    assert_eq!(
        levels,
        vec![
            priority::WORKER_MAX,
            priority::WORKER_MAX - 1,
            priority::WORKER_MAX - 2
        ]
    );
}

#[test]
fn more_competing_tasks_than_fifo_levels_are_refused_under_kernel_dispatch() {
    let levels = (priority::WORKER_MAX - priority::MIN + 1) as usize;
    let w = tasks(levels + 1, 2);
    let refusal = plan(&w, &PeriodicConfig::new(PeriodicPolicy::Gfp, 1), &[0, 1])
        .expect_err("more tasks than levels");
    let message = refusal.to_string();
    assert!(message.contains("--dispatch user"), "{message}");
    assert!(
        message.contains(&format!("{} tasks", levels + 1)),
        "{message}"
    );
    let w = tasks(levels, 2);
    assert!(plan(&w, &PeriodicConfig::new(PeriodicPolicy::Gfp, 1), &[0, 1]).is_ok());
}

#[test]
fn partitioned_fp_needs_distinct_levels_per_cpu_only() {
    let levels = (priority::WORKER_MAX - priority::MIN + 1) as usize;
    let w = tasks(levels + 10, 2);
    let plan = plan(&w, &PeriodicConfig::new(PeriodicPolicy::Pfp, 1), &[0, 1]).unwrap();
    let ranks = PriorityOrder::Auto.ranks(&w);
    for cpu in [0, 1] {
        let on_cpu: Vec<&ThreadPlan> = plan.threads.iter().filter(|t| t.cpus == [cpu]).collect();
        assert!(
            !on_cpu.is_empty() && on_cpu.len() <= levels,
            "{} on CPU {cpu}",
            on_cpu.len()
        );
        for a in &on_cpu {
            for b in &on_cpu {
                let (pa, pb) = (fifo_priority(a), fifo_priority(b));
                if ranks[a.task].is_more_important_than(ranks[b.task]) {
                    assert!(pa > pb, "task {} at {pa}, task {} at {pb}", a.task, b.task);
                }
            }
        }
    }
}

#[test]
fn partitioned_fp_refuses_a_binding_to_a_missing_core() {
    let mut w = tasks(3, 2);
    w.tasks[2].core = Some(kairos_model::CoreId(2));
    let refusal = plan(&w, &PeriodicConfig::new(PeriodicPolicy::Pfp, 1), &[0, 1])
        .expect_err("core 2 of 2")
        .to_string();
    assert!(refusal.contains("`t2` is bound to core 2"), "{refusal}");
}
