//! The overheads of a profile as the analysis charges them: each cost at one quantile of its
//! measured distribution (a fixed cost is its own value at every quantile).

use crate::nanos;
use kairos_model::{Cost, Duration, ExecutionLoss, Overheads, RtThrottle};
use serde::Serialize;

/// Which point of each measured distribution the analysis charges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantile {
    /// The 99th percentile: tighter, but one event in a hundred costs more than charged, so a
    /// set accepted with it can miss on a bad day; say so when you use it.
    P99,
    /// The 99.9th percentile, between the two. Chosen over a maximum of the samples no host
    /// stall overlapped because (1) the dispatcher's histograms keep no sample's instant, so
    /// that maximum would need every sample timed in the dispatcher's hot path, and (2) the
    /// stall watcher reports only holes above its floor (500 us, this machine's p99.9 timer
    /// lateness), so such a "stall-free" maximum would still hold host holes below the floor:
    /// it would be neither free of the host nor tighter in kind. The 99.9th percentile is the
    /// same cut the watcher's floor makes: what exceeds the charge is one event in a thousand,
    /// and a host hole of that size is what the attribution weighs as a stall. Profiles from
    /// before it was measured have none; their readers refuse it ([`Quantile::profile_key`]).
    P999,
    /// The largest cost measured: the safe choice, and the default.
    #[default]
    Max,
}

impl Quantile {
    /// `p99`, `p999` or `max`.
    pub fn parse(text: &str) -> Result<Quantile, String> {
        match text {
            "p99" => Ok(Quantile::P99),
            "p999" => Ok(Quantile::P999),
            "max" => Ok(Quantile::Max),
            other => Err(format!(
                "unknown overhead quantile {other:?}: expected p99, p999 or max"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Quantile::P99 => "p99",
            Quantile::P999 => "p999",
            Quantile::Max => "max",
        }
    }

    /// The key a profile's distributions need for this quantile when not every profile has it
    /// (`kairos_model::input::load_overheads_charging` refuses a profile without it).
    pub fn profile_key(self) -> Option<&'static str> {
        (self == Quantile::P999).then_some(kairos_model::overheads::P999_KEY)
    }

    /// `overheads` with each measured distribution cut at this quantile: what the analysis
    /// charging it assumes no cost exceeds. A simulation charging the result is the schedule
    /// the overhead-aware verdict promises, the baseline a real run's misses are weighed
    /// against; fixed costs, the throttling and the execution loss are unchanged.
    pub fn cap(self, overheads: &Overheads) -> Overheads {
        let cut = |cost: Cost| match cost {
            Cost::Fixed(_) => cost,
            Cost::Measured(q) => Cost::Measured(q.capped(self.of(cost))),
        };
        Overheads {
            scheduling: cut(overheads.scheduling),
            context_switch: cut(overheads.context_switch),
            migration: cut(overheads.migration),
            release: cut(overheads.release),
            release_latency: cut(overheads.release_latency),
            ipi: cut(overheads.ipi),
            part_callback: cut(overheads.part_callback),
            rt_throttle: overheads.rt_throttle,
            execution_loss: overheads.execution_loss,
        }
    }

    /// A distribution without the 99.9th percentile is charged its maximum, the safe side:
    /// only a caller that skipped the profile readers' check gets there.
    fn of(self, cost: Cost) -> Duration {
        match (cost, self) {
            (Cost::Fixed(d), _) => d,
            (Cost::Measured(q), Quantile::P99) => q.p99,
            (Cost::Measured(q), Quantile::P999) => q.p999.unwrap_or(q.max),
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
    /// The kernel's real-time throttling on the measured machine, if it throttles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_throttle: Option<RtThrottle>,
    /// `ℓ`: the share of a running job's wall time the machine keeps from its work, in parts
    /// per million.
    #[serde(
        rename = "execution_loss_ppm",
        skip_serializing_if = "ExecutionLoss::is_zero"
    )]
    pub execution_loss: ExecutionLoss,
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
            rt_throttle: overheads.rt_throttle,
            execution_loss: overheads.execution_loss,
        }
    }

    /// `σ (1 - ℓ)`: the share of a core real-time jobs' work may fill. `σ` is 1, or the
    /// throttling's runtime over its period; of the wall time a job holds its core, it works
    /// `1 - ℓ` ([`ExecutionLoss`]). Exactly 1 without either.
    pub fn work_share(&self) -> f64 {
        self.rt_throttle.map_or(1.0, |t| t.share()) * self.execution_loss.kept()
    }
}
