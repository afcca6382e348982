//! Resource supply: the least processor time a resource is guaranteed to give in any window of
//! a given length, behind one trait so the component tests ([`super::edf`], [`super::gedf`])
//! take any resource, and a later one (an overhead-aware supply, say) plugs in unchanged.
//!
//! - [`Prm`]: Shin and Lee, "Periodic resource model for compositional real-time guarantees"
//!   (RTSS 2003), section 4.1, the supply bound function of Γ = (Π, Θ) on one processor,
//!   `sbf(t) = n Θ + max(0, t - 2(Π - Θ) - n Π)` with `n = ⌊(t - (Π - Θ)) / Π⌋`.
//! - [`Mpr`]: Easwaran, Shin and Lee, "Optimal virtual cluster-based multiprocessor
//!   scheduling" (Real-Time Systems 43(1), 2009), section 4.1: the sbf of μ = ⟨Π, Θ, m'⟩
//!   (Equation (1)) and its linear lower bound (Equation (2)), in the integer-time form
//!   [`Mpr`]'s documentation gives.
//!
//! The unit tests prove both sbfs equal, on small integers, to the worst case over every
//! placement of the supply, and the linear bounds below them.

mod mpr;
mod prm;
#[cfg(test)]
mod tests;

pub use mpr::Mpr;
pub use prm::Prm;

use kairos_model::Duration;

/// A resource whose supply in every window is bounded from below by a function of the
/// window's length alone (`sbf`), periodic with [`Supply::period`].
pub trait Supply {
    /// The least supply in any window of length `t`: nondecreasing in `t`.
    fn sbf(&self, t: Duration) -> Duration;

    /// Processors' worth of supply in the long run (Θ/Π).
    fn bandwidth(&self) -> f64;

    /// Where the linear lower bound `lsbf(t) = bandwidth() (t - linear_intercept())` crosses
    /// the time axis, in nanoseconds: `lsbf(t) <= sbf(t)` for every `t`. The tests use it to
    /// bound the windows they must check.
    fn linear_intercept(&self) -> f64;

    /// The supply's period Π: the sbf repeats its shape every Π.
    fn period(&self) -> Duration;

    /// Processors the supply may use at once (m'); 1 for a uniprocessor resource.
    fn parallelism(&self) -> u64;

    /// Calls `check` on every integer instant of `[from, to]` where `sbf` may change slope or
    /// jump (a superset does no harm), in increasing order, while it holds; whether it held
    /// everywhere. Between two of them `sbf` is linear, which the gEDF test's choice of
    /// instants relies on.
    fn visit_kinks(
        &self,
        from: Duration,
        to: Duration,
        check: &mut dyn FnMut(Duration) -> bool,
    ) -> bool;
}
