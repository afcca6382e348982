//! One place applies decisions: a scripted policy runs through the simulator, through the
//! replay of its record, and (as root) through the user-space dispatcher on real cores, and all
//! three take the same steps (events, views, decisions, actions, promises) and refuse the same
//! decision with the same reason: a mode change to the level the system is in, or a timer armed
//! for the present. On the way the script arms, re-arms and cancels timers, moves jobs between
//! cores, stops one, discards another, and raises the mode once (asked again at that instant).
//!
//! The jobs are far longer than the script, so nothing completes and every step is at an
//! instant of the script's own (a release or a timer): what the real run measured (the
//! execution each view shows) is the only thing that differs, and it is left out.

use kairos_model::{check_source, Duration, Format, Instant, Task, Workload};
use kairos_os::{online_cpus, privilege};
use kairos_policy::Recorder;
use kairos_policy::{Action, Decision, JobId, JobSource, Policy, Step, TimerId, View};
use kairos_rt::dispatcher::{run_user_from, RunSource, UserRunConfig};
use kairos_sim::observe::Observer;
use kairos_sim::replay::replay_from;
use kairos_sim::{simulate_observed, SimConfig, SimError};
use kairos_trace::TraceEvent;

const WORKLOAD: &str = r#"
name = "scripted"
cores = 2
[[tasks]]
name = "a"
wcet = "50ms"
period = "100ms"
[[tasks]]
name = "b"
wcet = "50ms"
period = "100ms"
[[tasks]]
name = "c"
wcet = "50ms"
period = "100ms"
"#;

const DURATION: Duration = Duration::from_millis(40);

fn workload() -> Workload {
    check_source(WORKLOAD, Format::Toml)
        .workload
        .expect("valid")
}

/// Two criticality levels, each job's budget its WCET at LO and twice that at HI.
struct TwoLevels;

impl JobSource for TwoLevels {
    fn work(&mut self, _: usize, spec: &Task, _: u64) -> Duration {
        spec.wcet
    }
    fn inter_arrival(&mut self, _: usize, spec: &Task, _: u64) -> Duration {
        spec.period
    }
    fn levels(&self) -> Vec<String> {
        vec!["LO".into(), "HI".into()]
    }
    fn budget(&self, _: usize, spec: &Task, mode: usize) -> Duration {
        Duration::from_nanos(spec.wcet.as_nanos() * (mode as u64 + 1))
    }
}

/// How the script ends.
#[derive(Clone, Copy)]
enum Ending {
    /// At 6 ms, a change to HI, the mode the system is in.
    ModeChangeToTheSameLevel,
    /// At 6 ms, a timer armed for 6 ms.
    TimerInThePresent,
}

/// The decisions of the script, by instant (ms) and mode.
struct Scripted(Ending);

fn job(task: usize) -> JobId {
    JobId { task, number: 0 }
}

const T1: TimerId = TimerId(1);
const T2: TimerId = TimerId(2);
const T3: TimerId = TimerId(3);

impl Policy for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let ms = |n: u64| Instant::ZERO + Duration::from_millis(n);
        let mut d = Decision::idle(view.cores);
        let now = view.now.as_nanos() / 1_000_000;
        match (now, view.mode) {
            (0, 0) => {
                d.cores = vec![Some(job(0)), Some(job(1))];
                d.actions = vec![
                    Action::ArmTimer {
                        timer: T1,
                        at: ms(2),
                    },
                    Action::ArmTimer {
                        timer: T2,
                        at: ms(9),
                    },
                    Action::ArmTimer {
                        timer: T3,
                        at: ms(3),
                    },
                    Action::CancelTimer(T3),
                ];
            }
            (2, 0) => {
                // b moves to core 0, c starts on core 1; a waits.
                d.cores = vec![Some(job(1)), Some(job(2))];
                d.actions = vec![
                    Action::ArmTimer {
                        timer: T2,
                        at: ms(4),
                    },
                    Action::Stop(job(0)),
                ];
            }
            (4, 0) => {
                d.cores = vec![Some(job(1)), Some(job(2))];
                d.actions = vec![
                    Action::ChangeMode {
                        to: 1,
                        triggers: vec![job(2)],
                    },
                    Action::ArmTimer {
                        timer: T1,
                        at: ms(6),
                    },
                ];
            }
            (4, 1) => {
                d.cores = vec![Some(job(2)), None];
                d.actions = vec![Action::Discard(job(1))];
            }
            (6, 1) => {
                d.cores = vec![Some(job(2)), None];
                d.actions = vec![match self.0 {
                    Ending::ModeChangeToTheSameLevel => Action::ChangeMode {
                        to: 1,
                        triggers: vec![],
                    },
                    Ending::TimerInThePresent => Action::ArmTimer {
                        timer: T3,
                        at: ms(6),
                    },
                }];
            }
            other => panic!("the script has no decision at {other:?}"),
        }
        d
    }
}

