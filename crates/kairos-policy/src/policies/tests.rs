//! The standard policies on hand-made views.

use super::edzl::Edzl;
use super::fixed_priority::{PriorityOrder, Rank};
use super::order::JobOrder;
use super::placement::place_on_cores;
use super::{PolicyKind, ReorderTimer};
use crate::{Action, JobId, JobView, TimerId, View};
use kairos_model::{Arrival, Duration, Instant, Priority, Task, Workload};

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn at(v: u64) -> Instant {
    Instant::ZERO + ms(v)
}

fn job(task: usize, deadline: u64, budget: u64, executed: u64) -> JobView {
    JobView {
        id: JobId { task, number: 0 },
        release: at(0),
        absolute_deadline: at(deadline),
        part: kairos_model::Part::Mandatory,
        budget: ms(budget),
        executed: ms(executed),
        running_on: None,
        last_core: None,
    }
}

fn task(name: &str, period: u64, deadline: u64, priority: Option<u32>) -> Task {
    Task {
        name: name.into(),
        wcet: ms(1),
        bcet: ms(1),
        period: ms(period),
        deadline: ms(deadline),
        offset: Duration::ZERO,
        arrival: Arrival::Periodic,
        priority: priority.map(Priority::from_level),
        core: None,
        imprecise: None,
    }
}

#[test]
fn edzl_laxity_counts_the_budget_left_not_the_work_a_simulation_drew() {
    // Deadline 10, budget 6 of which 1 executed: zero laxity at 5, whatever the job's real
    // remaining work is (a view has no field for it).
    let late = job(0, 10, 6, 1);
    let early = job(1, 8, 1, 0);
    assert_eq!(late.zero_laxity_at(), at(5));
    assert!(Edzl
        .precedence(&early, at(4))
        .runs_before(Edzl.precedence(&late, at(4))));
    assert!(Edzl
        .precedence(&late, at(5))
        .runs_before(Edzl.precedence(&early, at(5))));
    let mut waiting = [&late, &early].into_iter();
    assert_eq!(Edzl.reorder_at(at(4), &mut waiting), Some(at(5)));
}

#[test]
fn ranks_follow_the_order_and_compare_only_by_importance() {
    let w = Workload {
        name: None,
        cores: 1,
        tasks: vec![task("slow", 30, 5, Some(1)), task("fast", 10, 10, Some(2))],
        overheads: Default::default(),
    };
    let rm = PriorityOrder::RateMonotonic.ranks(&w);
    assert!(rm[1].is_more_important_than(rm[0]));
    let dm = PriorityOrder::DeadlineMonotonic.ranks(&w);
    assert!(dm[0].is_more_important_than(dm[1]));
    assert_eq!(PriorityOrder::Auto.resolve(&w), PriorityOrder::Explicit);
    let explicit: Vec<Rank> = PriorityOrder::Auto.ranks(&w);
    assert_eq!(explicit[0].tasks_above(), 0);
    assert!(!explicit[1].is_more_important_than(explicit[0]));
}

#[test]
fn placement_keeps_running_jobs_then_last_cores_then_the_lowest_free_core() {
    let mut running = job(0, 10, 1, 0);
    running.running_on = Some(2);
    let mut resuming = job(1, 10, 1, 0);
    resuming.last_core = Some(2);
    let mut returning = job(2, 10, 1, 0);
    returning.last_core = Some(1);
    let fresh = job(3, 10, 1, 0);
    let placed = place_on_cores(4, [&fresh, &resuming, &running, &returning].into_iter());
    let ids = |t| Some(JobId { task: t, number: 0 });
    // Task 0 keeps core 2. Then, most important first: task 3 takes the lowest free core (0);
    // task 1's last core (2) is busy, so it takes core 1; that was task 2's last core, so task 2
    // takes the last free one (3).
    assert_eq!(placed, [ids(3), ids(1), ids(0), ids(2)]);
}

#[test]
fn the_reorder_timer_acts_only_on_change() {
    let mut timer = ReorderTimer::default();
    assert!(timer.update(None).is_empty());
    let arm = timer.update(Some(at(5)));
    assert_eq!(
        arm,
        [Action::ArmTimer {
            timer: TimerId(0),
            at: at(5)
        }]
    );
    assert!(timer.update(Some(at(5))).is_empty());
    assert_eq!(timer.update(None), [Action::CancelTimer(TimerId(0))]);
    timer.update(Some(at(7)));
    timer.fired(TimerId(0));
    assert!(
        timer.update(None).is_empty(),
        "a fired timer needs no cancel"
    );
}

#[test]
fn every_kind_decides_for_every_core() {
    let w = Workload {
        name: None,
        cores: 2,
        tasks: vec![
            task("a", 10, 10, None),
            task("b", 20, 20, None),
            task("c", 5, 5, None),
        ],
        overheads: Default::default(),
    };
    let jobs = [job(0, 10, 1, 0), job(1, 20, 1, 0), job(2, 5, 1, 0)];
    let view = View {
        now: at(0),
        cores: 2,
        mode: 0,
        jobs: &jobs,
        index: None,
        tasks: &w.tasks,
        servers: &[],
    };
    for kind in PolicyKind::ALL {
        let mut policy = kind.build(PriorityOrder::Auto);
        policy.prepare(&w).unwrap();
        let decision = policy.decide(&view);
        assert_eq!(decision.cores.len(), 2, "{}", kind.cli_name());
        assert!(
            decision.cores.iter().any(Option::is_some),
            "{}",
            kind.cli_name()
        );
    }
}

#[test]
fn partitioned_kinds_refuse_a_binding_to_a_missing_core() {
    let mut bound = task("b", 20, 20, None);
    bound.core = Some(kairos_model::CoreId(2));
    let w = Workload {
        name: None,
        cores: 2,
        tasks: vec![task("a", 10, 10, None), bound],
        overheads: Default::default(),
    };
    for kind in PolicyKind::ALL {
        let prepared = kind.build(PriorityOrder::Auto).prepare(&w);
        if kind.is_global() {
            assert_eq!(prepared, Ok(()), "{} binds no task", kind.cli_name());
        } else {
            let refusal = prepared.expect_err(kind.cli_name()).0;
            assert_eq!(
                refusal,
                "task `b` is bound to core 2, but the workload has 2 core(s), numbered from 0"
            );
        }
    }
}
