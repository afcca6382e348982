//! Straight-line fits and how far their slope can be trusted: ordinary least squares with R²
//! and the slope's 95 % confidence half-width (its standard error times Student's t quantile
//! for the residual degrees of freedom). `kairos platform interference` fits d_curr (the
//! OS-latency study's equation 5) with it; the resource manager uses [`t_975`] to size the
//! interval of the slope it learned and [`significant`] to say whether it differs from zero.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// `y = intercept + slope x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub intercept: f64,
    pub slope: f64,
    /// The share of y's spread the line explains (1 when y does not vary).
    pub r2: f64,
    /// The 95 % confidence half-width of the slope; None with fewer than three points or
    /// when x does not vary.
    pub slope_ci95: Option<f64>,
}

impl Line {
    /// Whether the slope's 95 % interval leaves out zero.
    pub fn significant(&self) -> bool {
        significant(self.slope, self.slope_ci95)
    }
}

/// Whether a slope with the 95 % half-width `ci95` (None: unknown) is distinguishable from zero.
pub fn significant(slope: f64, ci95: Option<f64>) -> bool {
    ci95.is_some_and(|h| slope.abs() > h)
}

/// The least-squares line through (xs, ys).
pub fn least_squares(xs: &[f64], ys: &[f64]) -> Line {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let intercept = my - slope * mx;
    let ss_tot: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - intercept - slope * x).powi(2))
        .sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let dof = n - 2.0;
    let slope_ci95 = (dof >= 1.0 && sxx > 0.0).then(|| t_975(dof) * (ss_res / dof / sxx).sqrt());
    Line {
        intercept,
        slope,
        r2,
        slope_ci95,
    }
}

/// The 97.5 % quantile of Student's t with `dof` degrees of freedom (a two-sided 95 % interval).
pub fn t_975(dof: f64) -> f64 {
    StudentsT::new(0.0, 1.0, dof)
        .expect("degrees of freedom are positive")
        .inverse_cdf(0.975)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_line_is_recovered_with_a_zero_width_interval() {
        let line = least_squares(&[0.0, 1.0, 2.0, 3.0], &[1.0, 3.0, 5.0, 7.0]);
        assert!((line.intercept - 1.0).abs() < 1e-12 && (line.slope - 2.0).abs() < 1e-12);
        assert!((line.r2 - 1.0).abs() < 1e-12);
        assert!(line.slope_ci95.unwrap() < 1e-9 && line.significant());
    }

    #[test]
    fn the_interval_is_the_textbook_one() {
        // By hand: x = 0..3, y = 1, 4, 4, 7: slope 1.8, residuals -0.3, 0.9, -0.9, 0.3,
        // SS_res 1.8, s² = 0.9, Sxx = 5, se = sqrt(0.18), t(2) = 4.302653.
        let line = least_squares(&[0.0, 1.0, 2.0, 3.0], &[1.0, 4.0, 4.0, 7.0]);
        assert!((line.slope - 1.8).abs() < 1e-12);
        let expected = 4.302_652_7 * 0.18f64.sqrt();
        assert!(
            (line.slope_ci95.unwrap() - expected).abs() < 1e-5,
            "{line:?}"
        );
        assert!(line.r2 > 0.8 && line.r2 < 1.0);
    }

    #[test]
    fn noise_around_a_flat_line_is_not_significant_and_two_points_give_no_interval() {
        let line = least_squares(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            &[5.0, 7.0, 6.0, 6.5, 5.5, 6.2],
        );
        assert!(!line.significant(), "{line:?}");
        assert_eq!(least_squares(&[0.0, 1.0], &[1.0, 2.0]).slope_ci95, None);
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        for (dof, t) in [(1.0, 12.7062), (4.0, 2.7764), (30.0, 2.0423), (1e6, 1.9600)] {
            assert!((t_975(dof) - t).abs() < 1e-3, "{dof}: {}", t_975(dof));
        }
    }
}
