//! Federated baseline (placeholder while written).
use crate::{SynthFailure, SynthOptions, Synthesis};
use kairos_model::McSystem;

/// Federated scheduling.
pub fn federated(system: &McSystem, options: &SynthOptions) -> Result<Synthesis, SynthFailure> {
    crate::synthesize(system, options)
}
