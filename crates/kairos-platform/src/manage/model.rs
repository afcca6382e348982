//! The interference model of the OS-latency study (a model of intra- and inter-core
//! interference and OS-induced latencies in Linux PREEMPT_RT for mixed time-criticality),
//! section IV-B, equations 3-5: T_RT(z) = T_expected + I(z), and I(z) is the sum over the
//! cores of a function of the best-effort time assigned there, linear as the study's section
//! V-D measured, plus the interference that does not follow this period's shares (equation
//! 4's d_prev and any drift since T_expected was measured): I(z) = a + sum_c b_c u_c(z),
//! u_c = S_BE,c / P. Without `a`, every drift would be blamed on best-effort work and its
//! time cut for nothing.
//!
//! The slopes b_c (ns of extra RT time per core fully given to best-effort work) are learned
//! online by recursive least squares with exponential forgetting, started from a prior (the
//! slope `kairos platform interference` measured, or zero) whose weight is a few observations:
//! the prior settles slopes the data cannot yet separate (cores whose shares move together),
//! and forgetting follows best-effort programs whose behaviour changes.
//!
//! Best-effort work cannot make the RT core faster, so the model the manager uses keeps every
//! slope at zero or above: the least-squares fit under that constraint. It matters in closed
//! loop: the manager cuts a share when T_RT rises, so a rise that does not come from the share
//! (the host, the load's own phases) pairs high interference with small shares, and the plain
//! fit then finds that more best-effort time makes the RT job faster and hands out the whole
//! core (a run here learned -8.7 ms per full core and did). A hand-written (k x k)
//! update: the matrices have one row per best-effort core, and the closed-form update is ten
//! lines, smaller than the dependency a linear-algebra crate would add.

use std::collections::VecDeque;

/// Observations kept to report R².
const R2_WINDOW: usize = 100;

/// The learned linear model of I(z).
#[derive(Clone, Debug)]
pub struct InterferenceModel {
    /// a, then b_c (ns per core fully given to best-effort work): the unconstrained
    /// recursive estimate.
    theta: Vec<f64>,
    /// `theta` with every slope kept at zero or above ([`nonnegative`]): the model in use.
    fitted: Vec<f64>,
    /// The inverse-information matrix of recursive least squares, row-major (k+1) x (k+1).
    p: Vec<f64>,
    forgetting: f64,
    /// The trace of `p` under the prior, the bound forgetting may not inflate it past.
    prior_trace: f64,
    recent: VecDeque<(Vec<f64>, f64)>,
    observations: u64,
}

/// How much the prior counts: a prior variance of (prior_scale)^2 per slope.
#[derive(Clone, Copy, Debug)]
pub struct Prior {
    /// The prior value (a slope, or the intercept).
    pub slope_ns: f64,
    /// The slope's standard deviation under the prior (ns).
    pub spread_ns: f64,
}

impl InterferenceModel {
    /// A model for `priors.len()` cores, the intercept and each slope starting at its prior;
    /// `forgetting` in (0, 1]: the weight an observation keeps per newer one.
    pub fn new(intercept: Prior, priors: &[Prior], forgetting: f64) -> InterferenceModel {
        let all: Vec<Prior> = std::iter::once(intercept)
            .chain(priors.iter().copied())
            .collect();
        let k = all.len();
        let mut p = vec![0.0; k * k];
        for (i, prior) in all.iter().enumerate() {
            p[i * k + i] = prior.spread_ns.powi(2).max(1.0) / NOISE_NS.powi(2);
        }
        let theta: Vec<f64> = all.iter().map(|p| p.slope_ns).collect();
        InterferenceModel {
            fitted: nonnegative(&theta, &p),
            theta,
            forgetting,
            prior_trace: (0..k).map(|i| p[i * k + i]).sum(),
            p,
            recent: VecDeque::new(),
            observations: 0,
        }
    }

    /// The predicted interference (ns) for the shares `u` (each in [0, 1]).
    pub fn predict(&self, u: &[f64]) -> f64 {
        linear(&self.fitted, u)
    }

    /// Learns from one period: the shares it had and the interference measured.
    pub fn observe(&mut self, shares: &[f64], interference_ns: f64) {
        let u: Vec<f64> = std::iter::once(1.0).chain(shares.iter().copied()).collect();
        let k = self.theta.len();
        let px: Vec<f64> = (0..k)
            .map(|i| (0..k).map(|j| self.p[i * k + j] * u[j]).sum())
            .collect();
        let denominator = self.forgetting + u.iter().zip(&px).map(|(x, y)| x * y).sum::<f64>();
        let error = interference_ns - linear(&self.theta, shares);
        for (theta, gain) in self.theta.iter_mut().zip(&px) {
            *theta += gain / denominator * error;
        }
        for i in 0..k {
            for j in 0..k {
                self.p[i * k + j] -= px[i] * px[j] / denominator;
            }
        }
        // Forgetting inflates the uncertainty in directions the shares do not excite (a share
        // held constant); bounding the trace at the prior's stops that wind-up.
        let trace = |p: &[f64]| (0..k).map(|i| p[i * k + i]).sum::<f64>();
        if trace(&self.p) / self.forgetting <= self.prior_trace {
            self.p.iter_mut().for_each(|x| *x /= self.forgetting);
        }
        self.fitted = nonnegative(&self.theta, &self.p);
        self.observations += 1;
        self.recent.push_back((shares.to_vec(), interference_ns));
        if self.recent.len() > R2_WINDOW {
            self.recent.pop_front();
        }
    }

