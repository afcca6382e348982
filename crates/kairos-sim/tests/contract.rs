//! The engine's side of the execution contract (`kairos-policy`), checked with scripted policies
//! that log what they are told and return decisions written by the test: the order of callbacks
//! at an instant, timers (armed, re-armed, cancelled, fired), discards, budget stops, mode
//! changes, the refusal of impossible decisions, and views that never reveal the drawn
//! execution time.

mod common;
#[path = "contract/scripted.rs"]
mod scripted;

use common::{at_units, task, units, workload};
use kairos_model::{Duration, Instant, Task};
use kairos_policy::{Action, Decision, JobId, JobSource, TimerId, View, WorkloadJobs};
use kairos_sim::observe::Observer;
use kairos_sim::{simulate, simulate_observed, ExecutionTimeModel, SimConfig, SimError};
use kairos_trace::TraceEvent;
use scripted::Scripted;

fn config(until: u64) -> SimConfig {
    SimConfig {
        duration: units(until),
        ..SimConfig::default()
    }
}

#[test]
fn an_instant_reports_completions_then_releases_then_timers_then_decides_once() {
    // One core; a (2 units) runs [0, 2), b (1 unit) [2, 3); both again from 4. A timer armed
    // at 0 for 2 fires after a's completion at 2, and one decision covers both.
    let w = workload(1, vec![task("a", 2, 4, 4, 0), task("b", 1, 4, 4, 0)]);
    let mut policy = Scripted::new(|n, view, d| {
        if n == 0 {
            d.actions.push(Action::ArmTimer {
                timer: TimerId(7),
                at: view.now + units(2),
            });
        }
    });
    simulate(&w, &mut policy, &config(4)).unwrap();
    let expected = [
        "0 release 0#0",
        "0 release 1#0",
        "0 decide",
        "2 complete 0#0",
        "2 timer 7",
        "2 decide",
        "3 complete 1#0",
        "3 decide",
        "4 release 0#1",
        "4 release 1#1",
        "4 decide",
    ];
    assert_eq!(policy.log, expected);
}

#[test]
fn a_rearmed_timer_fires_once_at_its_new_instant_and_a_cancelled_one_never() {
    let w = workload(1, vec![task("a", 1, 10, 10, 0)]);
    let mut policy = Scripted::new(|n, view, d| {
        if n > 0 {
            return;
        }
        d.actions.extend([
            Action::ArmTimer {
                timer: TimerId(1),
                at: view.now + units(3),
            },
            Action::ArmTimer {
                timer: TimerId(1),
                at: view.now + units(5),
            },
            Action::ArmTimer {
                timer: TimerId(2),
                at: view.now + units(4),
            },
            Action::CancelTimer(TimerId(2)),
        ]);
    });
    simulate(&w, &mut policy, &config(9)).unwrap();
    let timers: Vec<&String> = policy.log.iter().filter(|l| l.contains("timer")).collect();
    assert_eq!(timers, ["5 timer 1"]);
}

#[test]
fn a_discarded_job_is_removed_and_not_a_miss() {
    let w = workload(1, vec![task("a", 3, 20, 10, 0)]);
    let mut policy = Scripted::new(|n, view, d| {
        if n == 1 {
            let job = view.jobs[0].id;
            d.actions.push(Action::Discard(job));
        } else if n == 0 {
            d.actions.push(Action::ArmTimer {
                timer: TimerId(0),
                at: view.now + units(1),
            });
        }
    });
    // The run reaches past the deadline (10): the discard model drops a job on purpose.
    let outcome = simulate(&w, &mut policy, &config(12)).unwrap();
    assert_eq!(outcome.metrics.jobs_discarded, 1);
    assert_eq!(outcome.metrics.jobs_aborted, 0);
    assert_eq!(outcome.metrics.deadline_misses, 0);
    assert_eq!(outcome.metrics.jobs_completed, 0);
    assert_eq!(outcome.unfinished_jobs, 0);
}

