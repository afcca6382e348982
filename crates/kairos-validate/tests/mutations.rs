//! Each kind of mistake, made on tables that are valid by construction, is reported with its
//! kind, task, job, level and time.

mod common;

use common::{find, sequential_tables, small};
use kairos_model::TableSet;
use kairos_validate::{validate, Report, ViolationKind};

fn check(tables: &TableSet) -> Report {
    validate(&small(), tables)
}

fn kinds(report: &Report) -> Vec<ViolationKind> {
    report.violations.iter().map(|v| v.kind).collect()
}

#[test]
fn the_construction_is_valid() {
    let report = check(&sequential_tables(&small()));
    assert!(report.is_valid(), "{:#?}", report.violations);
    assert_eq!(report.levels, 2);
    // LO: g has 3 tasks x 2 jobs, h 1 job; HI: g/t0, g/t2 x 2 jobs, h 1 job.
    assert_eq!(report.jobs, 7 + 5);
}

#[test]
fn a_shortened_interval_is_a_budget_violation() {
    let mut tables = sequential_tables(&small());
    let i = find(&tables, 1, "g/t0", 1);
    tables.tables[1].intervals[i].end -= 1;
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::Budget]);
    let v = &report.violations[0];
    assert_eq!(
        (v.level.as_deref(), v.task.as_deref(), v.job, v.at),
        (Some("L1"), Some("g/t0"), Some(1), Some(10))
    );
    assert_eq!(
        v.to_string(),
        "level L1: g/t0 job 1: receives 3ns but its WCET at this level is 4ns at 10ns"
    );
}

#[test]
fn a_missing_job_is_a_budget_violation() {
    let mut tables = sequential_tables(&small());
    let i = find(&tables, 0, "h/t0", 0);
    tables.tables[0].intervals.remove(i);
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::Budget]);
    assert!(report.violations[0].message.contains("no interval"));
}

#[test]
fn a_moved_interval_overlaps_a_core() {
    let mut tables = sequential_tables(&small());
    // h/t0 runs on core 1 over [0, 3) at L0; put it on core 0, where g/t0 runs over [0, 2).
    let i = find(&tables, 0, "h/t0", 0);
    tables.tables[0].intervals[i].core = 0;
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::CoreOverlap]);
    let v = &report.violations[0];
    assert_eq!(
        (v.task.as_deref(), v.core, v.at),
        (Some("h/t0"), Some(0), Some(0))
    );
}

#[test]
fn a_task_on_two_cores_at_once_is_reported() {
    let mut tables = sequential_tables(&small());
    // Split g/t0 job 0 at L0 ([0, 2) on core 0) into [0, 1) on core 0 and [0, 1) on core 1:
    // the budget stays 2 but the task runs twice at once (core 1 is busy with h too).
    let i = find(&tables, 0, "g/t0", 0);
    let mut copy = tables.tables[0].intervals[i].clone();
    tables.tables[0].intervals[i].end = 1;
    copy.end = 1;
    copy.core = 1;
    tables.tables[0].intervals.push(copy);
    let report = check(&tables);
    assert!(
        report.has(ViolationKind::TaskOverlap),
        "{:#?}",
        report.violations
    );
    assert!(!report.has(ViolationKind::Budget));
}

#[test]
fn two_jobs_of_one_task_at_once_is_a_task_overlap() {
    let mut tables = sequential_tables(&small());
    // Job 1 of g/t1 (L0) at [12, 14) moved into job 0's window is also outside its own window.
    let i = find(&tables, 0, "g/t1", 1);
    let j = find(&tables, 0, "g/t1", 0);
    let (start, end) = (
        tables.tables[0].intervals[j].start,
        tables.tables[0].intervals[j].end,
    );
    tables.tables[0].intervals[i].start = start;
    tables.tables[0].intervals[i].end = end;
    let report = check(&tables);
    assert!(report.has(ViolationKind::TaskOverlap));
    assert!(report.has(ViolationKind::OutsideWindow));
}

#[test]
fn swapped_tasks_break_precedence() {
    let mut tables = sequential_tables(&small());
    // At L0, job 0: t0 [0, 2), t1 [4, 6), t2 [6, 7). Swap t1 and t0.
    let a = find(&tables, 0, "g/t0", 0);
    let b = find(&tables, 0, "g/t1", 0);
    let intervals = &mut tables.tables[0].intervals;
    let (sa, sb) = (intervals[a].start, intervals[b].start);
    intervals[a].start = sb;
    intervals[a].end = sb + 2;
    intervals[b].start = sa;
    intervals[b].end = sa + 2;
    let report = check(&tables);
    assert!(
        report.has(ViolationKind::Precedence),
        "{:#?}",
        report.violations
    );
}

