//! The multiprocessor periodic resource of Easwaran, Shin and Lee, "Optimal virtual
//! cluster-based multiprocessor scheduling" (Real-Time Systems 43(1), 2009), section 4.1.
//!
//! In integer time the published sbf (Equation (1)) needs care: with β = Θ - m'⌊Θ/m'⌋ equal to
//! 0 the correction uses β = m', it vanishes when ⌊Θ/m'⌋ = 0, and the result is clamped at 0;
//! the linear bound (Equation (2)) keeps its `- 2`. [`Mpr`]'s [`Supply::sbf`] is that form;
//! the unit tests prove it equal to the worst case over every placement of the supply (periods
//! are independent, so the least supply inside a window is the sum, per period it meets, of
//! what cannot be pushed out of it) and prove the linear bound below it.

use super::Supply;
use kairos_model::Duration;
use serde::Serialize;

/// A multiprocessor periodic resource ⟨Π, Θ, m'⟩: `budget` in every `period`, on at most
/// `parallelism` processors at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mpr {
    #[serde(serialize_with = "crate::nanos::one")]
    pub period: Duration,
    #[serde(serialize_with = "crate::nanos::one")]
    pub budget: Duration,
    /// m': a count of processors, not a time.
    pub parallelism: u64,
}

impl Mpr {
    /// ⟨Π, Θ, m'⟩; `None` unless `0 < Π`, `1 <= m'` and `Θ <= m' Π` (a resource cannot give
    /// more than its processors hold).
    pub fn new(period: Duration, budget: Duration, parallelism: u64) -> Option<Mpr> {
        let fits = !period.is_zero()
            && parallelism > 0
            && period
                .checked_mul(parallelism)
                .is_some_and(|full| budget <= full);
        fits.then_some(Mpr {
            period,
            budget,
            parallelism,
        })
    }

    /// (Π, Θ, m') in nanoseconds, for the formulas.
    fn nanos(&self) -> (u64, u64, u64) {
        (
            self.period.as_nanos(),
            self.budget.as_nanos(),
            self.parallelism,
        )
    }

    /// Equation (1) in integer time, on nanoseconds.
    fn sbf_ns(&self, t: u64) -> u64 {
        let (pi, theta, m) = self.nanos();
        if theta == 0 {
            return 0;
        }
        // The longest blackout: the supply came as early as it could in one period and comes
        // as late as it can in the next.
        let Some(shifted) = t.checked_sub(pi - theta.div_ceil(m)) else {
            return 0;
        };
        let alpha = theta / m;
        let beta = match theta % m {
            0 => m,
            b => b,
        };
        let (k, x) = (shifted / pi, shifted % pi);
        let s = k * theta + (m * x).saturating_sub(m * pi - theta);
        let inside = (1..=pi - alpha).contains(&x);
        if inside || alpha == 0 {
            s
        } else {
            s.saturating_sub(m - beta)
        }
    }
}

impl Supply for Mpr {
    fn sbf(&self, t: Duration) -> Duration {
        Duration::from_nanos(self.sbf_ns(t.as_nanos()))
    }

    fn bandwidth(&self) -> f64 {
        self.budget.as_nanos() as f64 / self.period.as_nanos() as f64
    }

    /// Equation (2), `lsbf(t) = (Θ/Π)(t - 2(Π - Θ/m') - 2)`: the intercept `2(Π - Θ/m') + 2`.
    fn linear_intercept(&self) -> f64 {
        let (pi, theta, m) = self.nanos();
        2.0 * (pi as f64 - theta as f64 / m as f64) + 2.0
    }

    fn period(&self) -> Duration {
        self.period
    }

    fn parallelism(&self) -> u64 {
        self.parallelism
    }

    /// Per period from the first rise of the supply, the offsets where Equation (1) changes
    /// piece, with the integer on each side.
    fn visit_kinks(
        &self,
        from: Duration,
        to: Duration,
        check: &mut dyn FnMut(Duration) -> bool,
    ) -> bool {
        let (pi, theta, m) = self.nanos();
        let (lo, hi) = (from.as_nanos(), to.as_nanos());
        let start = pi - theta.div_ceil(m);
        let alpha = theta / m;
        let drop = pi - theta / m;
        let first = lo.saturating_sub(start) / pi;
        let periods = hi.saturating_sub(start) / pi + 1;
        // `drop` is where the supply starts rising again within a period, Π - Θ/m' rounded up;
        // when Θ/m' is not whole the rise begins between two integers, and the integer before
        // it (Π - ⌈Θ/m'⌉) is a kink of the sbf on integers too.
        let mut offsets = [
            0,
            1,
            pi - alpha,
            pi - alpha + 1,
            pi - theta.div_ceil(m),
            drop,
            drop + 1,
            pi - 1,
        ];
        offsets.sort_unstable();
        let mut at = |t: u64| check(Duration::from_nanos(t));
        [start.saturating_sub(1), start].into_iter().all(&mut at)
            && (first..periods).all(|j| offsets.iter().all(|&x| at(start + j * pi + x)))
    }
}
