use super::*;
use kairos_model::{check_source, Duration, Format};
use kairos_policy::{JobId, JobView, Reported, TimerId};
use kairos_policy::{PolicyKind, PriorityOrder};

fn workload() -> Workload {
    let src = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n\
               [[tasks]]\nname = \"b\"\nwcet = \"1ms\"\nperiod = \"8ms\"\ndeadline = \"2ms\"\n";
    check_source(src, Format::Toml).workload.unwrap()
}

fn job(task: usize) -> JobView {
    JobView {
        id: JobId { task, number: 0 },
        release: Instant::ZERO,
        absolute_deadline: Instant::ZERO + Duration::from_millis([4, 2][task]),
        part: kairos_model::Part::Mandatory,
        budget: Duration::from_millis(1),
        executed: Duration::ZERO,
        running_on: None,
        last_core: None,
    }
}

/// Both jobs released at 0: EDF runs b (deadline 2 ms) first.
fn steps(decision: usize) -> Vec<Step> {
    let id = |task| JobId { task, number: 0 };
    vec![Step {
        at: Instant::ZERO,
        events: vec![
            Reported::Released(id(0), Instant::ZERO),
            Reported::Released(id(1), Instant::ZERO),
        ],
        jobs: vec![job(0), job(1)],
        decision: vec![Some(id(decision))],
        mode: 0,
        actions: Vec::new(),
    }]
}

fn edf() -> Box<dyn Policy + Send> {
    PolicyKind::GlobalEdf.build(PriorityOrder::Auto)
}

#[test]
fn the_same_decision_replays() {
    assert_eq!(replay(&workload(), edf().as_mut(), &steps(1)), Ok(1));
}

#[test]
fn another_decision_is_a_divergence() {
    let e = replay(&workload(), edf().as_mut(), &steps(0)).unwrap_err();
    assert!(e.reason.contains("the policy decides"), "{e}");
}

#[test]
fn a_view_that_lost_a_release_is_caught() {
    let mut s = steps(1);
    s[0].jobs.remove(0);
    let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
    assert!(
        e.reason.contains("the view shows 1 job(s), 2 are released"),
        "{e}"
    );
}

#[test]
fn a_timer_nobody_armed_is_caught() {
    let mut s = steps(1);
    s[0].events.push(Reported::Timer(TimerId(7), Instant::ZERO));
    let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
    assert!(e.reason.contains("timer 7 fired"), "{e}");
}

#[test]
fn a_budget_that_is_not_the_tasks_is_caught() {
    let mut s = steps(1);
    s[0].jobs[0].budget = Duration::from_millis(2);
    let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
    assert!(e.reason.contains("shown with budget 2ms"), "{e}");
}

#[test]
fn a_recorded_action_the_policy_does_not_take_is_caught() {
    let mut s = steps(1);
    s[0].actions
        .push(kairos_policy::Action::CancelTimer(TimerId(0)));
    let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
    assert!(e.reason.contains("the run recorded"), "{e}");
}

#[test]
fn a_removal_of_a_job_never_released_is_caught() {
    let mut s = steps(1);
    let ghost = JobId { task: 0, number: 5 };
    s[0].events.push(Reported::Removed(ghost, Instant::ZERO));
    let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
    assert!(e.reason.contains("removal of job 0#5, not open"), "{e}");
}
