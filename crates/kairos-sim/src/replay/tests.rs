use super::*;
use kairos_model::{check_source, Duration, Format};
use kairos_policy::{Action, Decision, JobId, JobView, Reported, TimerId, View};
use kairos_policy::{PolicyKind, PriorityOrder};

/// Later than any step of these records.
const END: Instant = Instant::from_nanos(1_000_000_000);

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
        ahead: None,
    }]
}

fn edf() -> Box<dyn Policy + Send> {
    PolicyKind::GlobalEdf.build(PriorityOrder::Auto)
}

#[test]
fn the_same_decision_replays() {
    assert_eq!(replay(&workload(), edf().as_mut(), &steps(1), END), Ok(1));
}

#[test]
fn another_decision_is_a_divergence() {
    let e = replay(&workload(), edf().as_mut(), &steps(0), END).unwrap_err();
    assert!(e.reason.contains("the policy decides"), "{e}");
}

#[test]
fn a_view_that_lost_a_release_is_caught() {
    let mut s = steps(1);
    s[0].jobs.remove(0);
    let e = replay(&workload(), edf().as_mut(), &s, END).unwrap_err();
    assert!(
        e.reason.contains("the view shows 1 job(s), 2 are released"),
        "{e}"
    );
}

#[test]
fn a_timer_nobody_armed_is_caught() {
    let mut s = steps(1);
    s[0].events.push(Reported::Timer(TimerId(7), Instant::ZERO));
    let e = replay(&workload(), edf().as_mut(), &s, END).unwrap_err();
    assert!(e.reason.contains("timer 7 fired"), "{e}");
}

#[test]
fn a_budget_that_is_not_the_tasks_is_caught() {
    let mut s = steps(1);
    s[0].jobs[0].budget = Duration::from_millis(2);
    let e = replay(&workload(), edf().as_mut(), &s, END).unwrap_err();
    assert!(e.reason.contains("shown with budget 2ms"), "{e}");
}

#[test]
fn a_recorded_action_the_policy_does_not_take_is_caught() {
    let mut s = steps(1);
    s[0].actions
        .push(kairos_policy::Action::CancelTimer(TimerId(0)));
    let e = replay(&workload(), edf().as_mut(), &s, END).unwrap_err();
    assert!(e.reason.contains("the run recorded"), "{e}");
}

#[test]
fn a_removal_of_a_job_never_released_is_caught() {
    let mut s = steps(1);
    let ghost = JobId { task: 0, number: 5 };
    s[0].events.push(Reported::Removed(ghost, Instant::ZERO));
    let e = replay(&workload(), edf().as_mut(), &s, END).unwrap_err();
    assert!(
        e.reason
            .contains("removal of job 0#5, not released or finished"),
        "{e}"
    );
}

/// Places job 0 of task 0 on the one core; cuts its optional part once told it overran.
struct CutOnOverrun {
    cut: Option<JobId>,
}

impl Policy for CutOnOverrun {
    fn name(&self) -> &'static str {
        "cut-on-overrun"
    }

    fn runs_parts(&self) -> bool {
        true
    }

    fn budget_exhausted(&mut self, _now: Instant, job: &JobView) {
        if job.part == kairos_model::Part::Optional {
            self.cut = Some(job.id);
        }
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::idle(view.cores);
        decision.cores[0] = view.jobs.first().map(|j| j.id);
        decision
            .actions
            .extend(self.cut.take().map(Action::CutOptional));
        decision
    }
}

/// A real run's dispatcher may be late (a stalled host): the optional part it cut on an
/// overrun is followed by a wind-up that overruns too before the next pass. That is a second
/// budget, and its overrun is reported once more.
#[test]
fn a_wind_up_overrun_after_a_cut_is_reported_against_a_new_budget() {
    let src = "cores = 1\n[[tasks]]\nname = \"i\"\nperiod = \"10ms\"\n\
               mandatory = \"1ms\"\noptional = \"2ms\"\nwindup = \"1ms\"\n";
    let w = check_source(src, Format::Toml).workload.unwrap();
    let id = JobId { task: 0, number: 0 };
    let ms = |n| Instant::ZERO + Duration::from_millis(n);
    let view = |part, budget: u64, executed: u64| JobView {
        id,
        release: Instant::ZERO,
        absolute_deadline: ms(10),
        part,
        budget: Duration::from_millis(budget),
        executed: Duration::from_millis(executed),
        running_on: (executed > 0 || part != kairos_model::Part::Mandatory).then_some(0),
        last_core: (executed > 0 || part != kairos_model::Part::Mandatory).then_some(0),
    };
    use kairos_model::Part::{Mandatory, Optional, Windup};
    let step = |at, events, jobs, actions| Step {
        at,
        events,
        jobs,
        decision: vec![Some(id)],
        mode: 0,
        actions,
        ahead: None,
    };
    let steps = vec![
        step(
            ms(0),
            vec![Reported::Released(id, ms(0))],
            vec![view(Mandatory, 1, 0)],
            vec![],
        ),
        step(
            ms(1),
            vec![Reported::PartCompleted(id, Mandatory, ms(1))],
            vec![view(Optional, 2, 0)],
            vec![],
        ),
        step(
            ms(3),
            vec![Reported::BudgetExhausted(id, ms(3))],
            vec![view(Optional, 2, 2)],
            vec![Action::CutOptional(id)],
        ),
        step(
            ms(5),
            vec![Reported::BudgetExhausted(id, ms(5))],
            vec![view(Windup, 1, 1)],
            vec![],
        ),
    ];
    let mut policy = CutOnOverrun { cut: None };
    assert_eq!(replay(&w, &mut policy, &steps, END), Ok(4));
}
