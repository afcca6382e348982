//! Simulating the scheduling tables of a mixed-criticality DAG system: the table executor
//! ([`kairos_policy::table::TablePolicy`], G-RES / G-MCRES, whose documentation gives the
//! semantics) on the one engine of every policy, its jobs drawn with overruns
//! ([`kairos_policy::table::TableJobs`]) and its figures computed from the run's events
//! (`observe::TableObserver`).
//!
//! The run covers `[0, duration)`: releases at the end instant do not happen; completions,
//! deadlines and the return to the lowest mode at the end instant do. The instant order is the
//! contract's ([`kairos_policy::contract`]): completions, overruns, releases, the policy's
//! decisions (mode rises, discards and budget stops, the return to the lowest level at a
//! hyper-period boundary, then the placement of the current table), then deadline misses.

mod compare;
mod metrics;
mod observe;
#[cfg(test)]
mod tests;

pub use compare::table_matches_trace;
pub use kairos_policy::table::{Overrun, OverrunDemand, TableError, TableExecModel};
pub use metrics::{LevelCounts, MissRecord, ModeChangeRecord, TableMetrics};

use std::sync::Arc;

use kairos_model::{Duration, Instant, McSystem, TableSet};
use kairos_policy::table::{DemandSpec, Demands, TableJobs, TablePlan, TablePolicy};

use crate::{simulate_observed, SimConfig};
use kairos_trace::Trace;

/// How to run a set of tables.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TableSimConfig {
    /// Simulated time from 0; one hyper-period when absent.
    pub duration: Option<Duration>,
    pub execution_times: TableExecModel,
    /// Injected overruns; an injection wins over the probability for its job.
    pub overruns: Vec<Overrun>,
    /// Each job of a task whose criticality is above the lowest level overruns with this
    /// probability; its work is then its WCET at a level drawn uniformly from 1 to its own.
    pub overrun_probability: f64,
    /// Seed of every random choice (execution times, random overruns).
    pub seed: u64,
    /// Keep the events (memory grows with the duration), within `trace_bounds`.
    pub record_trace: bool,
    pub trace_bounds: crate::TraceBounds,
}

impl TableSimConfig {
    /// The part of the configuration that decides each job's work.
    pub fn demand_spec(&self) -> DemandSpec {
        DemandSpec {
            execution_times: self.execution_times,
            overruns: self.overruns.clone(),
            overrun_probability: self.overrun_probability,
            seed: self.seed,
        }
    }
}

/// What a table run produced.
#[derive(Clone, Debug)]
pub struct TableSimOutcome {
    pub metrics: TableMetrics,
    /// Task names `dag/task`, level names set, job numbers counted since time 0.
    pub trace: Option<Trace>,
}

/// Runs `tables` (times in ns, as [`TableSet::from_json`] gives them) for `system`.
pub fn simulate_tables(
    system: &McSystem,
    tables: &TableSet,
    config: &TableSimConfig,
) -> Result<TableSimOutcome, TableError> {
    let plan = Arc::new(TablePlan::new(system, tables)?);
    let duration = config
        .duration
        .unwrap_or(Duration::from_nanos(plan.hyperperiod));
    let demands = Demands::new(&plan, &config.demand_spec(), duration.as_nanos())?;
    let workload = plan.workload();
    let mut jobs = TableJobs::new(Arc::clone(&plan), demands);
    let mut observer = observe::TableObserver::new(&plan, duration);
    let sim = SimConfig {
        duration,
        record_trace: config.record_trace,
        trace_bounds: config.trace_bounds,
        seed: config.seed,
        ..SimConfig::default()
    };
    let mut policy = TablePolicy::new(Arc::clone(&plan));
    let outcome = simulate_observed(&workload, &mut policy, &sim, &mut jobs, &mut observer)
        .map_err(|e| TableError::Run(e.to_string()))?;
    Ok(TableSimOutcome {
        metrics: observer.finish(Instant::ZERO + duration),
        trace: outcome.trace,
    })
}
