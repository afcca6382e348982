//! The decision path allocates nothing of its own: passes of the scheduler driven in virtual
//! time on one thread (the cores' jobs "execute" between passes by lowering their slots' work
//! left and stamping completions, as workers do), with every allocation of this thread
//! counted and those the policy makes in its own calls (its `Decision`) set apart.

use super::metered::{Timings, PASS_HISTOGRAMS};
use super::scheduler::{Finished, Scheduler};
use super::shared::{decode, Shared};
use crate::watchdog::RunControl;
use kairos_model::{Instant, Part, Workload};
use kairos_os::alloc_count::{allocations, CountingAllocator};
use kairos_policy::table::{TableJobs, TablePlan, TablePolicy};
use kairos_policy::{
    Decision, ExecutionTimeModel, JobId, JobSource, JobView, Policy, PolicyKind, PriorityOrder,
    TimerId, View, WorkloadJobs,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Three tasks on two cores (utilization 1.3): preemptions, migrations, idle gaps.
const WORKLOAD: &str = r#"
name = "lean"
cores = 2
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
[[tasks]]
name = "b"
wcet = "2ms"
period = "5ms"
deadline = "4ms"
[[tasks]]
name = "c"
wcet = "3ms"
period = "10ms"
"#;

const END: u64 = 200_000_000;

/// A policy that counts the allocations made in its own calls into `own`.
struct Counted {
    inner: Box<dyn Policy + Send>,
    own: Arc<AtomicU64>,
}

impl Counted {
    fn call<T>(&mut self, call: impl FnOnce(&mut dyn Policy) -> T) -> T {
        let before = allocations();
        let out = call(self.inner.as_mut());
        (self.own).fetch_add(allocations() - before, Ordering::Relaxed);
        out
    }
}

impl Policy for Counted {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn prepare(&mut self, workload: &Workload) -> Result<(), kairos_policy::Refusal> {
        self.inner.prepare(workload)
    }
    fn job_released(&mut self, now: Instant, job: &JobView) {
        self.call(|p| p.job_released(now, job));
    }
    fn job_completed(&mut self, now: Instant, job: &JobView) {
        self.call(|p| p.job_completed(now, job));
    }
    fn part_completed(&mut self, now: Instant, job: &JobView, ended: Part) {
        self.call(|p| p.part_completed(now, job, ended));
    }
    fn timer_fired(&mut self, now: Instant, timer: TimerId) {
        self.call(|p| p.timer_fired(now, timer));
    }
    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.call(|p| p.decide(view))
    }
    fn recycle(&mut self, decision: Decision) {
        self.call(|p| p.recycle(decision));
    }
}

/// What a run of passes allocated, and made.
struct Count {
    /// Allocations on the dispatcher's side.
    dispatcher: u64,
    /// Allocations the policy made in its own calls.
    policy: u64,
    passes: u64,
    finished: Finished,
}

/// What the passes of a run of `kind` allocated and made, with steps recorded if
/// `record_steps`.
fn passes_of(kind: PolicyKind, record_steps: bool) -> Count {
    let workload = kairos_model::check_source(WORKLOAD, kairos_model::Format::Toml)
        .workload
        .expect("a valid workload");
    let jobs = Box::new(WorkloadJobs::new(1, ExecutionTimeModel::Wcet));
    let run = Passes {
        workload: &workload,
        policy: kind.build(PriorityOrder::Auto),
        jobs,
        end: END,
    };
    run.count(record_steps)
}

/// A run of passes to count: the workload, its policy and where its jobs come from.
struct Passes<'w> {
    workload: &'w Workload,
    policy: Box<dyn Policy + Send>,
    jobs: Box<dyn JobSource + Send>,
    end: u64,
}

impl Passes<'_> {
    /// What the passes allocated, how many were made, and the scheduler's own account of
    /// the run at its end.
    fn count(self, record_steps: bool) -> Count {
        let own = Arc::new(AtomicU64::new(0));
        let mut policy = Box::new(Counted {
            inner: self.policy,
            own: Arc::clone(&own),
        });
        policy.prepare(self.workload).expect("the policy takes it");
        let end = self.end;
        let scheduler = Scheduler::new(self.workload, policy, end, self.jobs, 1.0, record_steps);
        let shared = Shared::new(scheduler, RunControl::new(), end, 0);
        let mut timings = Timings::new(PASS_HISTOGRAMS);
        let mut wake = vec![0; self.workload.cores];
        let mut jobs = vec![0; self.workload.cores];
        let (mut now, mut passes, mut allocated) = (0, 0, 0);
        while now < end {
            words(&shared, &mut jobs);
            let (before, policy_before) = (allocations(), own.load(Ordering::Relaxed));
            {
                let mut s = shared.scheduler.lock().expect("no thread panicked");
                s.pass(&shared, 0, now, &mut timings);
                assert_eq!(s.failure(), None);
                s.wake_times(&mut wake);
            }
            let policy_made = own.load(Ordering::Relaxed) - policy_before;
            allocated += allocations() - before - policy_made;
            passes += 1;
            // Out of the count: real timings beyond the histograms' reserved range (a preempted
            // test thread) would grow them.
            timings.record_deferred();
            assert_started_now(&shared, &jobs, now);
            now = execute_until_next_event(&shared, now, &wake, end);
        }
        let scheduler = shared.scheduler.into_inner().expect("no thread panicked");
        Count {
            dispatcher: allocated,
            policy: own.load(Ordering::Relaxed),
            passes,
            finished: scheduler.finish(),
        }
    }
}

/// Each core's job word, into `out`.
fn words(shared: &Shared, out: &mut [u64]) {
    for (word, core) in out.iter_mut().zip(shared.cores.iter()) {
        *word = core.wanted.load(Ordering::Acquire);
    }
}

