//! Results of finished points, kept on disk so an interrupted experiment resumes where it
//! stopped: `config.toml` (the config the results belong to) and `points.jsonl` (one line per
//! finished point, appended and flushed as soon as the point is done).

use super::{Event, Observer};
use crate::error::write_output;
use crate::Failure;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A finished utilization point of some kind of experiment, as `points.jsonl` keeps it.
pub trait Point: Clone + Serialize + DeserializeOwned {
    fn utilization(&self) -> f64;
}

/// The output folder's finished points, each recorded as soon as it is done.
pub struct Store<P: Point> {
    points_file: PathBuf,
    done: Vec<P>,
}

impl<P: Point> Store<P> {
    /// Opens the output folder; reuses finished points if they come from the same config, and
    /// tells `observe` so.
    pub fn open(
        out: &Path,
        config_text: &str,
        fresh: bool,
        observe: Observer,
    ) -> Result<Store<P>, Failure> {
        let saved_config = out.join("config.toml");
        let points_file = out.join("points.jsonl");
        let previous = std::fs::read_to_string(&saved_config).ok();
        let same_config = previous.as_deref() == Some(config_text);
        if previous.is_some() && !same_config && !fresh {
            return Err(Failure::bad_input(format!(
                "{} holds results of a different config; pass --fresh to discard them or choose another --out-dir",
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
            observe(Event::Notice(&format!(
                "resuming: {} point(s) already done in {}",
                done.len(),
                out.display()
            )));
        }
        Ok(Store { points_file, done })
    }

    pub fn is_done(&self, utilization: f64) -> bool {
        self.done.iter().any(|p| p.utilization() == utilization)
    }

    pub fn record(&mut self, point: P) -> Result<(), Failure> {
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
    pub fn results_in_order(&self, points: &[f64]) -> Vec<P> {
        points
            .iter()
            .filter_map(|u| self.done.iter().find(|p| p.utilization() == *u).cloned())
            .collect()
    }
}

/// Reads saved points; a torn last line (interrupted write) is ignored and recomputed.
fn read_points<P: Point>(path: &Path) -> Result<Vec<P>, Failure> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let points: Vec<P> = text
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