#[test]
fn a_stopped_job_runs_no_more_and_misses_its_deadline() {
    let w = workload(1, vec![task("a", 3, 20, 10, 0)]);
    let config = SimConfig {
        record_trace: true,
        ..config(12)
    };
    let outcome = simulate(&w, &mut Scripted::new(stop_at_one), &config).unwrap();
    assert_eq!(outcome.metrics.deadline_misses, 1);
    assert_eq!(
        (outcome.metrics.jobs_completed, outcome.unfinished_jobs),
        (0, 1)
    );
    let ran: Vec<_> = outcome
        .trace
        .unwrap()
        .segments()
        .map(|s| (s.3, s.4))
        .collect();
    assert_eq!(ran, [(at_units(0), at_units(1))]);
    // Placing it again is refused.
    fn place_again(n: usize, view: &View<'_>, d: &mut Decision) {
        stop_at_one(n, view, d);
        if n == 1 {
            d.cores[0] = Some(view.jobs[0].id);
        }
    }
    let refused = simulate(&w, &mut Scripted::new(place_again), &config).unwrap_err();
    assert!(
        refused.to_string().contains("after the policy stopped it"),
        "{refused}"
    );
}

/// Stops the job at 1 unit and leaves its core idle.
fn stop_at_one(n: usize, view: &View<'_>, d: &mut Decision) {
    if n == 0 {
        d.actions.push(Action::ArmTimer {
            timer: TimerId(0),
            at: view.now + units(1),
        });
    } else if n == 1 {
        d.actions.push(Action::Stop(view.jobs[0].id));
        d.cores[0] = None;
    }
}

#[test]
fn a_mode_change_is_reported_then_decided_again_in_the_new_mode() {
    let w = workload(1, vec![task("a", 3, 10, 10, 0)]);
    let rise_first = |n: usize, _: &View<'_>, d: &mut Decision| {
        if n == 0 {
            d.actions.push(Action::ChangeMode {
                to: 1,
                triggers: Vec::new(),
            });
        }
    };
    // Two levels; the budget of a in the higher mode is 5 units instead of 3.
    let mut source = Budgets::new(&[3, 5]);
    let mut policy = Scripted::new(rise_first);
    let mut changes = Changes(Vec::new());
    let config = config(9);
    simulate_observed(&w, &mut policy, &config, &mut source, &mut changes).unwrap();
    assert_eq!(
        &policy.log[..4],
        ["0 release 0#0", "0 decide", "0 mode 0 -> 1", "0 decide"]
    );
    assert_eq!(policy.views[1][0].budget, units(5));
    assert_eq!(changes.0, [(at_units(0), 0, 1)]);
    // A mode the workload does not have is refused.
    let single = simulate(&w, &mut Scripted::new(rise_first), &config).unwrap_err();
    assert!(
        single.to_string().contains("from 0 to 1 (1 levels)"),
        "{single}"
    );
}

#[test]
fn an_overrun_is_reported_once_when_the_budget_runs_out() {
    // a needs 3 units but its budget is 1: the policy hears of it at 1, decides, and a runs on
    // to complete at 3; the budget is not reported again.
    let w = workload(1, vec![task("a", 3, 10, 10, 0)]);
    let mut source = Budgets::new(&[1]);
    let mut policy = Scripted::new(|_, _, _| {});
    let mut changes = Changes(Vec::new());
    simulate_observed(&w, &mut policy, &config(9), &mut source, &mut changes).unwrap();
    assert_eq!(
        policy.log,
        [
            "0 release 0#0",
            "0 decide",
            "1 budget 0#0",
            "1 decide",
            "3 complete 0#0",
            "3 decide"
        ]
    );
}