    /// b_c per core, zero or above.
    pub fn slopes(&self) -> &[f64] {
        &self.fitted[1..]
    }

    /// a: the interference that does not follow the shares.
    pub fn intercept(&self) -> f64 {
        self.fitted[0]
    }

    pub fn observations(&self) -> u64 {
        self.observations
    }

    /// Each slope's 95 % confidence half-width (ns): the residual variance of the recent
    /// observations times the slope's diagonal entry of `p` (the parameters' covariance over the
    /// noise variance), under Student's t. None until the window has more observations than
    /// parameters.
    pub fn slope_ci95(&self) -> Vec<Option<f64>> {
        let k = self.theta.len();
        let dof = self.recent.len() as f64 - k as f64;
        let residual = self.recent_residual();
        (1..k)
            .map(|c| {
                (dof >= 1.0)
                    .then(|| crate::fit::t_975(dof) * (residual / dof * self.p[c * k + c]).sqrt())
            })
            .collect()
    }

    /// R² of the current model on the recent observations (None before two of them, or when
    /// they do not vary).
    pub fn r2(&self) -> Option<f64> {
        let n = self.recent.len();
        if n < 2 {
            return None;
        }
        let mean = self.recent.iter().map(|(_, y)| y).sum::<f64>() / n as f64;
        let total: f64 = self.recent.iter().map(|(_, y)| (y - mean).powi(2)).sum();
        (total > 0.0).then(|| 1.0 - self.recent_residual() / total)
    }

    /// The current model's sum of squared errors on the recent observations.
    fn recent_residual(&self) -> f64 {
        (self.recent.iter())
            .map(|(u, y)| (y - self.predict(u)).powi(2))
            .sum()
    }
}

/// a + sum b_c u_c for `theta` = (a, b...).
fn linear(theta: &[f64], u: &[f64]) -> f64 {
    theta[0] + theta[1..].iter().zip(u).map(|(b, x)| b * x).sum::<f64>()
}

/// The least-squares estimate `theta` (of information matrix `p`⁻¹) with its negative slopes
/// held at zero: the most negative slope is fixed at zero and the others move as the
/// estimate's covariance says they must (the Gaussian conditional, theta - p e (e' p e)⁻¹ e'
/// theta), until none is negative. Exact for one core; with several, a greedy active set.
fn nonnegative(theta: &[f64], p: &[f64]) -> Vec<f64> {
    let k = theta.len();
    let (mut theta, mut p) = (theta.to_vec(), p.to_vec());
    while let Some(i) = (1..k)
        .filter(|&i| theta[i] < 0.0)
        .min_by(|&a, &b| theta[a].total_cmp(&theta[b]))
    {
        let pii = p[i * k + i];
        if pii <= 0.0 {
            theta[i] = 0.0;
            continue;
        }
        let column: Vec<f64> = (0..k).map(|j| p[j * k + i]).collect();
        let shift = theta[i] / pii;
        for j in 0..k {
            theta[j] -= column[j] * shift;
        }
        for r in 0..k {
            for c in 0..k {
                p[r * k + c] -= column[r] * column[c] / pii;
            }
        }
        // Exactly zero, whatever rounding left.
        theta[i] = 0.0;
    }
    theta
}

