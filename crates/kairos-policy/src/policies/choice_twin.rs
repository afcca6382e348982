//! Global EDF's choice against a brute-force twin: every open job sorted by (deadline, release,
//! task, number), the first `m` taken and placed. Below the ready queues' threshold the policy
//! keeps only the best `m` of one pass over the view; from it on, it reads its queues; both
//! must choose what sorting every job chooses, ties and running jobs included. With no more
//! jobs than cores, G-EDF, G-FP and EDZL rank only the jobs that start: their placements must
//! be those of ranking every job by the order's own precedence. Partitioned EDF likewise
//! against, per core, the first of its tasks' jobs in that order.

use super::edf::Edf;
use super::edzl::Edzl;
use super::fixed_priority::{FixedPriority, PriorityOrder};
use super::global::Global;
use super::order::JobOrder;
use super::partitioned::Partitioned;
use super::placement::place_on_cores;
use crate::policy::Policy;
use crate::{JobId, JobView, View};
use kairos_model::{Arrival, CoreId, Duration, Instant, Part, Task, Workload};
use proptest::prelude::*;

/// Open jobs of distinct ids: (deadline, release) in ms from small ranges so that ties are
/// common, and which of the `cores` cores the first few run on.
fn jobs(cores: usize) -> impl Strategy<Value = Vec<JobView>> {
    let job = (0u64..6, 0u64..4, 0u64..3);
    (prop::collection::vec(job, 0..45), Just(cores)).prop_map(|(drawn, cores)| {
        let n = drawn.len();
        (drawn.into_iter().enumerate())
            .map(|(i, (deadline, release, number))| {
                let running_on = (i < cores && i % 2 == 0).then_some(i);
                // Task indices in the reverse of the view's order, so that a choice that fell
                // back on positions would differ from the order's own tie-break.
                let id = JobId {
                    task: n - 1 - i,
                    number,
                };
                let last_core = running_on.or((i % 3 == 0).then_some(i % cores));
                open_job(id, (release, deadline), running_on, last_core)
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn global_edf_chooses_what_sorting_every_job_chooses(
        (cores, jobs) in (1usize..6).prop_flat_map(|m| (Just(m), jobs(m)))
    ) {
        let mut policy = Global::new("gedf", Edf);
        // The second view lists the jobs the other way round, and its decision reuses the
        // first one's vector.
        let reversed: Vec<JobView> = jobs.iter().rev().cloned().collect();
        for jobs in [&jobs, &reversed] {
            let view = view(cores, jobs, &[]);
            let mut sorted: Vec<&JobView> = jobs.iter().collect();
            sorted.sort_by_key(|j| (j.absolute_deadline, j.release, j.id.task, j.id.number));
            let expected = place_on_cores(cores, sorted.into_iter().take(cores));
            let decision = policy.decide(&view);
            prop_assert_eq!(&decision.cores, &expected);
            policy.recycle(decision);
        }
    }

    #[test]
    fn partitioned_edf_chooses_per_core_what_sorting_its_jobs_chooses(
        (cores, jobs) in (1usize..6).prop_flat_map(|m| (Just(m), jobs(m)))
    ) {
        // Task `t` on core `t * 7 mod m`, so that the cores' tasks interleave in the view.
        let core_of = |task: usize| task * 7 % cores;
        let workload = bound_tasks(jobs.len(), cores, core_of);
        let mut policy = Partitioned::new("pedf", Edf);
        policy.prepare(&workload).expect("tasks bound to cores");
        let reversed: Vec<JobView> = jobs.iter().rev().cloned().collect();
        for jobs in [&jobs, &reversed] {
            let view = view(cores, jobs, &workload.tasks);
            let expected: Vec<Option<JobId>> = (0..cores)
                .map(|core| {
                    (jobs.iter().filter(|j| core_of(j.id.task) == core))
                        .min_by_key(|j| (j.absolute_deadline, j.release, j.id.task, j.id.number))
                        .map(|j| j.id)
                })
                .collect();
            let decision = policy.decide(&view);
            prop_assert_eq!(&decision.cores, &expected);
            policy.recycle(decision);
        }
    }

    #[test]
    fn with_no_more_jobs_than_cores_every_global_order_places_as_ranking_them_all(
        (cores, jobs) in (1usize..6).prop_flat_map(|m| (Just(m), placed_jobs(m, m + 1)))
    ) {
        let workload = bound_tasks(jobs.len(), cores, |_| 0);
        every_job_twin("gedf", || Edf, &workload, &jobs)?;
        every_job_twin("edzl", || Edzl, &workload, &jobs)?;
        every_job_twin("gfp", || FixedPriority::new(PriorityOrder::Auto), &workload, &jobs)?;
    }
}

/// Fewer than `most` open jobs of distinct ids, each running on a core of its own or not, and
/// one that does not run with a last core or none, drawn freely: so that jobs that start
/// contend for the same core (their last, or the first free one), where their order decides.
fn placed_jobs(cores: usize, most: usize) -> impl Strategy<Value = Vec<JobView>> {
    let job = (
        0u64..6,
        0u64..4,
        prop::option::of(0..cores),
        prop::option::of(0..cores),
    );
    prop::collection::vec(job, 0..most).prop_map(|drawn| {
        let mut taken = Vec::new();
        (drawn.into_iter().enumerate())
            .map(|(i, (deadline, release, runs, last))| {
                let running_on = runs.filter(|core| !taken.contains(core));
                taken.extend(running_on);
                let id = JobId { task: i, number: 0 };
                open_job(id, (release, deadline), running_on, running_on.or(last))
            })
            .collect()
    })
}

/// Job `id`, released at `release` ms with a relative deadline of `deadline` ms, a 1 ms budget
/// and nothing executed.
fn open_job(
    id: JobId,
    (release, deadline): (u64, u64),
    running_on: Option<usize>,
    last_core: Option<usize>,
) -> JobView {
    JobView {
        id,
        release: Instant::ZERO + Duration::from_millis(release),
        absolute_deadline: Instant::ZERO + Duration::from_millis(release + deadline),
        part: Part::Mandatory,
        budget: Duration::from_millis(1),
        executed: Duration::ZERO,
        running_on,
        last_core,
    }
}

/// What a policy sees at 3 ms of `jobs` on `cores` cores.
fn view<'a>(cores: usize, jobs: &'a [JobView], tasks: &'a [Task]) -> View<'a> {
    View {
        now: Instant::ZERO + Duration::from_millis(3),
        cores,
        mode: 0,
        jobs,
        index: None,
        tasks,
        servers: &[],
    }
}

/// The placement of ranking every job of `view` by `order`'s precedence, then position.
fn ranked_placement<O: JobOrder>(order: &O, view: &View<'_>) -> Vec<Option<JobId>> {
    let mut ranked: Vec<_> = (view.jobs.iter().enumerate())
        .map(|(i, job)| (order.precedence(job, view.now), i))
        .collect();
    ranked.sort_unstable();
    let first = ranked.iter().take(view.cores).map(|&(_, i)| &view.jobs[i]);
    place_on_cores(view.cores, first)
}

/// The global policy of the order `make` builds against [`ranked_placement`], on `jobs` and
/// on them listed the other way round (the second decision reusing the first one's vector).
fn every_job_twin<O: JobOrder + 'static>(
    name: &'static str,
    make: impl Fn() -> O,
    workload: &Workload,
    jobs: &[JobView],
) -> Result<(), TestCaseError> {
    let mut policy = Global::new(name, make());
    policy.prepare(workload).expect("a plain task set");
    let mut order = make();
    order.prepare(workload);
    let reversed: Vec<JobView> = jobs.iter().rev().cloned().collect();
    for jobs in [jobs, &reversed] {
        let view = view(workload.cores, jobs, &workload.tasks);
        let decision = policy.decide(&view);
        prop_assert_eq!(
            &decision.cores,
            &ranked_placement(&order, &view),
            "{}",
            name
        );
        policy.recycle(decision);
    }
    Ok(())
}

/// `n` light tasks, task `t` bound to core `core_of(t)` of `cores`.
fn bound_tasks(n: usize, cores: usize, core_of: impl Fn(usize) -> usize) -> Workload {
    let tasks = (0..n)
        .map(|t| Task {
            name: format!("t{t}"),
            wcet: Duration::from_micros(10),
            bcet: Duration::from_micros(10),
            period: Duration::from_millis(10),
            deadline: Duration::from_millis(10),
            offset: Duration::ZERO,
            arrival: Arrival::Periodic,
            priority: None,
            core: Some(CoreId(core_of(t))),
            imprecise: None,
        })
        .collect();
    Workload {
        name: None,
        cores,
        tasks,
        overheads: Default::default(),
    }
}