/// The workload's jobs with a fixed budget per mode (in units), one level per entry.
struct Budgets(WorkloadJobs, &'static [u64]);

impl Budgets {
    fn new(per_mode: &'static [u64]) -> Budgets {
        Budgets(WorkloadJobs::new(0, Default::default()), per_mode)
    }
}

impl JobSource for Budgets {
    fn work(&mut self, task: usize, spec: &Task, number: u64) -> Duration {
        self.0.work(task, spec, number)
    }
    fn inter_arrival(&mut self, task: usize, spec: &Task, number: u64) -> Duration {
        self.0.inter_arrival(task, spec, number)
    }
    fn levels(&self) -> Vec<String> {
        (0..self.1.len()).map(|level| format!("L{level}")).collect()
    }
    fn budget(&self, _: usize, _: &Task, mode: usize) -> Duration {
        units(self.1[mode])
    }
}

/// Records the mode changes a run makes.
struct Changes(Vec<(Instant, usize, usize)>);

impl Observer for Changes {
    fn event(&mut self, event: &TraceEvent) {
        if let TraceEvent::ModeChange { at, from, to } = *event {
            self.0.push((at, from, to));
        }
    }
}

fn refusal(script: fn(usize, &View<'_>, &mut Decision)) -> String {
    let w = workload(2, vec![task("a", 2, 4, 4, 0), task("b", 2, 4, 4, 0)]);
    match simulate(&w, &mut Scripted::new(script), &config(4)) {
        Err(e @ SimError::InvalidDispatch { .. }) => e.to_string(),
        other => panic!("expected a refused decision, got {other:?}"),
    }
}

#[test]
fn impossible_decisions_are_refused_with_the_reason() {
    let twice = refusal(|_, _, d| d.cores[1] = d.cores[0]);
    assert!(twice.contains("job a#0 on two cores at once"), "{twice}");
    let unknown = refusal(|_, _, d| d.cores[1] = Some(JobId { task: 1, number: 5 }));
    assert!(
        unknown.contains("job b#5 is not a released, unfinished job"),
        "{unknown}"
    );
    let cores = refusal(|_, _, d| d.cores.push(None));
    assert!(cores.contains("3 core entries for 2 cores"), "{cores}");
    let past = refusal(|_, view, d| {
        d.actions.push(Action::ArmTimer {
            timer: TimerId(0),
            at: view.now,
        })
    });
    assert!(
        past.contains("not after now") && past.contains("scripted"),
        "{past}"
    );
}

#[test]
fn views_show_the_budget_and_the_execution_received_not_the_drawn_time() {
    // Under uniform execution times the drawn work is below the WCET; the view shows the WCET
    // as budget and the execution received so far, and laxity follows from those two.
    let mut w = workload(1, vec![task("a", 8, 20, 20, 0), task("b", 4, 20, 20, 0)]);
    for t in &mut w.tasks {
        t.bcet = units(1);
    }
    let config = SimConfig {
        execution_times: ExecutionTimeModel::Uniform,
        seed: 3,
        ..config(19)
    };
    let mut policy = Scripted::new(|_, _, _| {});
    simulate(&w, &mut policy, &config).unwrap();
    let second = &policy.views[1];
    let b = second
        .iter()
        .find(|j| j.id.task == 1)
        .expect("b waits for a");
    assert_eq!(b.budget, units(4));
    assert!(b.executed.is_zero());
    let a_done = policy
        .log
        .iter()
        .find(|l| l.contains("complete 0#0"))
        .unwrap();
    let now: u64 = a_done.split(' ').next().unwrap().parse().unwrap();
    assert!(now < 8, "a's drawn time is below its WCET: {a_done}");
    assert_eq!(b.laxity(at_units(now)), i128::from((20 - now - 4) * 1_000));
}

/// At 0, arms a timer for 1 unit and promises core 1 the job `promised_b` says (b#0 or none);
/// the decision at 1 keeps the default placement (a#0 on core 0, core 1 idle).
fn promise(promised_b: bool) -> Result<kairos_sim::SimOutcome, SimError> {
    let w = workload(2, vec![task("a", 3, 4, 4, 0), task("b", 3, 4, 4, 0)]);
    let script: fn(usize, &View<'_>, &mut Decision) = if promised_b {
        |n, view, d| promise_at_one(n, view, d, true)
    } else {
        |n, view, d| promise_at_one(n, view, d, false)
    };
    simulate(&w, &mut Scripted::new(script), &config(4))
}

fn promise_at_one(n: usize, view: &View<'_>, d: &mut Decision, promised_b: bool) {
    if n == 0 {
        let at = view.now + units(1);
        d.actions.push(Action::ArmTimer {
            timer: TimerId(1),
            at,
        });
        let b = promised_b.then_some(JobId { task: 1, number: 0 });
        d.ahead = Some(kairos_policy::Ahead {
            at,
            cores: vec![d.cores[0], b],
        });
    }
}

#[test]
fn a_promise_binds_the_decision_at_its_instant() {
    assert!(promise(false).is_ok(), "a kept promise runs");
    match promise(true) {
        Err(e @ SimError::InvalidDispatch { .. }) => {
            let e = e.to_string();
            assert!(e.contains("promised") && e.contains("scripted"), "{e}");
        }
        other => panic!("a broken promise must be refused, got {other:?}"),
    }
}