/// The scale of one observation's noise (job-to-job variation of tens of microseconds) that
/// the prior's variance is expressed against: the prior weighs (NOISE / spread)² observations.
/// Expressing it so keeps the update's subtraction well conditioned.
const NOISE_NS: f64 = 10_000.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn weak(slope_ns: f64) -> Prior {
        Prior {
            slope_ns,
            spread_ns: 1e7,
        }
    }

    /// A brute-force twin: ordinary least squares of a line, in closed form.
    fn ols(points: &[(f64, f64)]) -> (f64, f64) {
        let n = points.len() as f64;
        let (mx, my) = (
            points.iter().map(|p| p.0).sum::<f64>() / n,
            points.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
        let b = sxy / sxx;
        (my - b * mx, b)
    }

    #[test]
    fn without_forgetting_and_with_a_weak_prior_it_is_least_squares() {
        let points: Vec<(f64, f64)> = (1..40)
            .map(|i| {
                let x = (i % 7) as f64 / 7.0 + 0.1;
                (
                    x,
                    30_000.0 + 250_000.0 * x + ((i * 37) % 11) as f64 * 1000.0,
                )
            })
            .collect();
        let mut model = InterferenceModel::new(weak(0.0), &[weak(0.0)], 1.0);
        for (x, y) in &points {
            model.observe(&[*x], *y);
        }
        let (a, b) = ols(&points);
        assert!(
            (model.slopes()[0] - b).abs() < 1e-3 * b.abs(),
            "{} vs {b}",
            model.slopes()[0]
        );
        assert!(
            (model.intercept() - a).abs() < 1e-2 * a.abs(),
            "{} vs {a}",
            model.intercept()
        );
        assert!(model.r2().unwrap() > 0.9);
        // The slope's interval is ordinary least squares' too (an independent computation).
        let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
        let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
        let expected = crate::fit::least_squares(&xs, &ys).slope_ci95.unwrap();
        let ci = model.slope_ci95()[0].unwrap();
        assert!(
            (ci - expected).abs() < 1e-3 * expected,
            "{ci} vs {expected}"
        );
    }

    #[test]
    fn forgetting_follows_a_change_and_a_strong_prior_holds_against_little_data() {
        let mut model = InterferenceModel::new(weak(0.0), &[weak(0.0)], 0.9);
        for i in 0..100 {
            let u = 0.2 + 0.8 * (i % 2) as f64;
            model.observe(&[u], 400_000.0 * u);
        }
        assert!(
            (model.slopes()[0] - 400_000.0).abs() < 100.0,
            "{:?}",
            model.slopes()
        );
        for i in 0..100 {
            let u = 0.2 + 0.8 * (i % 2) as f64;
            model.observe(&[u], 10_000.0 * u);
        }
        assert!(
            (model.slopes()[0] - 10_000.0).abs() < 1_000.0,
            "{:?}",
            model.slopes()
        );
        let strong = Prior {
            slope_ns: 50_000.0,
            spread_ns: 100.0,
        };
        let mut held = InterferenceModel::new(strong, &[strong], 1.0);
        held.observe(&[1.0], 900_000.0);
        assert!(
            (held.slopes()[0] - 50_000.0).abs() < 1_000.0,
            "{:?}",
            held.slopes()
        );
    }

    #[test]
    fn drift_that_does_not_follow_the_shares_goes_to_the_intercept() {
        let mut model = InterferenceModel::new(weak(0.0), &[weak(0.0), weak(0.0)], 1.0);
        for i in 0..60 {
            let u = [(i % 5) as f64 / 4.0, (i % 3) as f64 / 2.0];
            model.observe(&u, 120_000.0 + 300_000.0 * u[0] + 20_000.0 * u[1]);
        }
        let b = model.slopes();
        assert!(
            (b[0] - 300_000.0).abs() < 1.0 && (b[1] - 20_000.0).abs() < 1.0,
            "{b:?}"
        );
        assert!((model.intercept() - 120_000.0).abs() < 1.0);
        assert_eq!(model.predict(&[1.0, 0.0]).round(), 420_000.0);
    }

    #[test]
    fn a_slope_the_data_would_make_negative_is_held_at_zero_and_the_rest_refitted() {
        // Closed loop: high interference met small shares.
        let points: Vec<(f64, f64)> = (0..40)
            .map(|i| {
                let x = 0.1 + (i % 5) as f64 * 0.2;
                (
                    x,
                    900_000.0 - 600_000.0 * x + ((i * 13) % 7) as f64 * 1000.0,
                )
            })
            .collect();
        let mut model = InterferenceModel::new(weak(0.0), &[weak(0.0)], 1.0);
        for (x, y) in &points {
            model.observe(&[*x], *y);
        }
        assert!(linear(&model.theta, &[1.0]) < linear(&model.theta, &[0.0]));
        assert_eq!(model.slopes(), [0.0]);
        // With the slope at zero, least squares is the mean (the twin).
        let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
        assert!(
            (model.intercept() - mean).abs() < 1e-3 * mean,
            "{} vs {mean}",
            model.intercept()
        );
        assert_eq!(model.predict(&[1.0]), model.intercept());
    }

    #[test]
    fn with_two_cores_the_held_slope_leaves_the_other_its_least_squares_value() {
        // Core 0's interference is real, core 1's share moves against a drift.
        let points: Vec<([f64; 2], f64)> = (0..60)
            .map(|i| {
                let u = [(i % 5) as f64 / 4.0, (i % 3) as f64 / 2.0];
                (u, 100_000.0 + 300_000.0 * u[0] - 80_000.0 * u[1])
            })
            .collect();
        let mut model = InterferenceModel::new(weak(0.0), &[weak(0.0), weak(0.0)], 1.0);
        for (u, y) in &points {
            model.observe(u, *y);
        }
        assert_eq!(model.slopes()[1], 0.0);
        // The twin: least squares of y on (1, u0) alone, core 1's column dropped.
        let xs: Vec<f64> = points.iter().map(|p| p.0[0]).collect();
        let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
        let (a, b) = ols(&xs
            .iter()
            .copied()
            .zip(ys.iter().copied())
            .collect::<Vec<_>>());
        assert!(
            (model.slopes()[0] - b).abs() < 1e-3 * b,
            "{:?} vs {b}",
            model.slopes()
        );
        assert!(
            (model.intercept() - a).abs() < 1e-3 * a.abs(),
            "{} vs {a}",
            model.intercept()
        );
    }
}
