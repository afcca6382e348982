//! Results of finished points, kept on disk so an interrupted experiment resumes where it
//! stopped: `config.toml` (the config the results belong to) and `points.jsonl` (one line per
//! finished point, appended and flushed as soon as the point is done).

use crate::args::{write_output, Failure};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How many sets each method accepted at one utilization.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    pub utilization: f64,
    pub samples: u64,
    /// In the order of the config's methods.
    pub accepted: Vec<u64>,
}

pub struct Progress {
    points_file: PathBuf,
    done: Vec<PointResult>,
}

impl Progress {
    /// Opens the output folder; reuses finished points if they come from the same config.
    pub fn open(out: &Path, config_text: &str, fresh: bool) -> Result<Progress, Failure> {
        let saved_config = out.join("config.toml");
        let points_file = out.join("points.jsonl");
        let previous = std::fs::read_to_string(&saved_config).ok();
        let same_config = previous.as_deref() == Some(config_text);
        if previous.is_some() && !same_config && !fresh {
            return Err(Failure::bad_input(format!(
                "{} holds results of a different config; pass --fresh to discard them or choose another --out",
                out.display()
            )));
        }
        let done = if same_config && !fresh {
            read_points(&points_file)?
        } else {
            Vec::new()
        };
        if done.is_empty() {
            write_output(&points_file, "")?;
        }
        write_output(&saved_config, config_text)?;
        if !done.is_empty() {
            eprintln!(
                "resuming: {} point(s) already done in {}",
                done.len(),
                out.display()
            );
        }
        Ok(Progress { points_file, done })
    }

    pub fn is_done(&self, utilization: f64) -> bool {
        self.done.iter().any(|p| p.utilization == utilization)
    }

    pub fn record(&mut self, point: PointResult) -> Result<(), Failure> {
        let line = serde_json::to_string(&point).expect("point serializes");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.points_file)
            .map_err(|e| {
                Failure::environment(format!(
                    "cannot append to {}: {e}",
                    self.points_file.display()
                ))
            })?;
        writeln!(file, "{line}").map_err(|e| Failure::environment(format!("cannot write: {e}")))?;
        self.done.push(point);
        Ok(())
    }

    /// Finished points in the order of `points`.
    pub fn results_in_order(&self, points: &[f64]) -> Vec<PointResult> {
        points
            .iter()
            .filter_map(|u| self.done.iter().find(|p| p.utilization == *u).cloned())
            .collect()
    }
}

/// Reads saved points; a torn last line (interrupted write) is ignored and recomputed.
fn read_points(path: &Path) -> Result<Vec<PointResult>, Failure> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let points: Vec<PointResult> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let rewritten: String = points
        .iter()
        .map(|p| serde_json::to_string(p).expect("serializes") + "\n")
        .collect();
    write_output(path, rewritten)?;
    Ok(points)
}

/// `utilization,method,accepted,samples,ratio`, one row per point and method.
pub fn csv(results: &[PointResult], labels: &[String]) -> String {
    let mut out = String::from("utilization,method,accepted,samples,ratio\n");
    for p in results {
        for (label, accepted) in labels.iter().zip(&p.accepted) {
            let ratio = *accepted as f64 / p.samples as f64;
            out.push_str(&format!(
                "{},{label},{accepted},{},{ratio:.4}\n",
                p.utilization, p.samples
            ));
        }
    }
    out
}

/// Acceptance ratios, one row per point, one column per method.
pub fn summary_table(results: &[PointResult], labels: &[String]) -> String {
    let width = labels.iter().map(String::len).max().unwrap_or(6).max(6);
    let mut out = format!("{:>8}", "U");
    for label in labels {
        out.push_str(&format!(" {label:>width$}"));
    }
    out.push('\n');
    for p in results {
        out.push_str(&format!("{:>8}", p.utilization));
        for accepted in &p.accepted {
            out.push_str(&format!(
                " {:>width$.3}",
                *accepted as f64 / p.samples as f64
            ));
        }
        out.push('\n');
    }
    out
}
