//! RandFixedSum: vectors uniform on the slice `{a <= x_i <= b, sum x = s}` of a cube.
//!
//! - R. Stafford, "Random Vectors with Fixed Sum", MATLAB Central File Exchange 9700, 2006
//!   (the algorithm and its explanation in the file's comments).
//! - P. Emberson, R. Stafford and R. I. Davis, "Techniques For The Synthesis Of
//!   Multiprocessor Tasksets", WATERS 2010, Section 3 (its use for utilizations with
//!   `u_i <= 1`).
//!
//! How it works. Rescale to the unit cube: `s' = (s - n a) / (b - a)` in `[0, n]`, and let
//! `k = floor(s')` (at most `n - 1`). The slice `{x in [0,1]^n, sum x = s'}` is a union of
//! simplices, one per walk through the cube's unit cells. The sampler
//! 1. builds, for every dimension `i = 2..n`, the `(n-1)`-volumes `w(i, j)` of the slices of
//!    `[0,1]^i` at sum `s' - k + j - 1` (the cardinal B-spline recursion
//!    `w(i, j+1) = (s1_j w(i-1, j+1) + s2_j w(i-1, j)) / i`, a convex combination since
//!    `s1_j + s2_j = i`), and from them the transition probabilities
//!    `t(i-1, j) = s2_j w(i-1, j) / (i w(i, j+1))`: the share of the slice's volume lying in
//!    the cell where the coordinate stays below its unit step;
//! 2. walks back from dimension `n` to 1: at each step a coin with probability `t` picks the
//!    cell (the coordinate's integer part `e` in {0, 1}), and `sx = r^(1/i)` (distributed as
//!    the largest of `i` uniforms) places the point uniformly inside the chosen simplex,
//!    through a running sum `sm` and product `pr` of these factors;
//! 3. permutes the coordinates at random (the walk orders them; the permutation makes every
//!    position equally distributed) and maps `[0,1]` back to `[a, b]`.
//!
//! Differences from Stafford's MATLAB code, none of them changing the distribution:
//! 1. Each row of `w` is divided by its maximum instead of starting from `realmax`. Only the
//!    ratios within a row enter `t`, so the table is the same, and it no longer underflows
//!    for `n` above about 170.
//! 2. Coins are `r < t` with `r` in `[0,1)` (MATLAB: `r <= t` with `r` in `(0,1)`), so a
//!    probability of exactly 0 or 1 is honoured.
//! 3. The volume of the polytope is not returned.
//! 4. Roots use [`crate::portable_math::pow`] and the permutation is Fisher-Yates with
//!    unbiased integers, so a seed gives the same bits on every machine.

use crate::error::GenError;
use crate::portable_math::pow;
use crate::rng::{shuffle, unit_f64, ChaCha8Rng};

/// The smallest positive double, Stafford's guard against 0/0 where both volumes vanish.
const TINY: f64 = f64::from_bits(1);

/// A prepared RandFixedSum sampler for one `(n, s, a, b)`: the O(n^2) table is built once,
/// each vector costs O(n).
#[derive(Clone, Debug)]
pub struct RandFixedSum {
    n: usize,
    lo: f64,
    hi: f64,
    /// Target sum in unit-cube coordinates, `k <= s <= k + 1`.
    s: f64,
    k: usize,
    /// `t[(i - 1) * n + j]`: the chance that the walk at dimension `i + 1`, column `j`, steps
    /// down (row `i - 1` belongs to dimension `i + 1`).
    t: Vec<f64>,
}

impl RandFixedSum {
    /// Prepares sampling of `n` values in `[lo, hi]` summing to `total`.
    ///
    /// A `total` outside `[n lo, n hi]` by more than a relative 1e-12 is
    /// [`GenError::Infeasible`]; within that tolerance it is clamped.
    pub fn new(n: usize, total: f64, lo: f64, hi: f64) -> Result<RandFixedSum, GenError> {
        if n == 0 {
            return Err(GenError::invalid("n", n, "at least one value"));
        }
        for (name, v) in [("total", total), ("lo", lo), ("hi", hi)] {
            if !v.is_finite() {
                return Err(GenError::invalid(name, v, "a finite number"));
            }
        }
        if lo > hi {
            return Err(GenError::invalid("lo", lo, "lo <= hi"));
        }
        let nf = n as f64;
        let slack = 1e-12 * (nf * hi.abs().max(lo.abs())).max(1.0);
        if total < nf * lo - slack || total > nf * hi + slack {
            return Err(GenError::Infeasible(format!(
                "{n} values in [{lo}, {hi}] cannot sum to {total}"
            )));
        }
        let s = if hi > lo {
            ((total - nf * lo) / (hi - lo)).clamp(0.0, nf)
        } else {
            0.0
        };
        let k = (s.floor() as usize).min(n - 1);
        let s = s.clamp(k as f64, k as f64 + 1.0);
        let t = transition_table(n, s, k);
        Ok(RandFixedSum { n, lo, hi, s, k, t })
    }

