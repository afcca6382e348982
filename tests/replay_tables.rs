//! Table runs replay decision for decision: the table executor (G-RES / G-MCRES) asked the
//! same questions from the same events gives the same answers, mode changes, discards, budget
//! stops and the jobs a hyper-period forgets included. Recorded two ways: at the policy's
//! boundary in the simulator ([`kairos_policy::Recorder`]) and by the runtime's dispatcher on
//! real cores. A record with an event lost or a mode falsified is refused, so the replay can
//! fail. The real run needs real-time privilege: ignored by a plain `cargo test`, run by the
//! README's command and CI (as root), where a missing privilege fails it.

use kairos_model::{Duration, Instant, McSystem, TableSet};
use kairos_os::{online_cpus, privilege};
use kairos_policy::table::{
    DemandSpec, Demands, Overrun, OverrunDemand, TableExecModel, TableJobs, TablePlan, TablePolicy,
};
use kairos_policy::{Action, Recorder, Reported, Step};
use kairos_rt::table::{run_tables_detailed, scenarios, TableRunConfig};
use kairos_sim::observe::Observer;
use kairos_sim::replay::replay_from;
use kairos_sim::{simulate_observed, SimConfig};
use kairos_trace::TraceEvent;
use std::sync::Arc;

const MS: u64 = 1_000_000;

/// Watches nothing: the record is the policy's.
struct Unwatched;

impl Observer for Unwatched {
    fn event(&mut self, _: &TraceEvent) {}
}

/// The table policy's budgets per mode (what a replay checks each view against).
fn budgets(plan: &Arc<TablePlan>) -> TableJobs {
    let demands =
        Demands::new(plan, &DemandSpec::default(), plan.hyperperiod).expect("the default demands");
    TableJobs::new(Arc::clone(plan), demands)
}

/// The steps of a simulated table run of `hyperperiods` hyper-periods, and its end.
fn simulated(
    system: &McSystem,
    tables: &TableSet,
    spec: &DemandSpec,
    hyperperiods: u64,
) -> (Vec<Step>, Instant) {
    let plan = Arc::new(TablePlan::new(system, tables).expect("a valid table set"));
    let config = SimConfig {
        duration: Duration::from_nanos(hyperperiods * plan.hyperperiod),
        ..SimConfig::default()
    };
    let demands = Demands::new(&plan, spec, config.duration.as_nanos()).unwrap();
    let mut jobs = TableJobs::new(Arc::clone(&plan), demands);
    let mut recorder = Recorder::new(TablePolicy::new(Arc::clone(&plan)));
    let workload = plan.workload();
    simulate_observed(&workload, &mut recorder, &config, &mut jobs, &mut Unwatched)
        .expect("the simulation runs");
    (recorder.steps, Instant::ZERO + config.duration)
}

/// Replays the `steps` of a run that ended at `end`.
fn replayed(
    system: &McSystem,
    tables: &TableSet,
    steps: &[Step],
    end: Instant,
) -> Result<usize, String> {
    let plan = Arc::new(TablePlan::new(system, tables).unwrap());
    let mut fresh = TablePolicy::new(Arc::clone(&plan));
    let budgets = budgets(&plan);
    replay_from(&plan.workload(), &budgets, &mut fresh, steps, end).map_err(|e| e.to_string())
}

/// How many recorded mode changes, discards, stops, overruns and removals `steps` hold.
fn kinds(steps: &[Step]) -> [usize; 5] {
    let actions = steps.iter().flat_map(|s| &s.actions);
    let events = steps.iter().flat_map(|s| &s.events);
    let count_actions = |f: fn(&Action) -> bool| actions.clone().filter(|a| f(a)).count();
    let count_events = |f: fn(&Reported) -> bool| events.clone().filter(|e| f(e)).count();
    [
        count_actions(|a| matches!(a, Action::ChangeMode { .. })),
        count_actions(|a| matches!(a, Action::Discard(_))),
        count_actions(|a| matches!(a, Action::Stop(_))),
        count_events(|e| matches!(e, Reported::BudgetExhausted(..))),
        count_events(|e| matches!(e, Reported::Removed(..))),
    ]
}

