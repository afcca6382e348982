//! The periodic resource model of Shin and Lee, "Periodic resource model for compositional
//! real-time guarantees" (RTSS 2003), section 4.1: Γ = (Π, Θ) gives Θ time units in every
//! period Π on one processor, at any time within the period.

use super::{Mpr, Supply};
use kairos_model::Duration;
use serde::Serialize;

/// A periodic resource Γ = (Π, Θ) of one processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Prm {
    #[serde(serialize_with = "crate::nanos::one")]
    pub period: Duration,
    #[serde(serialize_with = "crate::nanos::one")]
    pub budget: Duration,
}

impl Prm {
    /// (Π, Θ); `None` unless `0 < Π` and `Θ <= Π`.
    pub fn new(period: Duration, budget: Duration) -> Option<Prm> {
        (!period.is_zero() && budget <= period).then_some(Prm { period, budget })
    }

    /// The same resource as the MPR ⟨Π, Θ, 1⟩ (the two sbfs agree; tested).
    pub fn as_mpr(&self) -> Mpr {
        Mpr::new(self.period, self.budget, 1).expect("Θ <= Π")
    }
}

impl Supply for Prm {
    /// `sbf(t) = n Θ + max(0, t - 2(Π - Θ) - n Π)`, `n = ⌊(t - (Π - Θ)) / Π⌋`, and 0 before the
    /// first blackout `Π - Θ` ends.
    fn sbf(&self, t: Duration) -> Duration {
        let (pi, theta, t) = (self.period.as_nanos(), self.budget.as_nanos(), t.as_nanos());
        let Some(shifted) = t.checked_sub(pi - theta) else {
            return Duration::ZERO;
        };
        let n = shifted / pi;
        // t - 2(Π - Θ) - nΠ = (shifted - nΠ) - (Π - Θ): the part of the last period past its
        // blackout.
        let last = (shifted - n * pi).saturating_sub(pi - theta);
        Duration::from_nanos(n * theta + last)
    }

    fn bandwidth(&self) -> f64 {
        self.budget.as_nanos() as f64 / self.period.as_nanos() as f64
    }

    /// Shin and Lee's bound `(Θ/Π)(t - 2(Π - Θ))` lowered to the MPR's of parallelism 1,
    /// `(Θ/Π)(t - 2(Π - Θ) - 2)`, so that a PRM and that MPR answer every test alike.
    fn linear_intercept(&self) -> f64 {
        self.as_mpr().linear_intercept()
    }

    fn period(&self) -> Duration {
        self.period
    }

    fn parallelism(&self) -> u64 {
        1
    }

    fn visit_kinks(
        &self,
        from: Duration,
        to: Duration,
        check: &mut dyn FnMut(Duration) -> bool,
    ) -> bool {
        self.as_mpr().visit_kinks(from, to, check)
    }
}
