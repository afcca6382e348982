//! The overheads of a profile as the analysis charges them: each cost at one quantile of its
//! measured distribution (a fixed cost is its own value at every quantile).

use crate::nanos;
use kairos_model::{Cost, Duration, Overheads};
use serde::Serialize;

/// Which point of each measured distribution the analysis charges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantile {
    /// The 99th percentile: tighter, but one event in a hundred costs more than charged, so a
    /// set accepted with it can miss on a bad day; say so when you use it.
    P99,
    /// The largest cost measured: the safe choice, and the default.
    #[default]
    Max,
}

impl Quantile {
    /// `p99` or `max`.
    pub fn parse(text: &str) -> Result<Quantile, String> {
        match text {
            "p99" => Ok(Quantile::P99),
            "max" => Ok(Quantile::Max),
            other => Err(format!(
                "unknown overhead quantile {other:?}: expected p99 or max"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Quantile::P99 => "p99",
            Quantile::Max => "max",
        }
    }

    fn of(self, cost: Cost) -> Duration {
        match (cost, self) {
            (Cost::Fixed(d), _) => d,
            (Cost::Measured(q), Quantile::P99) => q.p99,
            (Cost::Measured(q), Quantile::Max) => q.max,
        }
    }
}

/// One duration per overhead (the roles are in [`super`]'s doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Charges {
    /// `Δrel`: the pass that handles a release.
    #[serde(serialize_with = "nanos::one")]
    pub release: Duration,
    /// `Δev`: how late a release is handled.
    #[serde(serialize_with = "nanos::one")]
    pub release_latency: Duration,
    /// `Δsch`: one decision.
    #[serde(serialize_with = "nanos::one")]
    pub scheduling: Duration,
    /// `Δcxs`: the decision to the chosen job running.
    #[serde(serialize_with = "nanos::one")]
    pub context_switch: Duration,
    /// `Δcpmd` under global policies: what resuming on another core adds.
    #[serde(serialize_with = "nanos::one")]
    pub migration: Duration,
    /// `Δipi`: a doorbell to another core.
    #[serde(serialize_with = "nanos::one")]
    pub ipi: Duration,
    /// `Δpart`: the policy's callback at a part boundary of an imprecise job.
    #[serde(serialize_with = "nanos::one")]
    pub part_callback: Duration,
}

impl Charges {
    /// Every cost of `overheads` at `quantile`.
    pub fn at(overheads: &Overheads, quantile: Quantile) -> Charges {
        let q = |cost| quantile.of(cost);
        Charges {
            release: q(overheads.release),
            release_latency: q(overheads.release_latency),
            scheduling: q(overheads.scheduling),
            context_switch: q(overheads.context_switch),
            migration: q(overheads.migration),
            ipi: q(overheads.ipi),
            part_callback: q(overheads.part_callback),
        }
    }
}
