//! Per-server figures of a run through servers (the VCPUs of hierarchical scheduling), the
//! same for a simulated and a measured run: periods begun, **back-to-back** replenishments (one
//! that finds the server on a core and leaves it there: two periods' budgets in one executing
//! window, Xi et al., EMSOFT 2014, Table I), exhaustions, budget charged and **supply** (the
//! time it held a core).

use serde::Serialize;

/// Per-server figures (see `kairos_sim`'s engine documentation of servers).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ServerMetrics {
    pub name: String,
    /// Periods begun inside the run (the one at 0 included).
    pub replenishments: u64,
    /// Replenishments inside one executing window (Xi et al., EMSOFT 2014, Table I).
    pub back_to_back: u64,
    /// Placed servers that used their whole budget before their period ended.
    pub exhaustions: u64,
    /// Budget charged.
    pub budget_used_ns: u64,
    /// Time placed on a core.
    pub supply_ns: u64,
}

impl ServerMetrics {
    pub fn named(name: &str) -> Self {
        ServerMetrics {
            name: name.to_string(),
            ..ServerMetrics::default()
        }
    }
}
