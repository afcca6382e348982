//! MC-DAG samples of an experiment: generate a system at normalized utilization `U / m`, run
//! every synthesis method, and count each accepted table set's preemptions and migrations
//! (the reference benchmark protocol of notes/mixed-criticality.md).
//!
//! Every accepted table set is also checked by the independent validator: a table the
//! synthesizer accepts but the validator rejects is a bug, reported as an error, never counted.

use super::config::{Config, McMethod, Method};
use super::results::QualitySum;
use super::sample::Verdict;
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_mc::{federated, synthesize, SynthFailure, SynthOptions, Synthesis};
use kairos_model::McSystem;

/// The verdict of every (synthesis) method on one generated system.
pub(super) fn run_sample(
    config: &Config,
    params: &McDagParams,
    seed: u64,
    normalized_utilization: f64,
) -> Result<Vec<Verdict>, String> {
    let params = McDagParams {
        utilization: normalized_utilization * config.cores as f64,
        cores: config.cores,
        seed,
        ..params.clone()
    };
    let system = generate_mcdag(&params).map_err(|e| format!("MC-DAG generator: {e}"))?;
    config
        .methods
        .iter()
        .map(|method| match method {
            Method::Synth(mc) => verdict(&system, *mc, config.cores),
            _ => Err("MC-DAG experiments only take synthesis methods".to_string()),
        })
        .collect()
}

fn verdict(system: &McSystem, method: McMethod, cores: usize) -> Result<Verdict, String> {
    let options = |policy| SynthOptions {
        policy,
        cores: Some(cores),
    };
    let outcome: Result<Synthesis, SynthFailure> = match method {
        McMethod::Gmh(policy) => synthesize(system, &options(policy)),
        McMethod::Federated => federated(system, &options(kairos_mc::Policy::Gedzl)),
    };
    let Ok(synthesis) = outcome else {
        return Ok(Verdict::plain(false));
    };
    let report = kairos_validate::validate(system, &synthesis.tables);
    if !report.is_valid() {
        return Err(format!(
            "BUG: the validator rejects tables the synthesizer accepted for system {:?}: {:?}",
            system.name,
            report.counts()
        ));
    }
    let total = &synthesis.quality.total;
    Ok(Verdict {
        accepted: true,
        inconclusive: false,
        quality: Some(QualitySum {
            jobs: total.jobs,
            preemptions: total.preemptions,
            migrations: total.migrations,
        }),
        qos: None,
    })
}
