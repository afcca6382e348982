//! One shard of an experiment: samples `start..end` of point `point`, run where the cluster
//! put it. Every sample's set comes from its own seeded stream (`super::sample`), so a
//! shard computes exactly what the local run computes for those samples; the verdicts travel
//! back as JSON and the driver folds them in sample order.

use super::decode;
use super::sample::{run_sample, Outcomes};
use crate::Failure;
use rayon::prelude::*;
use std::path::Path;

/// The verdicts of samples `start..end` of point `point` of the experiment `text` (read as the
/// file `path`): a JSON array with one entry per sample, each the methods' verdicts or
/// `{"error": message}`. A shard has no one to show the config's diagnostics to as they come:
/// a refused config's go into the refusal, before its count of errors.
pub fn shard_json(
    path: &Path,
    text: &str,
    point: usize,
    start: usize,
    end: usize,
) -> Result<String, Failure> {
    let (config, diagnostics) = decode::check(path, text);
    let Some(config) = config else {
        let name = path.display().to_string();
        let mut message: String = (diagnostics.iter())
            .map(|d| d.render(&name) + "\n")
            .collect();
        message.push_str(&decode::refusal(path, &diagnostics).message);
        return Err(Failure::bad_input(message));
    };
    let utilization = *config
        .points
        .get(point)
        .ok_or_else(|| Failure::bad_input(format!("point {point} does not exist")))?;
    if start > end || end > config.samples {
        return Err(Failure::bad_input(format!(
            "samples {start}..{end} are not within 0..{}",
            config.samples
        )));
    }
    let outcomes: Vec<serde_json::Value> = (start..end)
        .into_par_iter()
        .map(
            |sample| match run_sample(&config, point, sample, utilization) {
                Ok(verdicts) => serde_json::to_value(verdicts).expect("verdicts serialize"),
                Err(message) => serde_json::json!({ "error": message }),
            },
        )
        .collect();
    Ok(serde_json::Value::Array(outcomes).to_string())
}

/// The verdicts a shard sent back.
pub(super) fn parse(json: &serde_json::Value) -> Result<Outcomes, String> {
    let items = json.as_array().ok_or("a shard's result is not an array")?;
    items
        .iter()
        .map(|item| match item.get("error").and_then(|e| e.as_str()) {
            Some(message) => Ok(Err(message.to_string())),
            None => serde_json::from_value(item.clone())
                .map(Ok)
                .map_err(|e| format!("a shard's verdicts do not read: {e}")),
        })
        .collect()
}
