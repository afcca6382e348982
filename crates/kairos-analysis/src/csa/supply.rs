//! Resource supply of a periodic (PRM) or multiprocessor periodic (MPR) resource: the least
//! processor time it is guaranteed to give in any window of a given length.
//!
//! - Shin and Lee, "Periodic resource model for compositional real-time guarantees" (RTSS
//!   2003), section 4: the supply bound function of Γ = (Π, Θ) on one processor,
//!   `sbf(t) = n Θ + max(0, t - 2(Π - Θ) - n Π)` with `n = ⌊(t - (Π - Θ)) / Π⌋`.
//! - Easwaran, Shin and Lee, "Optimal virtual cluster-based multiprocessor scheduling"
//!   (Real-Time Systems 43(1), 2009), section 4.1: the sbf of μ = ⟨Π, Θ, m'⟩ and its linear
//!   lower bound. In integer time the published form needs care: with β = Θ - m'⌊Θ/m'⌋ equal
//!   to 0 the correction uses β = m', it vanishes when ⌊Θ/m'⌋ = 0, and the result is clamped
//!   at 0; the linear bound keeps its `- 2`. [`Mpr::sbf`] is that form; the unit tests prove it
//!   equal to the worst case over every placement of the supply (periods are independent, so
//!   the least supply inside a window is the sum, per period it meets, of what cannot be pushed
//!   out of it) and prove the linear bound below it.
//!
//! A PRM is the MPR of parallelism 1 (the two formulas agree; tested), so one type serves both.

use serde::Serialize;

/// A multiprocessor periodic resource ⟨Π, Θ, m'⟩ (a PRM when `parallelism` is 1): `budget`
/// time units in every `period`, on at most `parallelism` processors at once. Nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mpr {
    pub period: u64,
    pub budget: u64,
    pub parallelism: u64,
}

impl Mpr {
    /// ⟨Π, Θ, m'⟩; `None` unless `0 < Π`, `1 <= m'` and `Θ <= m' Π` (a resource cannot give
    /// more than its processors hold).
    pub fn new(period: u64, budget: u64, parallelism: u64) -> Option<Mpr> {
        let fits = period > 0
            && parallelism > 0
            && parallelism
                .checked_mul(period)
                .is_some_and(|full| budget <= full);
        fits.then_some(Mpr {
            period,
            budget,
            parallelism,
        })
    }

    /// The periodic resource Γ = (Π, Θ) of one processor.
    pub fn prm(period: u64, budget: u64) -> Option<Mpr> {
        Mpr::new(period, budget, 1)
    }

    /// Θ / Π: processors' worth of supply in the long run.
    pub fn bandwidth(&self) -> f64 {
        self.budget as f64 / self.period as f64
    }

    /// The least supply in any window of length `t`.
    pub fn sbf(&self, t: u64) -> u64 {
        let (pi, theta, m) = (self.period, self.budget, self.parallelism);
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

    /// Where the linear lower bound `lsbf(t) = (Θ/Π)(t - 2(Π - Θ/m') - 2)` crosses the time
    /// axis: `2(Π - Θ/m') + 2`.
    pub fn linear_intercept(&self) -> f64 {
        let m = self.parallelism as f64;
        2.0 * (self.period as f64 - self.budget as f64 / m) + 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least supply in a window of length `t` over every placement of Θ per period on at
    /// most m' processors and every window start: each period the window meets gives at least
    /// what m' processors cannot fit outside the window.
    pub(crate) fn brute_sbf(pi: u64, theta: u64, m: u64, t: u64) -> u64 {
        (0..pi)
            .map(|start| {
                let end = start + t;
                (0..end.div_ceil(pi))
                    .map(|j| {
                        let inside = end.min((j + 1) * pi) - start.max(j * pi);
                        theta.saturating_sub(m * (pi - inside))
                    })
                    .sum::<u64>()
            })
            .min()
            .expect("a period has a start")
    }

    fn shin_lee(pi: u64, theta: u64, t: u64) -> u64 {
        if t < pi - theta {
            return 0;
        }
        let n = (t - (pi - theta)) / pi;
        n * theta + t.saturating_sub(2 * (pi - theta) + n * pi)
    }

    fn small_resources() -> impl Iterator<Item = (u64, u64, u64)> {
        (1..=9u64).flat_map(|pi| {
            (1..=3u64).flat_map(move |m| (0..=m * pi).map(move |theta| (pi, theta, m)))
        })
    }

    #[test]
    fn sbf_is_the_worst_case_supply_on_small_integers() {
        let mut cases = 0;
        for (pi, theta, m) in small_resources() {
            let r = Mpr::new(pi, theta, m).unwrap();
            for t in 0..=5 * pi {
                assert_eq!(r.sbf(t), brute_sbf(pi, theta, m, t), "{r:?} t={t}");
                cases += 1;
            }
        }
        assert!(cases > 5000);
    }

    #[test]
    fn the_prm_formula_is_the_mpr_one_on_one_processor() {
        for pi in 1..=12 {
            for theta in 0..=pi {
                for t in 0..=5 * pi {
                    let prm = Mpr::prm(pi, theta).unwrap();
                    assert_eq!(prm.sbf(t), shin_lee(pi, theta, t), "Π={pi} Θ={theta} t={t}");
                }
            }
        }
    }

    #[test]
    fn the_linear_bound_stays_below_the_supply() {
        for (pi, theta, m) in small_resources() {
            let r = Mpr::new(pi, theta, m).unwrap();
            for t in 0..=6 * pi {
                let lsbf = r.bandwidth() * (t as f64 - r.linear_intercept());
                assert!(lsbf <= r.sbf(t) as f64 + 1e-9, "{r:?} t={t}");
            }
        }
    }

    #[test]
    fn a_resource_cannot_hold_more_than_its_processors() {
        assert!(Mpr::new(10, 21, 2).is_none());
        assert!(Mpr::new(0, 0, 1).is_none());
        assert!(Mpr::new(10, 5, 0).is_none());
        assert_eq!(Mpr::new(10, 20, 2).unwrap().sbf(7), 14);
    }
}
