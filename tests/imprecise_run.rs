//! Imprecise tasks run by parts on real cores: a generated set (Chishiro and Yamasaki's
//! generator) under G-RMWP, P-RMWP and their baselines G-RM and P-RM through the user-space
//! dispatcher, each run checked against the simulation of the same set and replayed against a
//! fresh policy. Behaviour, never a latency bound: the simulation is given the run's measured
//! overheads (as `kairos run --compare` does), and the share of jobs whose parts ended as
//! simulated is printed and checked against a floor of 87 %: 92 to 93 % on this shared 2-vCPU
//! machine on a noisy evening (95 to 97 % when quiet with an earlier set of shorter periods),
//! 88.4 to 89.5 % in three G-RMWP runs of one CI job on a host that stole 20 to 70 ms of each
//! CPU and slowed its jobs by 20 to 48 ms in 5 s; the rest are optional parts cut a little
//! short at their optional deadline by interference the simulation does not see, so asserting
//! 95 % would assert the machine's noise. Without the overheads the simulation stays ahead of
//! the run and about 80 % agree: the floor tells the two apart. A run below the floor is made
//! again only when the host's lost time explains it (the run's stalls and steal, printed).
//! Needs real-time privilege: ignored by a plain `cargo test`, run by the README's command and
//! CI (as root).

mod common;

use kairos_analysis::partition::Heuristic;
use kairos_analysis::rmwp::plan::{plan, Placement};
use kairos_gen::imprecise::{generate_imprecise, ImpreciseConfig};
use kairos_gen::seeded;
use kairos_model::{Instant, Part, Workload};
use kairos_os::{online_cpus, privilege};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::dispatcher::{measured_overheads, run_user, UserRunConfig};
use kairos_rt::dispatcher::{END_MANDATORY, PART_POLICY};
use kairos_rt::measure::RunResult;
use kairos_sim::{replay, simulate, SimConfig};
use kairos_trace::{PartOutcome, Trace, TraceEvent};
use std::collections::BTreeMap;

/// A set of the paper's shape with periods from 5 ms (the guarantees study's range), not the
/// paper's 1 ms. With 1 and 2 ms tasks one core carried 2,650 jobs a second, three parts each,
/// and the dispatcher's costs there (release latency p50 200 us) filled it: three quarters of
/// the jobs missed, and a host slowed for a few milliseconds tipped the core into an overload
/// it never worked off (the dispatcher stops such a run), so the run compared nothing. From
/// 5 ms, 5,850 jobs in 5 s, about a third of them missing (a wind-up starts at its optional
/// deadline, and the ideal analysis leaves no room there for the dispatcher's costs), and no
/// overload; 92 to 93 % agreed with the simulation in three runs.
fn generated() -> Workload {
    let config = ImpreciseConfig {
        periods_ms: (5, 50),
        ..ImpreciseConfig::new(1.0)
    };
    let tasks = generate_imprecise(&mut seeded(3), &config).expect("set");
    kairos_gen::make_workload(Some("imprecise".into()), 2, tasks)
}

/// The workload as `kind` runs it: optional deadlines, and cores for the partitioned ones.
fn planned(kind: PolicyKind, w: &Workload) -> Workload {
    let placement = match kind {
        PolicyKind::GlobalRmwp => Placement::Global,
        PolicyKind::PartitionedRmwp | PolicyKind::PartitionedRm => {
            Placement::Partitioned(Heuristic::CyclicNextFit)
        }
        _ => return w.clone(),
    };
    plan(w, placement).expect("a plan").workload
}

type Parts = BTreeMap<(usize, u64), Vec<(Part, PartOutcome)>>;

fn parts(trace: &Trace) -> Parts {
    let mut out = Parts::new();
    for e in &trace.events {
        if let TraceEvent::PartEnd {
            task,
            job,
            part,
            outcome,
            ..
        } = *e
        {
            out.entry((task, job)).or_default().push((part, outcome));
        }
    }
    out
}