/// The refusal each ending must meet, in every engine.
fn refusal(ending: Ending) -> &'static str {
    match ending {
        Ending::ModeChangeToTheSameLevel => "a change of mode from 1 to 1 (2 levels)",
        Ending::TimerInThePresent => "a timer armed for 6ms, not after now",
    }
}

/// What every engine must agree on in a step: all of it but the execution the views show.
fn agreed(steps: &[Step]) -> Vec<Step> {
    let mut steps = steps.to_vec();
    for job in steps.iter_mut().flat_map(|s| &mut s.jobs) {
        job.executed = Duration::ZERO;
    }
    steps
}

struct Unwatched;

impl Observer for Unwatched {
    fn event(&mut self, _: &TraceEvent) {}
}

/// The simulation's steps and its refusal.
fn simulated(ending: Ending) -> (Vec<Step>, String) {
    let w = workload();
    let mut recorder = Recorder::new(Scripted(ending));
    let config = SimConfig {
        duration: DURATION,
        ..SimConfig::default()
    };
    let outcome = simulate_observed(&w, &mut recorder, &config, &mut TwoLevels, &mut Unwatched);
    let reason = match outcome {
        Err(SimError::InvalidDispatch { reason, at, .. }) => {
            assert_eq!(at, Instant::ZERO + Duration::from_millis(6));
            reason
        }
        other => panic!("the simulation ran without a refusal: {other:?}"),
    };
    (recorder.steps, reason)
}

/// Replays `steps`; returns the refusal of its last step.
fn replayed(steps: &[Step], ending: Ending) -> String {
    let w = workload();
    let end = Instant::ZERO + DURATION;
    let e = replay_from(&w, &TwoLevels, &mut Scripted(ending), steps, end)
        .expect_err("the replay refuses the last decision");
    assert_eq!(e.step, steps.len() - 1, "{e}");
    e.reason
}

const ENDINGS: [Ending; 2] = [Ending::ModeChangeToTheSameLevel, Ending::TimerInThePresent];

#[test]
fn the_simulator_and_the_replay_apply_the_same_steps_and_refusals() {
    for ending in ENDINGS {
        let (steps, reason) = simulated(ending);
        assert_eq!(reason, refusal(ending));
        // 0, 2, 4 (LO), 4 (HI, asked again), 6: every step of the script was taken.
        let instants: Vec<_> = (steps.iter())
            .map(|s| (s.at.as_nanos() / 1_000_000, s.mode))
            .collect();
        assert_eq!(instants, [(0, 0), (2, 0), (4, 0), (4, 1), (6, 1)]);
        assert_eq!(replayed(&steps, ending), refusal(ending));
    }
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn the_dispatcher_takes_the_simulators_steps_and_refuses_the_same_decision() {
    if let Err(e) = privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
    assert!(online_cpus().len() >= 2, "this test needs two CPUs");
    let w = workload();
    for ending in ENDINGS {
        let (simulated, _) = simulated(ending);
        let source = RunSource {
            source: Box::new(TwoLevels),
            work_scale: 1.0,
        };
        let mut config = UserRunConfig::new(DURATION.as_nanos());
        config.record_steps = true;
        let real =
            run_user_from(&w, Box::new(Scripted(ending)), source, &config).expect("the run starts");
        let stopped = real.result.stopped_by.clone().unwrap_or_default();
        assert_eq!(
            stopped,
            format!("policy scripted at 6ms: {}", refusal(ending))
        );
        assert_eq!(agreed(&real.steps), agreed(&simulated));
        assert_eq!(replayed(&real.steps, ending), refusal(ending));
    }
}
