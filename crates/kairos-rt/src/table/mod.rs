//! Table-driven global execution of mixed-criticality scheduling tables on real cores: G-RES
//! and G-MCRES (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of
//! mixed criticality systems", sections 5 and 6), run by the user-space dispatcher
//! ([`crate::dispatcher`]) with the very policy object the simulator runs
//! ([`kairos_policy::table::TablePolicy`]) and the jobs it draws
//! ([`kairos_policy::table::TableJobs`]).
//!
//! Semantics (the ones the simulator and the validator share): the system runs the table of
//! the current mode, which starts at level 0 and returns to it at every hyper-period boundary.
//! A job runs only inside its intervals of that table while released and unfinished; a budget
//! overrun is seen at the end of a job's last interval in the current mode's table: a task
//! above the mode raises it by exactly one (once, however many overruns coincide), the tasks
//! below the new mode are discarded, and every job continues under the new table from that
//! instant; a task at or below the mode is stopped and misses.
//!
//! How the dispatcher keeps a table's switches at their instants: every decision of the table
//! policy promises the placement at the next boundary ([`kairos_policy::Ahead`]); each core's
//! dispatcher prepares its part a little before it (the leaving job's worker stops itself at
//! the boundary, the coming job's worker, asked ahead, starts there; a migration is the
//! hand-off of [`crate::handoff`] between two pre-pinned workers), and the pass at the
//! boundary confirms it or, on an overrun, changes the mode and corrects the cores.
//!
//! Modules: [`bench`](mod@bench) (section 7 measurements), [`overrun`] (injection),
//! [`run`] (the run), [`result`] (the mode-change parts, misses per level, overlaps) and
//! [`scenarios`] (hand-built systems for tests and benchmarks).

pub mod bench;
pub mod cause;
pub mod overrun;
pub mod result;
pub mod run;
pub mod scenarios;

pub use cause::{Raise, RaiseCause};
pub use overrun::OverrunSpec;
pub use result::TableRun;
pub use run::run_tables_detailed;

use crate::calibrate::Calibration;
use crate::measure::RunResult;
use crate::periodic::RunError;
use crate::watchdog::RunControl;
use kairos_model::{McSystem, TableSet};
use std::sync::Arc;

/// How to run a table set.
#[derive(Clone, Debug)]
pub struct TableRunConfig {
    /// Run length; rounded up to a whole number of hyper-periods.
    pub duration_ns: u64,
    /// `TASK@JOB[:LEVEL]` overruns.
    pub overruns: Vec<OverrunSpec>,
    /// Probability that a job of a task above level 0 overruns (seeded by `seed`).
    pub overrun_probability: f64,
    pub seed: u64,
    /// Work of a job that does not overrun (its level-0 WCET by default).
    pub execution_times: kairos_policy::table::TableExecModel,
    /// Fraction of each job's demand its body executes. Every interval start costs the
    /// dispatcher's timer latency (tens of microseconds here), which the table does not budget
    /// for; without a margin a job that asks exactly its WCET would look like an overrun.
    /// An injected overrun is seen when `fraction * C(higher level)` exceeds what the job gets
    /// in the lower table, so keep `C(high) / C(low)` above `1 / fraction`.
    pub work_fraction: f64,
    /// How long before an interval start a core that idles until then asks for the task
    /// (its worker busy-waits for the start, so the task starts without the timer's and the
    /// wake-up's latency, at the price of up to this much busy waiting per idle gap).
    /// 0 = ask at the start.
    pub lead_ns: u64,
    /// CPUs for table cores 0, 1, ... (default: the first online CPUs).
    pub cpus: Option<Vec<usize>>,
    /// A calibration to reuse (default: calibrate the CPUs used before the run).
    pub calibration: Option<Calibration>,
    /// A stop flag shared with the caller (SIGINT handling), default a fresh one.
    pub control: Option<Arc<RunControl>>,
    /// Time between the threads being ready and time 0 of the schedule.
    pub start_delay_ns: u64,
    /// Time after the end before the watchdog's hard stop.
    pub grace_ns: u64,
    /// CPU time without progress after which the watchdog demotes every thread.
    pub stall_ns: u64,
    /// Record every question to the table policy ([`TableRun::steps`], to replay the run; as
    /// `UserRunConfig::record_steps`, off by default).
    pub record_steps: bool,
}

impl TableRunConfig {
    pub fn new(duration_ns: u64) -> Self {
        TableRunConfig {
            duration_ns,
            overruns: Vec::new(),
            overrun_probability: 0.0,
            seed: 0,
            execution_times: kairos_policy::table::TableExecModel::Wcet,
            work_fraction: 0.8,
            lead_ns: 50_000,
            cpus: None,
            calibration: None,
            control: None,
            start_delay_ns: 20_000_000,
            grace_ns: 1_000_000_000,
            stall_ns: 1_000_000_000,
            record_steps: false,
        }
    }
}

/// Runs `tables` (times in ns, see [`TableSet::from_json`]) of `system` on this machine's
/// cores for `config.duration_ns` (whole hyper-periods) and returns the common run result
/// (`kairos run --policy table`). Needs real-time privilege (`RunError::Platform` with
/// `NoPrivilege` otherwise) and at least as many CPUs as the tables use.
pub fn run_tables(
    system: &McSystem,
    tables: &TableSet,
    config: &TableRunConfig,
) -> Result<RunResult, RunError> {
    run_tables_detailed(system, tables, config).map(|run| run.result)
}
