//! What a sweep gives: each point's counts per method (as `points.jsonl` keeps them), the
//! `results.csv` table, the text table and the `--json` summary.

use super::resume::Point;
use crate::text::Column;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How many sets each method accepted at one utilization.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub utilization: f64,
    pub samples: u64,
    /// In the order of the config's methods.
    pub accepted: Vec<u64>,
    /// Simulations the cap ended with no miss before the feasibility interval, per method
    /// (absent in results written before kairos counted them: read as none).
    #[serde(default)]
    pub inconclusive: Vec<u64>,
    /// MC-DAG experiments: table quality summed over the accepted systems, per method.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quality: Vec<QualitySum>,
    /// Experiments on imprecise tasks: the QoS of the sets each method simulated by parts,
    /// per method (empty when no method did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub qos: Vec<QosSum>,
}

/// QoS ratios (optional time executed / requested) of simulated sets, summed to a mean.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QosSum {
    pub sets: u64,
    pub ratio_sum: f64,
}

impl QosSum {
    pub fn add(&mut self, ratio: f64) {
        self.sets += 1;
        self.ratio_sum += ratio;
    }

    /// The mean QoS of a set, `None` when no set was simulated by parts.
    pub fn mean(&self) -> Option<f64> {
        (self.sets > 0).then(|| self.ratio_sum / self.sets as f64)
    }
}

/// Jobs, preemptions and migrations over every level's table, summed over accepted systems.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QualitySum {
    pub jobs: u64,
    pub preemptions: u64,
    pub migrations: u64,
}

impl QualitySum {
    pub fn add(&mut self, other: QualitySum) {
        self.jobs += other.jobs;
        self.preemptions += other.preemptions;
        self.migrations += other.migrations;
    }

    /// Preemptions per job, `None` when no system was accepted.
    pub fn preemptions_per_job(&self) -> Option<f64> {
        (self.jobs > 0).then(|| self.preemptions as f64 / self.jobs as f64)
    }

    /// Migrations per job, `None` when no system was accepted.
    pub fn migrations_per_job(&self) -> Option<f64> {
        (self.jobs > 0).then(|| self.migrations as f64 / self.jobs as f64)
    }
}

impl Point for PointResult {
    fn utilization(&self) -> f64 {
        self.utilization
    }
}

impl PointResult {
    /// Inconclusive simulations of method `m` (0 for analysis and synthesis methods).
    pub fn inconclusive(&self, m: usize) -> u64 {
        self.inconclusive.get(m).copied().unwrap_or(0)
    }

    /// The mean QoS of method `m`'s simulations by parts at this point.
    pub fn qos(&self, m: usize) -> Option<f64> {
        self.qos.get(m).and_then(QosSum::mean)
    }
}

/// `utilization,method,accepted,samples,ratio,inconclusive`, one row per point and method;
/// MC-DAG experiments add `preemptions_per_job,migrations_per_job` (empty where nothing was
/// accepted), experiments whose sets ran by parts add `qos` (empty for other methods).
pub fn csv(results: &[PointResult], labels: &[String]) -> String {
    let with_quality = results.iter().any(|p| !p.quality.is_empty());
    let with_qos = results.iter().any(|p| !p.qos.is_empty());
    let mut out = String::from("utilization,method,accepted,samples,ratio,inconclusive");
    if with_quality {
        out.push_str(",preemptions_per_job,migrations_per_job");
    }
    if with_qos {
        out.push_str(",qos");
    }
    out.push('\n');
    let show = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
    for p in results {
        for (m, (label, accepted)) in labels.iter().zip(&p.accepted).enumerate() {
            let ratio = *accepted as f64 / p.samples as f64;
            out.push_str(&format!(
                "{},{label},{accepted},{},{ratio:.4},{}",
                p.utilization,
                p.samples,
                p.inconclusive(m)
            ));
            if with_quality {
                let q = p.quality.get(m).copied().unwrap_or_default();
                out.push_str(&format!(
                    ",{},{}",
                    show(q.preemptions_per_job()),
                    show(q.migrations_per_job())
                ));
            }
            if with_qos {
                out.push_str(&format!(",{}", show(p.qos(m))));
            }
            out.push('\n');
        }
    }
    out
}

/// Acceptance ratios, one row per point, one column per method.
pub fn summary_table(results: &[PointResult], labels: &[String]) -> String {
    let column = Column::fitting(6, labels.iter().map(String::as_str));
    let mut out = format!("{:>8}", "U");
    for label in labels {
        out.push_str(&format!(" {}", column.right(label)));
    }
    out.push('\n');
    for p in results {
        out.push_str(&format!("{:>8}", p.utilization));
        for accepted in &p.accepted {
            let ratio = *accepted as f64 / p.samples as f64;
            out.push_str(&format!(" {}", column.right(&format!("{ratio:.3}"))));
        }
        out.push('\n');
    }
    out.push_str(&inconclusive_lines(results, labels));
    out
}

/// One line per simulated method that had inconclusive sets, with the points and counts.
fn inconclusive_lines(results: &[PointResult], labels: &[String]) -> String {
    let mut out = String::new();
    for (m, label) in labels.iter().enumerate() {
        let points: Vec<String> = results
            .iter()
            .filter(|p| p.inconclusive(m) > 0)
            .map(|p| format!("{} at U = {}", p.inconclusive(m), p.utilization))
            .collect();
        if !points.is_empty() {
            out.push_str(&format!(
                "{label}: inconclusive (no miss before the cap): {}\n",
                points.join(", ")
            ));
        }
    }
    out
}

/// The `--json` summary of an experiment.
#[derive(Serialize)]
pub struct Summary {
    pub name: String,
    pub methods: Vec<String>,
    pub points: Vec<SummaryPoint>,
    pub files: Vec<String>,
}

#[derive(Serialize)]
pub struct SummaryPoint {
    pub utilization: f64,
    pub samples: u64,
    pub accepted: Vec<u64>,
    pub ratio: Vec<f64>,
    pub inconclusive: Vec<u64>,
    /// Mean QoS per method of the sets simulated by parts (null for other methods); absent
    /// when no method ran sets by parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos: Option<Vec<Option<f64>>>,
}

impl Summary {
    /// The summary, with the files written into `out` (results.csv, then the plots).
    pub fn new(
        name: &str,
        results: &[PointResult],
        labels: &[String],
        out: &Path,
        plots: &[String],
    ) -> Summary {
        let points = results
            .iter()
            .map(|p| SummaryPoint {
                utilization: p.utilization,
                samples: p.samples,
                accepted: p.accepted.clone(),
                ratio: p
                    .accepted
                    .iter()
                    .map(|&a| a as f64 / p.samples as f64)
                    .collect(),
                inconclusive: (0..labels.len()).map(|m| p.inconclusive(m)).collect(),
                qos: (!p.qos.is_empty()).then(|| (0..labels.len()).map(|m| p.qos(m)).collect()),
            })
            .collect();
        Summary {
            name: name.to_string(),
            methods: labels.to_vec(),
            points,
            files: std::iter::once(out.join("results.csv").display().to_string())
                .chain(plots.iter().cloned())
                .collect(),
        }
    }

    pub fn inconclusive_total(&self) -> u64 {
        self.points.iter().flat_map(|p| &p.inconclusive).sum()
    }
}
