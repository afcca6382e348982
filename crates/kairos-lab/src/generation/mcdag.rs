//! A generated mixed-criticality DAG system written as kairos TOML or JSON, or as the MC-DAG
//! framework's XML, by the output file's extension.

use crate::Failure;
use kairos_model::{Duration, McSystem};
use std::path::Path;

/// `system` in the format `out`'s extension names (TOML without one); the TOML starts with
/// `header` (how the system was made) and the utilization per level.
pub fn render(
    system: &McSystem,
    out: Option<&Path>,
    slot: Duration,
    header: &str,
) -> Result<String, Failure> {
    let extension = (out.and_then(|p| p.extension())).map(|e| e.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("json") => Ok(kairos_model::mc_load::to_json(system)),
        Some("xml") => kairos_model::mcdag_xml::to_xml(system, slot).map_err(Failure::bad_input),
        Some(other) if other != "toml" => Err(Failure::bad_input(format!(
            "--mcdag writes one system to .toml, .json or .xml, not .{other}"
        ))),
        _ => {
            let utilization: Vec<String> = (0..system.level_count())
                .map(|l| format!("{:.4}", system.utilization_at(l)))
                .collect();
            let per_level = utilization.join(", ");
            let toml = kairos_model::mc_load::to_toml(system);
            Ok(format!(
                "{header} (utilization per level {per_level})\n{toml}"
            ))
        }
    }
}