/// A task overrunning far beyond its WCET at its own level: stopped, left unfinished until its
/// hyper-period ends.
fn beyond(task: &str, job: u64) -> Overrun {
    Overrun {
        task: task.into(),
        job,
        demand: OverrunDemand::Exactly(Duration::from_millis(50)),
    }
}

#[test]
fn simulated_table_runs_replay_with_mode_changes_stops_and_forgotten_jobs() {
    let (system, tables) = scenarios::mode_change(8, 2, MS);
    let mut total = [0; 5];
    for seed in 0..6 {
        let spec = DemandSpec {
            execution_times: TableExecModel::Uniform { min_fraction: 0.3 },
            overruns: vec![beyond("mc/t1", seed)],
            overrun_probability: 0.3,
            seed,
        };
        let (steps, end) = simulated(&system, &tables, &spec, 8);
        let n =
            replayed(&system, &tables, &steps, end).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(n, steps.len());
        total = std::array::from_fn(|k| total[k] + kinds(&steps)[k]);
    }
    let (twin, twin_tables) = scenarios::twin_overruns(MS);
    let spec = DemandSpec {
        overrun_probability: 1.0,
        ..DemandSpec::default()
    };
    let (steps, end) = simulated(&twin, &twin_tables, &spec, 3);
    replayed(&twin, &twin_tables, &steps, end).unwrap();
    // Not vacuous: every kind of table event was replayed.
    assert!(
        total.iter().all(|&k| k > 0),
        "changes, discards, stops, overruns, removals: {total:?}"
    );
}

#[test]
fn a_record_that_lost_an_event_or_its_mode_is_refused() {
    let (system, tables) = scenarios::mode_change(8, 2, MS);
    let spec = DemandSpec {
        overruns: vec![beyond("mc/t1", 0)],
        overrun_probability: 0.5,
        seed: 3,
        ..DemandSpec::default()
    };
    let (steps, end) = simulated(&system, &tables, &spec, 4);
    let with = |f: &dyn Fn(&Reported) -> bool| steps.iter().position(|s| s.events.iter().any(f));
    let removal = with(&|e| matches!(e, Reported::Removed(..))).expect("a forgotten job");
    let mut lost = steps.clone();
    lost[removal]
        .events
        .retain(|e| !matches!(e, Reported::Removed(..)));
    assert!(
        replayed(&system, &tables, &lost, end).is_err(),
        "a lost removal replayed"
    );
    let overrun = with(&|e| matches!(e, Reported::BudgetExhausted(..))).expect("an overrun");
    let mut lost = steps.clone();
    lost[overrun]
        .events
        .retain(|e| !matches!(e, Reported::BudgetExhausted(..)));
    assert!(
        replayed(&system, &tables, &lost, end).is_err(),
        "a lost overrun replayed"
    );
    let raised = (steps.iter())
        .position(|s| s.mode > 0)
        .expect("a raised mode");
    let mut falsified = steps.clone();
    falsified[raised].mode = 0;
    let e = replayed(&system, &tables, &falsified, end).unwrap_err();
    assert!(e.contains("the view is in mode 0"), "{e}");
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_real_table_run_replays_decision_for_decision() {
    if let Err(e) = privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
    assert!(online_cpus().len() >= 2, "this test needs two CPUs");
    let (system, tables) = scenarios::mode_change(8, 2, MS);
    let mut config = TableRunConfig::new(8 * tables.hyperperiod);
    config.overrun_probability = 0.3;
    config.seed = 5;
    config.overruns = vec!["mc/t1@2=50ms".parse().unwrap()];
    config.record_steps = true;
    let run = run_tables_detailed(&system, &tables, &config).expect("the run starts");
    assert_eq!(run.result.stopped_by, None, "{:?}", run.result.notes);
    let end = Instant::from_nanos(run.result.duration_ns);
    let n = replayed(&system, &tables, &run.steps, end).unwrap_or_else(|e| panic!("{e}"));
    let [changes, discards, stops, overruns, removals] = kinds(&run.steps);
    eprintln!(
        "replayed {n} decisions of a real table run: {changes} mode changes, {discards} \
         discards, {stops} stops, {overruns} overruns, {removals} forgotten jobs"
    );
    assert!(
        changes > 0 && stops > 0 && removals > 0,
        "{:?}",
        kinds(&run.steps)
    );
}
