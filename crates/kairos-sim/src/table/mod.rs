//! The `table` policy: runs the scheduling tables of a mixed-criticality DAG system the way the
//! G-RES and G-MCRES LITMUS-RT plugins do (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5 and 6;
//! `notes/mixed-criticality.md`, "Online").
//!
//! Semantics, shared with the table synthesizer and validator:
//! - the system runs the table of the current mode; the mode starts at the lowest level and
//!   returns to it at every hyper-period boundary (section 6.3: a `ModeChange` to level 0 is
//!   recorded there);
//! - a job runs only inside its intervals of the current table, while released, unfinished and
//!   not discarded; it may move between cores at an interval boundary, also when several jobs
//!   swap cores at one instant (a cyclic instantaneous migration, section 5.3: the simulator
//!   moves them all at once);
//! - a budget overrun is detected at the end of a job's last interval in the current mode's
//!   table when the job is still unfinished (section 6.1). If its task's criticality is above the
//!   mode, the mode rises by exactly one at that instant, however many jobs overran there
//!   (Algorithm 1's compare-and-set); every task below the new mode is discarded and every job
//!   goes on under the new table from that instant. Otherwise the job is stopped (budget
//!   enforcement) and misses its deadline;
//! - kairos decision: right after a rise, a released unfinished job that has no interval left
//!   in the new table (possible only when its WCETs at the two levels are equal) is checked at
//!   once, as if its last interval ended there; this may raise the mode again, one level per
//!   step. The plugin would leave such a job waiting for its next hyper-period.
//!
//! The run is event-driven: it jumps between interval bounds, releases, deadlines, completions
//! and hyper-period boundaries. It covers `[0, duration)`: releases at the end instant do not
//! happen, deadlines at the end instant are checked. At one instant it applies, in this order:
//! completions, overrun detection (mode rises, discards, budget stops), deadline misses, the
//! hyper-period reset, releases, then the dispatch of the current table.

mod compare;
mod metrics;
mod run;
#[cfg(test)]
mod tests;

pub use compare::table_matches_trace;
pub use kairos_policy::table::{Overrun, OverrunDemand, TableError, TableExecModel};
pub use metrics::{LevelCounts, MissRecord, ModeChangeRecord, TableMetrics};

use kairos_model::{Duration, McSystem, TableSet};
use kairos_policy::table::{DemandSpec, Demands, TablePlan};
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
    /// Keep every event (memory grows with the duration).
    pub record_trace: bool,
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
    let plan = TablePlan::new(system, tables)?;
    let demands = Demands::new(&plan, &config.demand_spec())?;
    let duration = config
        .duration
        .unwrap_or(Duration::from_nanos(plan.hyperperiod));
    Ok(run::Run::new(&plan, demands, duration, config.record_trace).execute())
}
