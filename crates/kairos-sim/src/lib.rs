//! # kairos-sim
//!
//! A discrete-event simulator of real-time scheduling on `m` identical cores, in exact integer
//! nanoseconds. Policies plug in through the execution contract ([`kairos_policy::Policy`], the
//! same one the runtime hosts); the engine owns time, jobs and cores, applies the policies'
//! decisions and measures ([`metrics::Metrics`]).
//! Mixed-criticality DAG systems run their scheduling tables on the same engine, the table
//! executor being a policy too, with overruns and mode changes ([`table::simulate_tables`]).
//! Jobs come from a [`kairos_policy::JobSource`]; an [`observe::Observer`] sees every event as it
//! happens.
//!
//! ```
//! use kairos_model::{check_source, Duration, Format};
//! use kairos_policy::{PolicyKind, PriorityOrder};
//! use kairos_sim::{simulate, SimConfig};
//! let src = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n";
//! let workload = check_source(src, Format::Toml).workload.unwrap();
//! let mut policy = PolicyKind::GlobalEdf.build(PriorityOrder::Auto);
//! let config = SimConfig { duration: Duration::from_millis(20), ..SimConfig::default() };
//! let outcome = simulate(&workload, policy.as_mut(), &config).unwrap();
//! // The run covers [0, 20ms]: releases at 0, 4, ..., 20ms.
//! assert_eq!(outcome.metrics.jobs_released, 6);
//! assert_eq!(outcome.metrics.deadline_misses, 0);
//! ```
#![forbid(unsafe_code)]

/// `docs/policy.md`, whose example `cargo test` compiles and runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/policy.md")]
pub struct PolicyGuide;

mod charges;
mod engine;
pub mod job;
pub mod metrics;
pub mod observe;
pub mod outages;
mod queue;
pub mod replay;
pub mod table;
pub mod vm;

pub use kairos_policy::ExecutionTimeModel;
pub use metrics::{Metrics, OptionalMetrics, ServerMetrics, TaskMetrics};
pub use replay::{replay, replay_from, ReplayError};

use kairos_model::{Duration, Instant, Overheads, Workload};
use kairos_policy::Policy;
use kairos_trace::Trace;
use thiserror::Error;

/// How to run a simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// Simulated time from 0.
    pub duration: Duration,
    pub execution_times: ExecutionTimeModel,
    /// Seed of every random choice (execution times, sporadic arrivals).
    pub seed: u64,
    /// Remove a job unfinished at its deadline instead of letting it run late.
    pub abort_on_miss: bool,
    /// Keep the events (memory grows with the duration), within `trace_bounds`.
    pub record_trace: bool,
    pub trace_bounds: TraceBounds,
    pub overheads: Overheads,
    /// Stretches in which a core runs nothing of the workload ([`outages`]); none by default.
    pub outages: outages::Outages,
}

/// The most events a trace recorded for the user holds unless `--max-events` says otherwise:
/// about 100 MB of events, and a Gantt chart or Perfetto trace of them in the hundreds of
/// megabytes.
pub const DEFAULT_MAX_TRACE_EVENTS: u64 = 1_000_000;

/// What a recorded trace keeps, so that its memory is bounded whatever the duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceBounds {
    /// Only the events a Gantt chart of `[from, to]` draws
    /// ([`kairos_trace::TraceEvent::drawn_in`]); `None`: every event.
    pub window: Option<(Instant, Instant)>,
    /// Past this many kept events the run stops with [`SimError::TraceTooLarge`] (callers
    /// estimate first and refuse or narrow the window before starting; this is the backstop).
    pub max_events: u64,
}

/// By default the whole trace, unbounded: a simulation recorded for the user (`simulate`,
/// `report`) is bounded by the caller, from an estimate made before it starts; a real run's
/// twin records as much as the run did, which `kairos run` bounds before any thread starts.
impl Default for TraceBounds {
    fn default() -> Self {
        TraceBounds {
            window: None,
            max_events: u64::MAX,
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            duration: Duration::from_secs(1),
            execution_times: ExecutionTimeModel::Wcet,
            seed: 0,
            abort_on_miss: false,
            record_trace: false,
            trace_bounds: TraceBounds::default(),
            overheads: Overheads::default(),
            outages: outages::Outages::default(),
        }
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct SimOutcome {
    pub metrics: Metrics,
    pub trace: Option<Trace>,
    /// Jobs still unfinished at the end.
    pub unfinished_jobs: usize,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SimError {
    #[error("policy {policy} made an impossible decision at {at}: {reason}")]
    InvalidDispatch {
        policy: String,
        at: Instant,
        reason: String,
    },
    #[error("the workload cannot run under {policy}: {reason}")]
    Unsupported { policy: String, reason: String },
    #[error("an outage of core {core} on {cores} core(s): outages are numbered from 0 as the simulation numbers its cores")]
    OutageBeyondCores { core: usize, cores: usize },
    #[error("the recorded trace reached its cap of {max} events at {at} (more than estimated): draw part of the run with --gantt-window START..END, shorten --duration, or raise the cap with --max-events N")]
    TraceTooLarge { max: u64, at: Instant },
}

/// Simulates `workload` under `policy`.
pub fn simulate(
    workload: &Workload,
    policy: &mut dyn Policy,
    config: &SimConfig,
) -> Result<SimOutcome, SimError> {
    prepare(workload, policy)?;
    check_outages(workload, config)?;
    let mut source = kairos_policy::WorkloadJobs::new(config.seed, config.execution_times);
    let hosts = engine::Hosts {
        source: &mut source,
        observer: None,
    };
    engine::Engine::new(workload, config, hosts, &*policy).run(policy)
}

/// Simulates jobs from `source` (whose tasks are `workload`'s) under `policy`, telling
/// `observer` everything as it happens.
pub fn simulate_observed(
    workload: &Workload,
    policy: &mut dyn Policy,
    config: &SimConfig,
    source: &mut dyn kairos_policy::JobSource,
    observer: &mut dyn observe::Observer,
) -> Result<SimOutcome, SimError> {
    prepare(workload, policy)?;
    check_outages(workload, config)?;
    let hosts = engine::Hosts {
        source,
        observer: Some(observer),
    };
    engine::Engine::new(workload, config, hosts, &*policy).run(policy)
}

/// Refuses an outage of a core the workload does not have: it would stand for no core.
fn check_outages(workload: &Workload, config: &SimConfig) -> Result<(), SimError> {
    match config.outages.last_core() {
        Some(core) if core >= workload.cores => Err(SimError::OutageBeyondCores {
            core,
            cores: workload.cores,
        }),
        _ => Ok(()),
    }
}

fn prepare(workload: &Workload, policy: &mut dyn Policy) -> Result<(), SimError> {
    policy
        .prepare(workload)
        .map_err(|refusal| SimError::Unsupported {
            policy: policy.name().to_string(),
            reason: refusal.0,
        })
}