/// Every cut happens at its job's optional deadline, every skip at or after it.
fn assert_cuts_at_optional_deadlines(w: &Workload, trace: &Trace) -> usize {
    let releases: BTreeMap<(usize, u64), _> = (trace.events.iter())
        .filter_map(|e| match *e {
            TraceEvent::Release { task, job, at, .. } => Some(((task, job), at)),
            _ => None,
        })
        .collect();
    let mut cuts = 0;
    for e in &trace.events {
        let TraceEvent::PartEnd {
            task,
            job,
            at,
            outcome,
            ..
        } = *e
        else {
            continue;
        };
        let od = w.tasks[task].imprecise.unwrap().optional_deadline.unwrap();
        let deadline = releases[&(task, job)] + od;
        match outcome {
            PartOutcome::Cut => {
                cuts += 1;
                assert_eq!(at, deadline, "{}#{job} cut off its OD", w.tasks[task].name);
            }
            PartOutcome::Skipped => assert!(at >= deadline),
            PartOutcome::Completed => {}
        }
    }
    cuts
}

/// Runs of a policy at most: another only when the host's lost time explains what went wrong
/// with the last (printed). A host that disturbs every run leaves nothing to judge: a failure.
const ATTEMPTS: usize = 3;

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn imprecise_sets_run_by_parts_on_real_cores_as_simulated() {
    privilege::require_rt().expect("real-time privilege (root or CAP_SYS_NICE)");
    assert!(online_cpus().len() >= 2, "this test needs 2 online CPUs");
    let w = generated();
    let kinds = [
        PolicyKind::GlobalRmwp,
        PolicyKind::PartitionedRmwp,
        PolicyKind::GlobalRm,
        PolicyKind::PartitionedRm,
    ];
    for kind in kinds {
        for attempt in 1..=ATTEMPTS {
            match run_and_compare(&w, kind) {
                Ok(()) => break,
                Err(host) if attempt < ATTEMPTS => {
                    common::tell_rerun(&format!("{}: {host}; running again", kind.cli_name()));
                }
                Err(host) => panic!("{}: the host disturbed every run: {host}", kind.cli_name()),
            }
        }
    }
}

/// Agreement with the simulation is 92-97 % on this machine and 88-90 % on a CI host that stole
/// in every run (module documentation), about 80 % without the run's overheads: below this, a
/// run is checked for the host.
const AGREEMENT: f64 = 0.87;

