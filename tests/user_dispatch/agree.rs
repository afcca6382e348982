//! A real run checked against the simulation of the same length: every job the simulation
//! completes (up to a slack before the end) completes for real. A run that falls behind is run
//! again only when the host explains it, and the evidence is printed.

use crate::common::tell_rerun;
use kairos_lab::run::lost_time;
use kairos_model::{Duration, Instant, Workload};
use kairos_policy::Policy;
use kairos_rt::attribution::{Cause, MissCause};
use kairos_rt::dispatcher::{run_user, UserRun, UserRunConfig};
use kairos_rt::measure::RunResult;
use kairos_sim::{simulate, SimConfig};
use kairos_trace::{Trace, TraceEvent};
use std::collections::BTreeMap;

/// A job the real run must complete if the simulation completes it this long before the end
/// (the real run lags the simulation by its dispatch latencies).
const END_SLACK: u64 = 20_000_000;

/// Runs of a policy at most: another only when the host's lost time explains what went wrong
/// with the last (printed). A host that disturbs every run leaves nothing to judge: a failure.
const ATTEMPTS: usize = 3;

/// Builds a fresh policy object: one for each real run and one for each simulation.
pub type Build<'a> = &'a dyn Fn() -> Box<dyn Policy + Send>;

/// Runs `w` for real as `config` asks (steps recorded), and simulates the length it ran with
/// the same execution-time draws, until the real run completes every job the simulation
/// completes. A run that does not, or that the dispatcher stopped as overloaded, is judged by
/// the miss attribution given the simulation's slack: when the host explains it
/// ([`host_explains`]) the evidence is printed and it runs again, at most [`ATTEMPTS`] times;
/// otherwise, or when every attempt was disturbed, the test fails with the missing job and the
/// run's lost time.
pub fn agreeing_run(w: &Workload, build: Build<'_>, config: &UserRunConfig) -> (UserRun, Trace) {
    let config = UserRunConfig {
        record_steps: true,
        ..config.clone()
    };
    for attempt in 1..=ATTEMPTS {
        let mut real = run_user(w, build(), &config).expect("the run starts");
        let name = real.result.policy.clone();
        let sim = simulated(w, build().as_mut(), &config, real.result.ran_ns);
        let (job, missing) = match real.result.stopped_by.as_deref() {
            // A stall of tens of milliseconds piles up the jobs of a millisecond task.
            Some(why) if why.contains("overloaded") => (None, format!("the run stopped: {why}")),
            Some(why) => panic!("{name}: the run stopped: {why}; {:?}", real.result.notes),
            None => match first_missing(w, &real, &sim) {
                Some((job, missing)) => (Some(job), missing),
                None => return (real, sim),
            },
        };
        (real.result).attribute_misses(Some(kairos_rt::attribution::Twin::new(&sim)));
        let own = (real.result.miss_causes.iter()).find(|c| Some((c.task, c.job)) == job);
        let evidence = format!("its miss: {own:?}\n{}", lost_time(&real.result));
        assert!(
            host_explains(&real.result, own),
            "{name}: {missing}, and no stall or steal of the host explains it:\n{evidence}"
        );
        assert!(
            attempt < ATTEMPTS,
            "{name}: the host disturbed every run: {missing}\n{evidence}"
        );
        tell_rerun(&format!(
            "{name}, attempt {attempt}: {missing}; the host explains it:\n{evidence}running again"
        ));
    }
    unreachable!("the last attempt returns or fails")
}

/// Whether the host explains a run's lag: the hypervisor took time from its CPUs (in pieces
/// the watchers may not see), or the attribution (slack from the simulation) gives the host
/// the miss of the job the run did not complete. A job whose deadline the run did not reach,
/// or a run stopped as overloaded, has no miss of its own: any host miss of the run explains
/// it, since the run fell behind.
fn host_explains(result: &RunResult, own: Option<&MissCause>) -> bool {
    let stole = (result.stalls.iter()).any(|c| c.steal.is_some_and(|s| !s.is_zero()));
    stole
        || match own {
            Some(miss) => miss.cause == Cause::Host,
            None => result.misses_by_cause.host > 0,
        }
}

/// The first job (by its simulated completion) the simulation completes before the end slack
/// that the real run does not, with its description; `None` when there is none. Fails when the
/// simulation completes too few jobs for the comparison to mean anything.
fn first_missing(w: &Workload, real: &UserRun, sim: &Trace) -> Option<((usize, u64), String)> {
    let end = real.result.ran_ns.saturating_sub(END_SLACK);
    let real_done = completions(&real.result.trace);
    let mut due: Vec<_> = (completions(sim).into_iter())
        .filter(|(_, at)| at.as_nanos() <= end)
        .collect();
    // The earliest the simulation completes: where the run first fell behind.
    due.sort_by_key(|&(key, at)| (at, key));
    assert!(
        due.len() > 100,
        "the simulation completes {} jobs",
        due.len()
    );
    let (task, job) = due
        .into_iter()
        .map(|(key, _)| key)
        .find(|key| !real_done.contains_key(key))?;
    let record = (real.result.jobs.iter()).find(|r| (r.task, r.job) == (task, job));
    let text = format!(
        "{}#{job} completed in the simulation, not for real (ran {} ns): {record:?}; {} misses",
        w.tasks[task].name, real.result.ran_ns, real.result.deadline_misses
    );
    Some(((task, job), text))
}

/// Each completed job's completion time.
pub fn completions(trace: &Trace) -> BTreeMap<(usize, u64), Instant> {
    (trace.events.iter())
        .filter_map(|e| match *e {
            TraceEvent::Completion { task, job, at } => Some(((task, job), at)),
            _ => None,
        })
        .collect()
}

/// The simulation of a real run: its length, its execution-time draws, no overheads.
fn simulated(w: &Workload, policy: &mut dyn Policy, real: &UserRunConfig, ran_ns: u64) -> Trace {
    let config = SimConfig {
        duration: Duration::from_nanos(ran_ns),
        record_trace: true,
        execution_times: real.execution_times,
        seed: real.seed,
        ..SimConfig::default()
    };
    simulate(w, policy, &config)
        .expect("simulates")
        .trace
        .expect("trace")
}
