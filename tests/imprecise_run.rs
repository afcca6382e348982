//! Imprecise tasks run by parts on real cores: a generated set (Chishiro and Yamasaki's
//! generator) under G-RMWP, P-RMWP and their baselines G-RM and P-RM through the user-space
//! dispatcher, each run checked against the simulation of the same set and replayed against a
//! fresh policy. Behaviour, never a latency bound: the simulation is given the run's measured
//! overheads (as `kairos run --compare` does), and the share of jobs whose parts ended as
//! simulated is printed and checked against a floor of 90 %: 95 to 97 % on this
//! shared 2-vCPU machine, the rest being optional parts cut a little short at their optional
//! deadline by interference the simulation does not see, so asserting 95 % would assert the
//! machine's noise; without the overheads the simulation stays ahead of the run and about 80 %
//! agree. Needs real-time privilege: ignored by a plain `cargo test`, run by the README's
//! command and CI (as root).

use kairos_analysis::partition::Heuristic;
use kairos_analysis::rmwp::plan::{plan, Placement};
use kairos_gen::imprecise::{generate_imprecise, ImpreciseConfig};
use kairos_gen::seeded;
use kairos_model::{Part, Workload};
use kairos_os::{online_cpus, privilege};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::dispatcher::{measured_overheads, run_user, UserRunConfig};
use kairos_rt::dispatcher::{END_MANDATORY, PART_POLICY};
use kairos_sim::{replay, simulate, SimConfig};
use kairos_trace::{PartOutcome, Trace, TraceEvent};
use std::collections::BTreeMap;

fn generated() -> Workload {
    let tasks = generate_imprecise(&mut seeded(3), &ImpreciseConfig::new(1.0)).expect("set");
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
        // Agreement with the simulation is 92-95 % here; a host that slows the VM during the
        // run moves part ends (87.9 % in one CI run): once is the host, twice is kairos.
        let share = match run_and_compare(&w, kind) {
            Some(share) if share < 0.9 => {
                println!("{}: {:.1} %; running again", kind.cli_name(), 100.0 * share);
                run_and_compare(&w, kind)
            }
            other => other,
        };
        if let Some(share) = share {
            assert!(share >= 0.9, "{}: {:.1} %", kind.cli_name(), 100.0 * share);
        }
    }
}

/// Runs `w` under `kind` for real, checks the run, its replay and its cuts, and returns the
/// share of jobs that ended their parts as the simulation did (None for policies that do not
/// run jobs by parts).
fn run_and_compare(w: &Workload, kind: PolicyKind) -> Option<f64> {
    let name = kind.cli_name();
    let w = planned(kind, w);
    let mut config = UserRunConfig::new(5_000_000_000);
    config.record_steps = true;
    let mut real = run_user(&w, kind.build(PriorityOrder::Auto), &config).expect("run starts");
    // The machines are shared VMs: a host stall of tens of milliseconds piles up the jobs
    // of a millisecond task and the dispatcher stops the run as overloaded. Once is the
    // host; twice is kairos.
    if real
        .result
        .stopped_by
        .as_deref()
        .is_some_and(|s| s.contains("overloaded"))
    {
        println!(
            "{name}: the first run stopped ({:?}); running again",
            real.result.stopped_by
        );
        real = run_user(&w, kind.build(PriorityOrder::Auto), &config).expect("run starts");
    }
    assert_eq!(
        real.result.stopped_by, None,
        "{name}: {:?}",
        real.result.notes
    );
    assert!(real.result.jobs_completed > 10_000, "{name}");
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
        return None;
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
    println!(
        "{name}: {:.1} % of the jobs ended their parts as simulated",
        100.0 * share
    );
    for histogram in [END_MANDATORY, PART_POLICY] {
        assert!(
            real.result.histograms[histogram].summary.count > 1000,
            "{name}"
        );
    }
    Some(share)
}
