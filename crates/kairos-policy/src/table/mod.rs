//! What both engines must agree on to run the scheduling tables of a mixed-criticality DAG
//! system (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed
//! criticality systems", sections 5 and 6): the tables resolved for lookups ([`TablePlan`]) and
//! the work every job really asks for ([`job_demands`]). The simulator's table run and the
//! runtime's table dispatcher read the same plan and draw the same demands, so a measured run
//! and its simulation with one seed execute the same jobs in the same intervals. The executor
//! itself is a policy of the contract ([`TablePolicy`]).

mod demand;
mod jobs;
mod plan;
mod policy;
mod resolve;

pub use demand::{job_demands, DemandSpec, Demands, Overrun, OverrunDemand, TableExecModel};
pub use jobs::TableJobs;
pub use plan::{DagPlan, LevelPlan, Slot, TablePlan, TaskPlan};
pub use policy::TablePolicy;

use thiserror::Error;

/// Why a system and its tables cannot run.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TableError {
    #[error("the system cannot run: {0}")]
    System(String),
    #[error("the tables do not fit the system: {0}")]
    Tables(String),
    #[error("bad --overrun {0}")]
    Overrun(String),
    #[error("bad configuration: {0}")]
    Config(String),
    /// An engine refused what the table policy decided: a bug of kairos, not of the input.
    #[error("the table run stopped (a kairos bug, please report it): {0}")]
    Run(String),
}
