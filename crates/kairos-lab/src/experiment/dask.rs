//! `kairos experiment --dask ADDRESS`: the task sets run on a Dask cluster. kairos does not
//! schedule anything itself: it starts the Python driver of the kairos package
//! (`python -m kairos.dask`), which connects a `distributed.Client` to the scheduler, submits
//! one task per shard (a slice of a point's samples, computed by `kairos.experiment_shard` on a
//! worker) and prints each shard's verdicts as it completes. Here the verdicts are folded per
//! point in sample order and each finished point is recorded as the local run records it, so
//! the results, CSV and plots are the local run's byte for byte, and an interrupted sweep
//! resumes from the points already written.

use super::config::Config;
use super::results::PointResult;
use super::resume::Store;
use super::sample::Outcomes;
use super::sweep::fold_point;
use super::{shard, Event, Observer};
use crate::Failure;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Samples per shard: enough work per task to dwarf the scheduler's overhead (a few ms per
/// task), small enough to spread a point over many workers.
const SHARD: usize = 250;

/// A Dask cluster, and the Python that drives it.
#[derive(Clone, Debug)]
pub struct Cluster {
    address: String,
    python: PathBuf,
}

impl Cluster {
    /// The scheduler at `address` (tcp://host:8786), driven by `python` (default:
    /// $KAIROS_PYTHON, else python3), which needs the kairos package and Dask's `distributed`.
    pub fn new(address: &str, python: Option<PathBuf>) -> Cluster {
        let python = python
            .or_else(|| std::env::var_os("KAIROS_PYTHON").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("python3"));
        Cluster {
            address: address.to_string(),
            python,
        }
    }
}

/// Runs every unfinished point on the cluster, recording each as it completes.
pub fn run(
    cluster: &Cluster,
    config_path: &Path,
    text: &str,
    config: &Config,
    store: &mut Store<PointResult>,
    observe: Observer,
) -> Result<(), Failure> {
    let shards: Vec<(usize, usize, usize)> = config
        .points
        .iter()
        .enumerate()
        .filter(|(_, u)| !store.is_done(**u))
        .flat_map(|(p, _)| {
            (0..config.samples)
                .step_by(SHARD)
                .map(move |s| (p, s, (s + SHARD).min(config.samples)))
        })
        .collect();
    if shards.is_empty() {
        return Ok(());
    }
    let job = serde_json::json!({
        "address": cluster.address,
        "config_name": config_path.display().to_string(),
        "config_text": text,
        "shards": shards,
    });
    let mut driver = Command::new(&cluster.python)
        .args(["-m", "kairos.dask"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::environment(format!("cannot start {} -m kairos.dask: {e} (--python names a Python with the kairos package and distributed)", cluster.python.display())))?;
    driver
        .stdin
        .take()
        .expect("piped")
        .write_all(job.to_string().as_bytes())
        .map_err(|e| Failure::environment(format!("cannot talk to the Dask driver: {e}")))?;
    let mut pending: BTreeMap<usize, BTreeMap<usize, Outcomes>> = BTreeMap::new();
    let mut left: BTreeMap<usize, usize> = BTreeMap::new();
    for (p, _, _) in &shards {
        *left.entry(*p).or_default() += 1;
    }
    let stdout = BufReader::new(driver.stdout.take().expect("piped"));
    for line in stdout.lines() {
        let line = line.map_err(|e| Failure::environment(format!("the Dask driver: {e}")))?;
        let message: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| Failure::environment(format!("the Dask driver said {line:?}: {e}")))?;
        if let Some(error) = message.get("error").and_then(|e| e.as_str()) {
            return Err(Failure::environment(format!("Dask: {error}")));
        }
        let (p, start) = (index(&message, "point")?, index(&message, "start")?);
        let verdicts = shard::parse(&message["verdicts"]).map_err(Failure::environment)?;
        observe(Event::Done {
            sets: verdicts.len() as u64,
        });
        pending.entry(p).or_default().insert(start, verdicts);
        let remaining = left.get_mut(&p).expect("a submitted point");
        *remaining -= 1;
        if *remaining == 0 {
            let outcomes = pending
                .remove(&p)
                .unwrap_or_default()
                .into_values()
                .flatten()
                .collect();
            store.record(fold_point(config, config.points[p], outcomes)?)?;
        }
    }
    let status = driver
        .wait()
        .map_err(|e| Failure::environment(format!("the Dask driver: {e}")))?;
    match left.values().all(|n| *n == 0) && status.success() {
        true => Ok(()),
        false => Err(Failure::environment(format!(
            "the Dask driver ended ({status}) before every shard came back: run again to resume"
        ))),
    }
}

fn index(message: &serde_json::Value, key: &str) -> Result<usize, Failure> {
    message[key]
        .as_u64()
        .map(|v| v as usize)
        .ok_or_else(|| Failure::environment(format!("the Dask driver sent no {key}")))
}