/// Every core whose job a pass at `now` changed (its words were `before`) may start it from
/// `now` on: the pass published the job with its start time (passes here run at their
/// events' instants).
fn assert_started_now(shared: &Shared, before: &[u64], now: u64) {
    for (core, c) in shared.cores.iter().enumerate() {
        if c.wanted.load(Ordering::Acquire) != before[core] {
            let from = c.not_before.load(Ordering::Relaxed);
            assert_eq!(
                from, now,
                "core {core}'s new job may start at {from}, the pass was at {now}"
            );
        }
    }
}

/// Runs each core's job from `now` to the next release or completion, whichever is first
/// (stamping the completion as a worker does), and returns that time.
fn execute_until_next_event(shared: &Shared, now: u64, wake: &[u64], end: u64) -> u64 {
    let running: Vec<JobId> = (shared.cores.iter())
        .filter_map(|c| decode(c.wanted.load(Ordering::Acquire)))
        .collect();
    let left = |id: JobId| shared.slot(id).remaining.load(Ordering::Acquire);
    let completion = running.iter().map(|&id| now + left(id)).min();
    let release = wake.iter().copied().min().unwrap_or(end);
    let next = completion.map_or(release, |c| c.min(release)).max(now + 1);
    for &id in &running {
        let slot = shared.slot(id);
        let done = left(id).min(next - now);
        slot.remaining.store(left(id) - done, Ordering::Release);
        if left(id) == 0 {
            slot.completed_at.store(now + done + 1, Ordering::Release);
        }
    }
    next
}

#[test]
fn passes_allocate_nothing_but_the_policys_decisions() {
    for kind in [
        PolicyKind::GlobalEdf,
        PolicyKind::GlobalEdzl,
        PolicyKind::PartitionedEdf,
        PolicyKind::GlobalFp,
    ] {
        let Count {
            dispatcher: allocated,
            passes,
            ..
        } = passes_of(kind, false);
        // At least one per release instant: 50 multiples of 4 ms and 40 of 5 ms in 200 ms,
        // 10 of them shared (multiples of 20 ms); task c's fall on multiples of 5 ms.
        assert!(passes >= 80, "{kind:?}: {passes} passes");
        assert_eq!(
            allocated, 0,
            "{kind:?}: {allocated} allocations in {passes} passes"
        );
    }
}

#[test]
fn recording_steps_allocates_a_copy_of_each_view() {
    let Count {
        dispatcher: allocated,
        passes,
        ..
    } = passes_of(PolicyKind::GlobalEdf, true);
    assert!(
        allocated >= passes,
        "{allocated} allocations in {passes} passes"
    );
}

/// The global and partitioned policies of a static order decide into the vectors the
/// dispatcher gives back: past the first passes, which size them, a decision allocates
/// nothing. (EDZL also arms and cancels its reordering timer, an action in a vector of its own
/// at each change.)
#[test]
fn static_policies_decide_into_their_recycled_vectors() {
    for kind in [
        PolicyKind::GlobalEdf,
        PolicyKind::GlobalFp,
        PolicyKind::PartitionedEdf,
        PolicyKind::PartitionedFp,
    ] {
        let Count { policy, passes, .. } = passes_of(kind, false);
        assert!(passes >= 80, "{kind:?}: {passes} passes");
        assert!(
            policy <= 8,
            "{kind:?}: the policy allocated {policy} times in {passes} passes"
        );
    }
}

/// What the passes of a table run allocated, passes made, and the mode changes it made:
/// eight tasks on two cores, a 1 ms unit, hyper-periods of 7 ms, and with `overrun` the first
/// HI task of core 0 overrunning its LO budget in its second job, which raises the mode.
fn table_passes(overrun: bool) -> (u64, u64, usize) {
    let (system, tables) = crate::table::scenarios::mode_change(8, 2, 1_000_000);
    let plan = Arc::new(TablePlan::new(&system, &tables).expect("the tables resolve"));
    let end = 20 * plan.hyperperiod;
    let mut config = crate::table::TableRunConfig::new(end);
    if overrun {
        config.overruns = vec!["mc/t0@1".parse().expect("an overrun")];
    }
    let demands = crate::table::overrun::demands(&plan, end, &config).expect("demands");
    let workload = plan.workload();
    let run = Passes {
        workload: &workload,
        policy: Box::new(TablePolicy::new(Arc::clone(&plan))),
        jobs: Box::new(TableJobs::new(Arc::clone(&plan), demands)),
        end,
    };
    let Count {
        dispatcher: allocated,
        passes,
        finished,
        ..
    } = run.count(false);
    // Releases of 8 jobs every 7 ms and the ends of their intervals: many more than 20.
    assert!(passes >= 20 * 8, "{passes} passes");
    (allocated, passes, finished.mode_changes.len())
}

#[test]
fn table_passes_allocate_nothing_in_a_mode() {
    let (allocated, passes, changes) = table_passes(false);
    assert_eq!(changes, 0);
    assert_eq!(allocated, 0, "{allocated} allocations in {passes} passes");
}

/// A mode change still allocates on the dispatcher's side: the list of the jobs that
/// triggered it, copied into the run's record, and the trace events of the change (the run
/// reserves room for neither). Bounded here so that a per-pass allocation cannot hide behind
/// them.
#[test]
fn a_table_mode_change_allocates_only_its_own_records() {
    let (allocated, passes, changes) = table_passes(true);
    assert!(
        changes > 0,
        "the overrun raised no mode: the run exercised nothing"
    );
    assert!(
        allocated <= 8 * changes as u64,
        "{allocated} allocations in {passes} passes with {changes} mode change(s)"
    );
}
