//! Statistics shared by the integration tests: Kolmogorov-Smirnov tests and reference
//! distributions written independently of the generators.
#![allow(dead_code)]

use kairos_gen::rng::{unit_f64, ChaCha8Rng};

/// Significance level of every distribution test. The seeds are fixed, so a test either always
/// passes or always fails; the level only decides how large a bias must be to be caught.
pub const ALPHA: f64 = 1e-3;

/// `c(alpha)` of the asymptotic Kolmogorov distribution: `sqrt(-ln(alpha / 2) / 2)`.
fn ks_coefficient() -> f64 {
    (-(ALPHA / 2.0).ln() / 2.0).sqrt()
}

/// One-sample KS statistic `D = sup |F_n(x) - F(x)|` of `samples` against a continuous `cdf`.
pub fn ks_statistic(samples: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut x = samples.to_vec();
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    x.iter().enumerate().fold(0.0, |d, (i, &v)| {
        let f = cdf(v);
        d.max(f - i as f64 / n).max((i + 1) as f64 / n - f)
    })
}

/// Fails the test, with the statistic in the message, if `samples` reject `cdf` at `ALPHA`.
pub fn assert_ks(what: &str, samples: &[f64], cdf: impl Fn(f64) -> f64) {
    let d = ks_statistic(samples, cdf);
    let critical = ks_coefficient() / (samples.len() as f64).sqrt();
    assert!(
        d < critical,
        "{what}: KS D = {d:.5} >= critical {critical:.5} (n = {})",
        samples.len()
    );
}

/// Two-sample KS at `ALPHA`.
pub fn assert_ks_two_sample(what: &str, a: &[f64], b: &[f64]) {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0usize, 0usize, 0.0f64);
    while i < a.len() && j < b.len() {
        let v = a[i].min(b[j]);
        while i < a.len() && a[i] <= v {
            i += 1;
        }
        while j < b.len() && b[j] <= v {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    let critical = ks_coefficient() * ((n + m) / (n * m)).sqrt();
    assert!(
        d < critical,
        "{what}: two-sample KS D = {d:.5} >= critical {critical:.5}"
    );
}

/// KS for integer samples against the exact discrete CDF `cdf(k) = P(X <= k)` on `lo..=hi`.
/// The continuous critical value is conservative for discrete data.
pub fn assert_ks_discrete(what: &str, samples: &[u64], lo: u64, hi: u64, cdf: impl Fn(u64) -> f64) {
    let mut counts = vec![0u64; (hi - lo + 1) as usize];
    for &s in samples {
        assert!((lo..=hi).contains(&s), "{what}: {s} outside [{lo}, {hi}]");
        counts[(s - lo) as usize] += 1;
    }
    let n = samples.len() as f64;
    let mut seen = 0u64;
    let mut d = 0.0f64;
    for (k, c) in (lo..=hi).zip(&counts) {
        seen += c;
        d = d.max((seen as f64 / n - cdf(k)).abs());
    }
    let critical = ks_coefficient() / n.sqrt();
    assert!(
        d < critical,
        "{what}: discrete KS D = {d:.5} >= critical {critical:.5}"
    );
}

/// Fails unless the count of successes is within 4.5 standard deviations of `n p`.
pub fn assert_binomial(what: &str, successes: usize, n: usize, p: f64) {
    let expected = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    let z = (successes as f64 - expected) / sd;
    assert!(
        z.abs() < 4.5,
        "{what}: {successes} of {n}, expected {expected:.1} (z = {z:.2})"
    );
}

/// CDF of Beta(a, b) for integer `a, b >= 1`: `P(Binomial(a + b - 1, x) >= a)`.
pub fn beta_cdf(x: f64, a: u32, b: u32) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let m = a + b - 1;
    (a..=m)
        .map(|j| binomial(m, j) * x.powi(j as i32) * (1.0 - x).powi((m - j) as i32))
        .sum()
}

fn binomial(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// Uniform on `{x >= 0, sum x = total}` by sorted-uniform spacings: the slow obvious twin of
/// UUniFast, sharing none of its code.
pub fn simplex_by_spacings(rng: &mut ChaCha8Rng, n: usize, total: f64) -> Vec<f64> {
    let mut cuts: Vec<f64> = (1..n).map(|_| unit_f64(rng)).collect();
    cuts.push(0.0);
    cuts.push(1.0);
    cuts.sort_by(f64::total_cmp);
    cuts.windows(2).map(|w| (w[1] - w[0]) * total).collect()
}

/// Uniform on `{lo <= x_i <= hi, sum x = total}` by rejection from [`simplex_by_spacings`]
/// (needs `lo = 0` or a shift; here `x = lo + y` with `y` on the simplex of `total - n lo`).
pub fn box_slice_by_rejection(
    rng: &mut ChaCha8Rng,
    n: usize,
    total: f64,
    lo: f64,
    hi: f64,
) -> Vec<f64> {
    loop {
        let y = simplex_by_spacings(rng, n, total - n as f64 * lo);
        if y.iter().all(|&v| lo + v <= hi) {
            return y.into_iter().map(|v| lo + v).collect();
        }
    }
}

pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}
