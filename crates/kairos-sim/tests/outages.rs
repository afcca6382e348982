//! Core outages against their brute-force twin: under partitioned fixed priorities, a core
//! that is out over `[a, b)` is the same, for every other job, as a job of a task above all
//! others on that core released at `a` with `b - a` of work. The engine does the first by
//! standing still ([`kairos_sim::outages`]); the second is the ordinary policy with one more
//! task per outage. Without overheads both complete every job of the workload at the same
//! instant and miss the same deadlines.

#[path = "common/mod.rs"]
mod common;

use common::*;
use kairos_model::{CoreId, Instant, Priority, Task, Workload};
use kairos_policy::PolicyKind;
use kairos_sim::outages::{Outage, Outages};
use kairos_sim::SimConfig;
use proptest::prelude::*;
use std::collections::BTreeMap;

const PERIODS: [u64; 6] = [4, 5, 6, 10, 12, 20];

/// A task on `core` with explicit priority `level`, D = T, offset 0..=5 units.
fn arb_task(cores: usize) -> impl Strategy<Value = TaskSpec> {
    (prop::sample::select(PERIODS.to_vec()), 0u64..=5, 0..cores).prop_flat_map(
        |(period, offset, core)| (1..=period).prop_map(move |wcet| (wcet, period, offset, core)),
    )
}

/// Up to four outages per case, each `[from, from + len)` on a core, disjoint per core.
fn arb_outages(cores: usize) -> impl Strategy<Value = Vec<OutageSpec>> {
    prop::collection::vec((0..cores, 0u64..100, 1u64..15), 1..=4).prop_map(|mut v| {
        // Disjoint and apart per core, so each is one job of its own in the brute-force twin.
        v.sort_by_key(|&(core, from, _)| (core, from));
        let mut last_end: BTreeMap<usize, u64> = BTreeMap::new();
        v.retain(|&(core, from, len)| {
            let ok = last_end.get(&core).is_none_or(|&end| from > end);
            if ok {
                last_end.insert(core, from + len);
            }
            ok
        });
        v
    })
}

/// The tasks, each on its core, at priority levels from `first_level` in order.
fn partitioned(tasks: &[TaskSpec], first_level: u32) -> Vec<Task> {
    (tasks.iter().enumerate())
        .map(|(i, &(wcet, period, offset, core))| {
            let mut t = task(&format!("t{i}"), wcet, period, period, offset);
            t.priority = Some(Priority::from_level(first_level + i as u32));
            t.core = Some(CoreId(core));
            t
        })
        .collect()
}

/// Each outage as a task above every other, one job at the outage's start for its length.
fn outage_tasks(outages: &[OutageSpec], horizon: u64) -> Vec<Task> {
    (outages.iter().enumerate())
        .map(|(k, &(core, from, len))| {
            let mut t = task(&format!("out{k}"), len, 10 * horizon, 10 * horizon, from);
            t.priority = Some(Priority::from_level(1 + k as u32));
            t.core = Some(CoreId(core));
            t
        })
        .collect()
}

/// Completion (or none) and miss of every job of the first `tasks` tasks.
fn outcomes(
    w: &Workload,
    config: &SimConfig,
    tasks: usize,
) -> BTreeMap<JobId, (Option<Instant>, usize)> {
    let (_, trace) = run_traced(w, PolicyKind::PartitionedFp, config);
    (jobs_of(&trace).into_iter())
        .filter(|((task, _), _)| *task < tasks)
        .map(|(id, r)| (id, (r.completion, r.misses)))
        .collect()
}

/// A task: wcet, period, offset (units) and core.
type TaskSpec = (u64, u64, u64, usize);
/// An outage: core, start and length (units).
type OutageSpec = (usize, u64, u64);