/// Runs `w` under `kind` for real and checks the run, its replay and its cuts, and for
/// policies that run jobs by parts that at least [`AGREEMENT`] of the jobs ended their parts as
/// the simulation did. `Err` (with the evidence) when a run went wrong and the host took time
/// from its cores: a run the dispatcher stopped as overloaded (a stall of tens of milliseconds
/// piles up the jobs of a 5 ms task) with misses the attribution gives the host, or an
/// agreement below the floor that the jobs under the run's stalls make up; either also when the
/// hypervisor reported steal time on the run's CPUs (time it took in pieces the watchers may not
/// see). Any other failure panics.
fn run_and_compare(w: &Workload, kind: PolicyKind) -> Result<(), String> {
    let name = kind.cli_name();
    let w = planned(kind, w);
    let mut config = UserRunConfig::new(5_000_000_000);
    config.record_steps = true;
    let real = run_user(&w, kind.build(PriorityOrder::Auto), &config).expect("run starts");
    let stopped = real.result.stopped_by.as_deref();
    if stopped.is_some_and(|s| s.contains("overloaded")) {
        let lost = kairos_lab::run::lost_time(&real.result);
        assert!(
            real.result.misses_by_cause.host > 0 || stole(&real.result),
            "{name}: the run stopped ({stopped:?}) and no stall of the host explains it: {lost}"
        );
        return Err(format!("the run stopped ({stopped:?}): {lost}"));
    }
    assert_eq!(
        real.result.stopped_by, None,
        "{name}: {:?}",
        real.result.notes
    );
    // Every job released ran to its end but each task's last ones, cut off by the run's end
    // (a late job and the next one may both be pending then).
    let (released, completed) = (real.result.jobs_released, real.result.jobs_completed);
    assert!(released > 2_000, "{name}: {released} jobs released");
    assert!(
        completed + 2 * w.tasks.len() as u64 >= released,
        "{name}: {completed} of {released} jobs completed"
    );
    // The run's own overheads, as `kairos run --compare` simulates it: without them the
    // simulation's cores never idle between a part's end and the next start, stay ahead of
    // the run, and complete optional parts the run cuts (about 20 % of the jobs).
    let sim_config = SimConfig {
        duration: kairos_model::Duration::from_nanos(real.result.ran_ns),
        record_trace: true,
        overheads: measured_overheads(&real.result),
        ..SimConfig::default()
    };
    let sim = simulate(&w, kind.build(PriorityOrder::Auto).as_mut(), &sim_config)
        .expect("simulates")
        .trace
        .expect("a trace");
    let (real_parts, sim_parts) = (parts(&real.result.trace), parts(&sim));
    let by_parts = kind.build(PriorityOrder::Auto).runs_parts();
    assert_eq!(!real_parts.is_empty(), by_parts, "{name}: part ends");
    let mut fresh = kind.build(PriorityOrder::Auto);
    replay(
        &w,
        fresh.as_mut(),
        &real.steps,
        kairos_model::Instant::from_nanos(real.result.duration_ns),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    if !by_parts {
        assert!(real.result.optional.is_none());
        return Ok(());
    }
    let cuts = assert_cuts_at_optional_deadlines(&w, &real.result.trace);
    assert!(
        cuts > 100,
        "{name}: only {cuts} cuts: the set exercises nothing"
    );
    let o = real.result.optional.expect("optional figures");
    assert_eq!(o.optional_cut as usize, cuts);
    let same = (real_parts.iter())
        .filter(|(id, p)| sim_parts.get(id) == Some(p))
        .count();
    let share = same as f64 / real_parts.len() as f64;
    let misses = &real.result.misses_by_cause;
    println!(
        "{name}: {:.1} % of the jobs ended their parts as simulated; {} of {} jobs missed \
         ({} host, {} schedule)",
        100.0 * share,
        misses.host + misses.schedule,
        real.result.jobs_released,
        misses.host,
        misses.schedule
    );
    for histogram in [END_MANDATORY, PART_POLICY] {
        assert!(
            real.result.histograms[histogram].summary.count > 1000,
            "{name}"
        );
    }
    if share >= AGREEMENT {
        return Ok(());
    }
    // The jobs that ended otherwise with a stall of the host over their window.
    let r = &real.result;
    let stalled = (real_parts.iter())
        .filter(|(id, p)| sim_parts.get(id) != Some(p))
        .filter(|(&(task, job), _)| {
            let j = r.jobs.iter().find(|j| (j.task, j.job) == (task, job));
            j.is_some_and(|j| {
                let (from, to) = (
                    Instant::from_nanos(j.release),
                    Instant::from_nanos(j.deadline),
                );
                r.stall_intervals.iter().any(|s| s.overlaps(from, to))
            })
        })
        .count();
    let explained = (same + stalled) as f64 / real_parts.len() as f64;
    let evidence = format!(
        "{:.1} % agree, {:.1} % with the {stalled} jobs that ended otherwise under a stall of the host; {}",
        100.0 * share,
        100.0 * explained,
        kairos_lab::run::lost_time(r)
    );
    assert!(explained >= AGREEMENT || stole(r), "{name}: {evidence}");
    Err(evidence)
}

/// Whether the hypervisor reported steal time on a CPU of the run.
fn stole(result: &RunResult) -> bool {
    (result.stalls.iter()).any(|c| c.steal.is_some_and(|s| !s.is_zero()))
}
