//! Helpers shared by the integration tests: building workloads from small integers, running the
//! engine, and reading a recorded trace back as per-job records.
//!
//! Every test binary includes this module but uses only part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;

use kairos_model::{Arrival, Duration, Instant, Part, Task, Workload};
use kairos_policy::PolicyKind;
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, SimConfig, SimOutcome};
use kairos_trace::{PartOutcome, Trace, TraceEvent};

/// One time unit of the integer task parameters used by the tests (1 us), so hyper-periods stay
/// small while the engine still works in nanoseconds.
pub const UNIT_NS: u64 = 1_000;

/// `n` time units.
pub fn units(n: u64) -> Duration {
    Duration::from_nanos(n * UNIT_NS)
}

/// The instant `n` time units after 0.
pub fn at_units(n: u64) -> Instant {
    Instant::from_nanos(n * UNIT_NS)
}

/// A periodic task with every parameter in time units; bcet = wcet, no priority, no core.
pub fn task(name: &str, wcet: u64, period: u64, deadline: u64, offset: u64) -> Task {
    Task {
        name: name.to_string(),
        wcet: units(wcet),
        bcet: units(wcet),
        period: units(period),
        deadline: units(deadline),
        offset: units(offset),
        arrival: Arrival::Periodic,
        priority: None,
        core: None,
        imprecise: None,
    }
}

/// A workload on `cores` cores without overheads in the file.
pub fn workload(cores: usize, tasks: Vec<Task>) -> Workload {
    Workload {
        name: None,
        cores,
        tasks,
        overheads: Default::default(),
    }
}

/// Runs `workload` under `kind` (priorities: Auto, i.e. rate-monotonic without explicit ones).
pub fn run(workload: &Workload, kind: PolicyKind, config: &SimConfig) -> SimOutcome {
    let mut policy = kind.build(PriorityOrder::Auto);
    simulate(workload, policy.as_mut(), config)
        .unwrap_or_else(|e| panic!("{} failed on {workload:?}: {e}", kind.cli_name()))
}

/// Runs with a recorded trace and returns it with the outcome.
pub fn run_traced(
    workload: &Workload,
    kind: PolicyKind,
    config: &SimConfig,
) -> (SimOutcome, Trace) {
    let config = SimConfig {
        record_trace: true,
        ..config.clone()
    };
    let mut outcome = run(workload, kind, &config);
    let trace = outcome.trace.take().expect("record_trace was set");
    (outcome, trace)
}

/// The hyper-period in nanoseconds.
pub fn hyperperiod(workload: &Workload) -> Duration {
    workload.hyperperiod().expect("small test periods")
}

/// `max_offset + 2H`: a periodic schedule has reached its cycle by then.
pub fn two_hyperperiods_after_offsets(workload: &Workload) -> Duration {
    workload.max_offset() + hyperperiod(workload) + hyperperiod(workload)
}

/// The global policies (one queue for all cores).
pub const GLOBAL: [PolicyKind; 3] = [
    PolicyKind::GlobalEdf,
    PolicyKind::GlobalFp,
    PolicyKind::GlobalEdzl,
];

pub fn is_global(kind: PolicyKind) -> bool {
    GLOBAL.contains(&kind)
}

/// Identifies a job: (task index, job index within the task).
pub type JobId = (usize, u64);

/// One execution segment `[start, end)` on `core`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub core: usize,
    pub start: Instant,
    pub end: Instant,
}

impl Seg {
    pub fn len(&self) -> Duration {
        self.end - self.start
    }
}

/// Everything a trace says about one job.
#[derive(Clone, Debug, Default)]
pub struct JobRecord {
    pub release: Option<Instant>,
    pub deadline: Option<Instant>,
    pub completion: Option<Instant>,
    pub abort: Option<Instant>,
    /// Number of DeadlineMiss events of the job (must be 0 or 1).
    pub misses: usize,
    /// The `at` of the DeadlineMiss event, if any.
    pub miss_at: Option<Instant>,
    /// Segments sorted by start.
    pub segments: Vec<Seg>,
    /// Ends of the parts of an imprecise job run by parts, in order.
    pub part_ends: Vec<(Instant, Part, PartOutcome)>,
}

impl JobRecord {
    /// Sum of the job's segment lengths.
    pub fn executed(&self) -> Duration {
        self.segments
            .iter()
            .fold(Duration::ZERO, |acc, s| acc + s.len())
    }
}

/// Groups a trace by job. Panics on an event for a job that was never released, or on a second
/// release/completion/abort of the same job (each is a trace bug in itself).
pub fn jobs_of(trace: &Trace) -> BTreeMap<JobId, JobRecord> {
    let mut jobs: BTreeMap<JobId, JobRecord> = BTreeMap::new();
    for event in &trace.events {
        if let TraceEvent::Release {
            task,
            job,
            at,
            deadline,
        } = *event
        {
            let record = jobs.entry((task, job)).or_default();
            assert!(record.release.is_none(), "job {task}#{job} released twice");
            record.release = Some(at);
            record.deadline = Some(deadline);
        }
    }
    for event in &trace.events {
        let (task, job) = match *event {
            TraceEvent::Release { .. } => continue,
            TraceEvent::Discard { .. } | TraceEvent::ModeChange { .. } => {
                panic!("mixed-criticality event {event:?} in a periodic run")
            }
            TraceEvent::ServerSegment { .. }
            | TraceEvent::Replenish { .. }
            | TraceEvent::ServerExhausted { .. } => {
                panic!("server event {event:?} in a run without servers")
            }
            TraceEvent::Segment { task, job, .. }
            | TraceEvent::Completion { task, job, .. }
            | TraceEvent::DeadlineMiss { task, job, .. }
            | TraceEvent::Abort { task, job, .. }
            | TraceEvent::PartEnd { task, job, .. } => (task, job),
        };
        let record = jobs
            .get_mut(&(task, job))
            .unwrap_or_else(|| panic!("event {event:?} for a job that was never released"));
        match *event {
            TraceEvent::Segment {
                core, start, end, ..
            } => record.segments.push(Seg { core, start, end }),
            TraceEvent::Completion { at, .. } => {
                assert!(
                    record.completion.is_none(),
                    "job {task}#{job} completed twice"
                );
                record.completion = Some(at);
            }
            TraceEvent::DeadlineMiss { at, .. } => {
                record.misses += 1;
                record.miss_at = Some(at);
            }
            TraceEvent::Abort { at, .. } => {
                assert!(record.abort.is_none(), "job {task}#{job} aborted twice");
                record.abort = Some(at);
            }
            TraceEvent::PartEnd {
                at, part, outcome, ..
            } => record.part_ends.push((at, part, outcome)),
            _ => unreachable!(),
        }
    }
    for record in jobs.values_mut() {
        record.segments.sort_by_key(|s| (s.start, s.end));
    }
    jobs
}

/// Completion time of every completed job, in time units (all test instants are whole units when
/// there are no overheads and execution times are WCETs).
pub fn completions_in_units(jobs: &BTreeMap<JobId, JobRecord>) -> BTreeMap<JobId, u64> {
    jobs.iter()
        .filter_map(|(&id, r)| r.completion.map(|c| (id, c.as_nanos())))
        .map(|(id, ns)| {
            assert_eq!(
                ns % UNIT_NS,
                0,
                "completion of {id:?} at {ns}ns is not on the unit grid"
            );
            (id, ns / UNIT_NS)
        })
        .collect()
}