/// A case: the cores, the tasks (each on one of them) and the outages.
fn arb_case() -> impl Strategy<Value = (usize, Vec<TaskSpec>, Vec<OutageSpec>)> {
    (1usize..=2).prop_flat_map(|cores| {
        (
            Just(cores),
            prop::collection::vec(arb_task(cores), 1..=4),
            arb_outages(cores),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn an_outage_is_a_top_priority_job_on_its_core((cores, tasks, outages) in arb_case()) {
        let horizon = 120;
        let duration = units(horizon);
        let n = tasks.len();
        let stalled = workload(cores, partitioned(&tasks, outages.len() as u32 + 1));
        let mut twin_tasks = stalled.tasks.clone();
        twin_tasks.extend(outage_tasks(&outages, horizon));
        let twin = workload(cores, twin_tasks);

        let plain = SimConfig { duration, ..SimConfig::default() };
        let with_outages = SimConfig {
            outages: Outages::new(outages.iter().map(|&(core, from, len)| Outage {
                core,
                from: at_units(from),
                to: at_units(from + len),
            })),
            ..plain.clone()
        };
        prop_assert_eq!(with_outages.outages.len(), outages.len());
        let frozen = outcomes(&stalled, &with_outages, n);
        let brute = outcomes(&twin, &plain, n);
        prop_assert_eq!(frozen, brute);
    }
}

/// A job frozen by an outage completes that much later, a job on the other core not at all,
/// and an outage of an idle core changes nothing; under global EDF, where the brute-force twin
/// does not apply (a job of its own could run elsewhere).
#[test]
fn a_frozen_job_completes_later_by_the_outage_and_others_do_not_move() {
    let w = workload(2, vec![task("a", 4, 10, 10, 0), task("b", 6, 10, 10, 0)]);
    let config = SimConfig {
        duration: units(10),
        ..SimConfig::default()
    };
    let completions = |outages: Vec<Outage>| {
        let config = SimConfig {
            outages: Outages::new(outages),
            ..config.clone()
        };
        let (_, trace) = run_traced(&w, PolicyKind::GlobalEdf, &config);
        let jobs = jobs_of(&trace);
        let core_of_a = jobs[&(0, 0)].segments[0].core;
        (
            core_of_a,
            jobs[&(0, 0)].completion,
            jobs[&(1, 0)].completion,
        )
    };
    let (core_a, a, b) = completions(vec![]);
    assert_eq!((a, b), (Some(at_units(4)), Some(at_units(6))));
    let out = |core, from, to| Outage {
        core,
        from: at_units(from),
        to: at_units(to),
    };
    let (_, a2, b2) = completions(vec![out(core_a, 1, 3)]);
    assert_eq!((a2, b2), (Some(at_units(6)), Some(at_units(6))));
    // Core a's is idle from 4 to 10: an outage there moves nothing.
    assert_eq!(completions(vec![out(core_a, 5, 9)]), (core_a, a, b));
    // A job placed on a core in an outage starts when it ends.
    let (_, a3, _) = completions(vec![out(core_a, 0, 2)]);
    assert_eq!(a3, Some(at_units(6)));
}

/// A switch's overhead stands still in an outage as the work does: with 1 unit of scheduling
/// and 1 of context switch, a job of 4 units alone on its core completes at 6; with the core
/// out over [1, 3), the overhead is paid over [0, 1) and [3, 4) and it completes at 8.
#[test]
fn a_switchs_overhead_stands_still_while_its_core_is_out() {
    let w = workload(1, vec![task("a", 4, 20, 20, 0)]);
    let config = |outages: Vec<Outage>| SimConfig {
        duration: units(20),
        overheads: kairos_model::Overheads::fixed(units(1), units(1), units(0)),
        outages: Outages::new(outages),
        ..SimConfig::default()
    };
    let completion = |config: &SimConfig| {
        let (outcome, trace) = run_traced(&w, PolicyKind::PartitionedFp, config);
        let usage = &outcome.metrics.core_usage[0];
        (jobs_of(&trace)[&(0, 0)].completion, usage.overhead_ns)
    };
    let paid = units(2).as_nanos();
    assert_eq!(completion(&config(vec![])), (Some(at_units(6)), paid));
    let out = Outage {
        core: 0,
        from: at_units(1),
        to: at_units(3),
    };
    assert_eq!(completion(&config(vec![out])), (Some(at_units(8)), paid));
}

/// A job moved off a core in an outage waits for the outage's end wherever it goes, as a real
/// run's job waits for the held CPU's worker to hand it over. Under global EDF on 2 cores: `j`
/// (4 units, deadline 40) starts alone at 0 on the first core, which is out over [2, 7); `k`
/// (3 units, deadline 11) arrives at 1 on the other; `l` (2 units, deadline 27) arrives at 3
/// and takes `j`'s core; `k` completes at 4 and `j` moves to its core, where it completes at
/// 7 + 2 = 9, not at 4 + 2 = 6 as if its state were free to go.
#[test]
fn a_job_moved_off_a_core_in_an_outage_waits_for_its_end() {
    let w = workload(
        2,
        vec![
            task("j", 4, 40, 40, 0),
            task("k", 3, 40, 10, 1),
            task("l", 2, 40, 24, 3),
        ],
    );
    let run = |outages: Outages| {
        let config = SimConfig {
            duration: units(20),
            outages,
            ..SimConfig::default()
        };
        let (_, trace) = run_traced(&w, PolicyKind::GlobalEdf, &config);
        let jobs = jobs_of(&trace);
        let cores: Vec<usize> = jobs[&(0, 0)].segments.iter().map(|s| s.core).collect();
        let done = |task| jobs[&(task, 0)].completion.expect("completes");
        (cores, [done(0), done(1), done(2)])
    };
    let (cores, calm) = run(Outages::default());
    assert_eq!(cores.len(), 2, "j is preempted by l and moves: {cores:?}");
    assert_ne!(cores[0], cores[1], "{cores:?}");
    assert_eq!(calm, [5, 4, 5].map(at_units));
    let out = Outage {
        core: cores[0],
        from: at_units(2),
        to: at_units(7),
    };
    let (moved, stalled) = run(Outages::new([out]));
    assert_eq!(moved, cores);
    assert_eq!(stalled, [9, 4, 9].map(at_units));
    // An outage that took no job (a worker's late start) holds nothing: j runs on at 4.
    let (_, free) = run(Outages::taking_and_not([], [out]));
    assert_eq!(free, [6, 4, 9].map(at_units));
    // Nor does one under which j was placed: from 0, it never ran there, and runs 4 to 8.
    let from_the_start = Outage {
        from: at_units(0),
        ..out
    };
    let (_, placed_in_it) = run(Outages::new([from_the_start]));
    assert_eq!(placed_in_it, [8, 4, 9].map(at_units));
}

/// While the timer core is out, a policy timer that falls due waits for the next instant or
/// the outage's end. Under G-RMWP on 2 cores, `a` (mandatory 1, optional 4, wind-up 1, period
/// 10, optional deadline 7) runs its optional part to 5 and winds up at its optional deadline,
/// 7, completing at 8. An outage of the other core over [6, 10) changes nothing; named the
/// timer core, it holds the optional-deadline timer until 10, and the job misses its deadline.
/// With a release at 8 (`b`, on that core), the pass of that instant handles the timer: the
/// wind-up runs from 8, and the job completes at 9.
#[test]
fn an_outage_of_the_timer_core_holds_the_policys_timers() {
    let a = "cores = 2\n[[tasks]]\nname = \"a\"\nperiod = \"10us\"\nmandatory = \"1us\"\n\
             optional = \"4us\"\nwindup = \"1us\"\noptional_deadline = \"7us\"\n";
    let b = "[[tasks]]\nname = \"b\"\nwcet = \"1us\"\nperiod = \"10us\"\noffset = \"8us\"\n";
    let checked = |source: &str| {
        let checked = kairos_model::check_source(source, kairos_model::Format::Toml);
        checked.workload.expect("a valid imprecise workload")
    };
    let (w, with_b) = (checked(a), checked(&format!("{a}{b}")));
    let run = |w: &Workload, outages: Outages| {
        let config = SimConfig {
            duration: units(10),
            outages,
            ..SimConfig::default()
        };
        let (_, trace) = run_traced(w, PolicyKind::GlobalRmwp, &config);
        let job = &jobs_of(&trace)[&(0, 0)];
        let core = job.segments.last().expect("it ran").core;
        (core, job.completion, job.misses)
    };
    let (core, calm, _) = run(&w, Outages::default());
    assert_eq!(calm, Some(at_units(8)));
    let other = 1 - core;
    let out = || {
        Outages::new([Outage {
            core: other,
            from: at_units(6),
            to: at_units(10),
        }])
    };
    assert_eq!(run(&w, out()), (core, calm, 0));
    let (_, held, misses) = run(&w, out().with_timer_core(other));
    assert_eq!((held, misses), (None, 1), "the wind-up waits until 10");
    let (_, by_b, misses) = run(&with_b, out().with_timer_core(other));
    assert_eq!(
        (by_b, misses),
        (Some(at_units(9)), 0),
        "b's release at 8 fires it"
    );
}
