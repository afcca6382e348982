//! The figures each stage of the tour adds, typed, serializing to the records of
//! `kairos demo --json`: `{"stage": name, ...figures}`.

use crate::report::Written;
use kairos_analysis::csa::CsaReport;
use kairos_mc::quality::LevelQuality;
use kairos_rt::measure::Summary;
use kairos_sim::table::TableMetrics;
use kairos_sim::vm::VmMetrics;
use kairos_sim::Metrics;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One stage of the tour: its name and what it found.
#[derive(serde::Serialize)]
pub struct Stage {
    pub stage: &'static str,
    #[serde(flatten)]
    pub figures: Figures,
}

/// What a stage found.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum Figures {
    /// The periodic workload checked.
    Workload {
        tasks: usize,
        cores: usize,
        utilization: f64,
    },
    /// Each default schedulability test's verdict.
    Analysis { schedulable: Ordered<bool> },
    /// The periodic workload under every policy.
    Policies {
        duration_ns: u64,
        policies: Vec<Metrics>,
    },
    /// The mixed-criticality system checked.
    McSystem {
        dags: usize,
        tasks: usize,
        levels: Vec<String>,
    },
    /// One table per level, and the independent validator's verdict.
    Tables {
        tables: Vec<LevelQuality>,
        valid: bool,
    },
    /// The tables simulated with the injected overrun.
    TableRun { metrics: TableMetrics },
    /// The tables run for real next to their simulation.
    RealRun(RealRun),
    /// The RMWP verdicts, then the RMWP family simulated.
    Imprecise {
        #[serde(rename = "g-rmwp")]
        g_rmwp: bool,
        #[serde(rename = "p-rmwp-cnf")]
        p_rmwp_cnf: bool,
        policies: Vec<Metrics>,
    },
    /// The VM system's interfaces and its two-level schedule simulated.
    Vm {
        interfaces: CsaReport,
        simulation: VmMetrics,
    },
    /// This machine's OS latencies, measured on `cpu`.
    Latency {
        cpu: usize,
        latency_ns: Ordered<Summary>,
    },
    /// The HTML report written.
    Report { report: Written },
    /// A stage this machine cannot run (no real-time privilege), and why.
    Skipped { skipped: String },
}

/// Each count of the real run as `[simulated, measured]`, and the measured release latency.
#[derive(serde::Serialize)]
pub struct RealRun {
    pub jobs_released: [u64; 2],
    pub jobs_completed: [u64; 2],
    pub jobs_discarded: [u64; 2],
    pub mode_raises: [u64; 2],
    pub deadline_misses: [u64; 2],
    pub migrations: [u64; 2],
    pub release_latency_ns: Summary,
}

/// Named figures in the order they were found; serializes as a JSON object.
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}