    /// One vector: `n` values in `[lo, hi]` summing to `total` (to rounding), uniform on that
    /// set.
    pub fn sample(&self, rng: &mut ChaCha8Rng) -> Vec<f64> {
        let n = self.n;
        if n == 1 || self.hi == self.lo {
            return vec![self.lo + (self.hi - self.lo) * self.s; n];
        }
        let mut x = vec![0.0; n];
        let (mut s, mut j) = (self.s, self.k);
        let (mut sm, mut pr) = (0.0, 1.0);
        for i in (1..n).rev() {
            let step_down = unit_f64(rng) < self.t[(i - 1) * n + j] && j > 0;
            let sx = pow(unit_f64(rng), 1.0 / i as f64);
            sm += (1.0 - sx) * pr * s / (i + 1) as f64;
            pr *= sx;
            x[n - i - 1] = sm + if step_down { pr } else { 0.0 };
            if step_down {
                s -= 1.0;
                j -= 1;
            }
        }
        x[n - 1] = sm + pr * s;
        shuffle(rng, &mut x);
        let width = self.hi - self.lo;
        for v in &mut x {
            *v = (self.lo + width * *v).clamp(self.lo, self.hi);
        }
        x
    }
}

/// Stafford's table `t`, from the volumes `w` of the lower dimensions (step 1 above).
fn transition_table(n: usize, s: f64, k: usize) -> Vec<f64> {
    let kf = k as f64;
    let mut t = vec![0.0; n.saturating_sub(1) * n];
    let mut w_prev = vec![0.0; n + 1];
    w_prev[1] = 1.0;
    let mut w = vec![0.0; n + 1];
    for i in 2..=n {
        let fi = i as f64;
        w.fill(0.0);
        for j in 0..i {
            let s1 = s - kf + j as f64; // distance above the j-th lower knot
            let s2 = kf + fi - j as f64 - s; // distance below the matching upper knot
            let tmp1 = w_prev[j + 1] * s1 / fi;
            let tmp2 = w_prev[j] * s2 / fi;
            w[j + 1] = tmp1 + tmp2;
            let tmp3 = w[j + 1] + TINY;
            // Same value either way; each form is the accurate one on its side.
            t[(i - 2) * n + j] = if s2 > s1 {
                tmp2 / tmp3
            } else {
                1.0 - tmp1 / tmp3
            };
        }
        let max = w.iter().copied().fold(0.0, f64::max);
        if max > 0.0 {
            w.iter_mut().for_each(|v| *v /= max);
        }
        std::mem::swap(&mut w, &mut w_prev);
    }
    t
}

/// `n` values in `[lo, hi]` summing to `total`, uniform on that set (Stafford 2006).
///
/// For many vectors with the same parameters, build a [`RandFixedSum`] once.
pub fn randfixedsum(
    rng: &mut ChaCha8Rng,
    n: usize,
    total: f64,
    lo: f64,
    hi: f64,
) -> Result<Vec<f64>, GenError> {
    Ok(RandFixedSum::new(n, total, lo, hi)?.sample(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;

    #[test]
    fn degenerate_cases() {
        let rng = &mut seeded(1);
        assert_eq!(randfixedsum(rng, 1, 0.4, 0.0, 1.0).unwrap(), vec![0.4]);
        assert_eq!(randfixedsum(rng, 3, 1.5, 0.5, 0.5).unwrap(), vec![0.5; 3]);
        assert_eq!(randfixedsum(rng, 3, 3.0, 0.0, 1.0).unwrap(), vec![1.0; 3]);
        assert_eq!(randfixedsum(rng, 3, 0.0, 0.0, 1.0).unwrap(), vec![0.0; 3]);
    }

    #[test]
    fn rejects_infeasible_and_invalid() {
        let rng = &mut seeded(1);
        assert!(matches!(
            randfixedsum(rng, 3, 3.5, 0.0, 1.0),
            Err(GenError::Infeasible(_))
        ));
        assert!(randfixedsum(rng, 3, 0.5, 0.2, 1.0).is_err());
        assert!(randfixedsum(rng, 0, 0.5, 0.0, 1.0).is_err());
        assert!(randfixedsum(rng, 3, 0.5, 1.0, 0.0).is_err());
        assert!(randfixedsum(rng, 3, f64::NAN, 0.0, 1.0).is_err());
    }

    #[test]
    fn large_n_does_not_underflow() {
        let v = randfixedsum(&mut seeded(5), 600, 300.0, 0.0, 1.0).unwrap();
        assert!((v.iter().sum::<f64>() - 300.0).abs() < 1e-9);
        assert!(v.iter().all(|x| (0.0..=1.0).contains(x)));
        let spread = v.iter().copied().fold(0.0, f64::max) - v.iter().copied().fold(1.0, f64::min);
        assert!(
            spread > 0.9,
            "values should cover the range, spread {spread}"
        );
    }
}