#[test]
fn precedence_holds_through_tasks_absent_at_the_level() {
    let mut tables = sequential_tables(&small());
    // At L1, g/t2 (job 0, [6, 8)) depends on g/t0 ([0, 4)) through g/t1, absent at L1.
    let i = find(&tables, 1, "g/t2", 0);
    tables.tables[1].intervals[i].start = 3;
    tables.tables[1].intervals[i].end = 5;
    let report = check(&tables);
    let v = report
        .violations
        .iter()
        .find(|v| v.kind == ViolationKind::Precedence)
        .unwrap();
    assert_eq!(
        (v.task.as_deref(), v.job, v.at),
        (Some("g/t2"), Some(0), Some(3))
    );
    assert!(v.message.contains("g/t0"), "{}", v.message);
}

#[test]
fn a_high_level_unit_moved_earlier_breaks_the_transition() {
    let mut tables = sequential_tables(&small());
    // h/t0: L0 [0, 3), L1 [0, 5). Delay the L0 run by one: at t = 1 L1 gave 1, L0 nothing.
    let i = find(&tables, 0, "h/t0", 0);
    tables.tables[0].intervals[i].start = 1;
    tables.tables[0].intervals[i].end = 4;
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::UnsafeTransition]);
    let v = &report.violations[0];
    assert_eq!(
        (v.level.as_deref(), v.task.as_deref(), v.at),
        (Some("L0"), Some("h/t0"), Some(1))
    );
}

#[test]
fn interval_level_mistakes_are_each_reported() {
    let mut tables = sequential_tables(&small());
    let template = tables.tables[1].intervals[0].clone();
    let mut push = |f: &dyn Fn(&mut kairos_model::Interval)| {
        let mut i = template.clone();
        f(&mut i);
        tables.tables[1].intervals.push(i);
    };
    push(&|i| i.task = "g/nope".into());
    push(&|i| i.task = "g/t1".into()); // LO task in the HI table
    push(&|i| i.job = 2);
    push(&|i| i.end = i.start);
    let report = check(&tables);
    assert_eq!(
        kinds(&report),
        vec![
            ViolationKind::UnknownTask,
            ViolationKind::TaskAbsent,
            ViolationKind::JobOutOfRange,
            ViolationKind::EmptyInterval,
        ]
    );
}

#[test]
fn a_core_out_of_range_still_counts_for_the_job() {
    let mut tables = sequential_tables(&small());
    let i = find(&tables, 0, "h/t0", 0);
    tables.tables[0].intervals[i].core = 7;
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::CoreOutOfRange]);
}

#[test]
fn an_interval_past_the_deadline_is_outside_its_window() {
    let mut tables = sequential_tables(&small());
    // g/t2 job 0 at L1 is [6, 8); make it [9, 11), past the deadline 10.
    let i = find(&tables, 1, "g/t2", 0);
    tables.tables[1].intervals[i].start = 9;
    tables.tables[1].intervals[i].end = 11;
    let report = check(&tables);
    assert!(report.has(ViolationKind::OutsideWindow));
    let v = report
        .violations
        .iter()
        .find(|v| v.kind == ViolationKind::OutsideWindow)
        .unwrap();
    assert_eq!(v.at, Some(10));
}

#[test]
fn header_mistakes_are_reported() {
    let mut tables = sequential_tables(&small());
    tables.hyperperiod = 40;
    tables.cores = 3;
    tables.tables.swap(0, 1);
    let report = check(&tables);
    assert_eq!(
        kinds(&report),
        vec![
            ViolationKind::Hyperperiod,
            ViolationKind::Cores,
            ViolationKind::Levels,
            ViolationKind::Levels
        ]
    );
    tables.tables.pop();
    tables.levels = vec!["L0".into()];
    let report = check(&tables);
    assert!(report
        .violations
        .iter()
        .any(|v| v.message == "no table for this level"));
    tables.unit = "ms".into();
    assert_eq!(kinds(&check(&tables)), vec![ViolationKind::Unit]);
}

#[test]
fn missing_jobs_in_a_row_are_one_violation() {
    let mut tables = sequential_tables(&small());
    tables.tables[0].intervals.retain(|i| &*i.task != "g/t1");
    let report = check(&tables);
    assert_eq!(kinds(&report), vec![ViolationKind::Budget]);
    assert!(
        report.violations[0].message.contains("jobs 0 to 1"),
        "{}",
        report.violations[0].message
    );
}

#[test]
fn the_report_is_json() {
    let mut tables = sequential_tables(&small());
    tables.tables[1].intervals[0].end -= 1;
    let json = serde_json::to_value(check(&tables)).unwrap();
    assert_eq!(json["violations"][0]["kind"], "budget");
    assert_eq!(json["violations"][0]["level"], "L1");
    assert_eq!(json["jobs"], 12);
}
