//! SchedCAT's named distributions against their definitions (see `distributions.rs`).

mod common;

use common::*;
use kairos_gen::rng::{seeded, ChaCha8Rng};
use kairos_gen::{DeadlineDist, PeriodDist, UtilDist};

const N: usize = 20_000;

fn utils(dist: UtilDist, seed: u64) -> Vec<f64> {
    let rng = &mut seeded(seed);
    (0..N).map(|_| dist.sample(rng)).collect()
}

#[test]
fn uniform_utilizations_cover_their_ranges_uniformly() {
    for (dist, lo, hi) in [
        (UtilDist::UniLight, 0.001, 0.1),
        (UtilDist::UniMedium, 0.1, 0.4),
        (UtilDist::UniHeavy, 0.5, 0.9),
    ] {
        let u = utils(dist, 21);
        assert!(
            u.iter().all(|x| (lo..hi).contains(x)),
            "{dist} left [{lo}, {hi})"
        );
        assert_ks(dist.name(), &u, |x| ((x - lo) / (hi - lo)).clamp(0.0, 1.0));
    }
}

#[test]
fn exponential_utilizations_are_truncated_exponentials() {
    for (dist, mu) in [
        (UtilDist::ExpLight, 0.10f64),
        (UtilDist::ExpMedium, 0.25),
        (UtilDist::ExpHeavy, 0.50),
    ] {
        let u = utils(dist, 22);
        assert!(
            u.iter().all(|x| (0.0..=1.0).contains(x)),
            "{dist} left [0, 1]"
        );
        // Redrawing outside [0, 1] gives the exponential conditioned on [0, 1].
        let mass = 1.0 - (-1.0 / mu).exp();
        assert_ks(dist.name(), &u, |x| (1.0 - (-x / mu).exp()) / mass);
        let expected_mean = mu - (-1.0 / mu).exp() / mass;
        let sd = (u.iter().map(|x| (x - expected_mean).powi(2)).sum::<f64>() / N as f64).sqrt();
        let m = mean(&u);
        assert!(
            (m - expected_mean).abs() < 4.5 * sd / (N as f64).sqrt(),
            "{dist}: mean {m}, expected {expected_mean}"
        );
    }
}

#[test]
fn bimodal_utilizations_mix_in_ninths() {
    for (dist, heavy_ninths) in [
        (UtilDist::BimoLight, 1),
        (UtilDist::BimoMedium, 3),
        (UtilDist::BimoHeavy, 5),
    ] {
        let u = utils(dist, 23);
        assert!(
            u.iter().all(|x| (0.001..0.9).contains(x)),
            "{dist} left [0.001, 0.9)"
        );
        let (heavy, light): (Vec<f64>, Vec<f64>) = u.iter().partition(|&&x| x >= 0.5);
        assert_binomial(dist.name(), heavy.len(), N, f64::from(heavy_ninths) / 9.0);
        assert_ks(&format!("{dist} light mode"), &light, |x| {
            (x - 0.001) / 0.499
        });
        assert_ks(&format!("{dist} heavy mode"), &heavy, |x| (x - 0.5) / 0.4);
    }
}

fn periods(dist: PeriodDist, seed: u64) -> Vec<u64> {
    let rng = &mut seeded(seed);
    (0..N).map(|_| dist.sample_ms(rng)).collect()
}

#[test]
fn uniform_periods_are_uniform_integers() {
    for (dist, lo, hi) in [
        (PeriodDist::UniShort, 3, 33),
        (PeriodDist::UniModerate, 10, 100),
        (PeriodDist::UniLong, 50, 250),
        (PeriodDist::UniBroad, 1, 1000),
        (
            PeriodDist::Uniform {
                min_ms: 350,
                max_ms: 850,
            },
            350,
            850,
        ),
    ] {
        let p = periods(dist, 24);
        assert_eq!(
            *p.iter().min().unwrap(),
            lo,
            "{dist} never hits its minimum"
        );
        assert_eq!(
            *p.iter().max().unwrap(),
            hi,
            "{dist} never hits its maximum"
        );
        let width = (hi - lo + 1) as f64;
        assert_ks_discrete(&dist.to_string(), &p, lo, hi, |k| {
            (k - lo + 1) as f64 / width
        });
    }
}

#[test]
fn log_uniform_periods_have_uniform_logarithms() {
    for (dist, lo, hi) in [
        (PeriodDist::LogUniShort, 3, 33),
        (PeriodDist::LogUniModerate, 10, 100),
        (PeriodDist::LogUniLong, 50, 250),
        (
            PeriodDist::LogUniform {
                min_ms: 1,
                max_ms: 1000,
            },
            1,
            1000,
        ),
    ] {
        let p = periods(dist, 25);
        assert_eq!(
            *p.iter().min().unwrap(),
            lo,
            "{dist} never hits its minimum"
        );
        assert_eq!(
            *p.iter().max().unwrap(),
            hi,
            "{dist} never hits its maximum"
        );
        // floor of a log-uniform real on [lo, hi + 1): P(X <= k) = ln((k+1)/lo) / ln((hi+1)/lo).
        let span = ((hi + 1) as f64 / lo as f64).ln();
        assert_ks_discrete(&dist.to_string(), &p, lo, hi, |k| {
            ((k + 1) as f64 / lo as f64).ln() / span
        });
    }
}

fn factors(dist: DeadlineDist, rng: &mut ChaCha8Rng) -> Vec<f64> {
    (0..N).map(|_| dist.sample_factor(rng).unwrap()).collect()
}

#[test]
fn deadline_factors_are_uniform() {
    let rng = &mut seeded(26);
    assert_eq!(DeadlineDist::Implicit.sample_factor(rng), None);
    let constrained = factors(DeadlineDist::UniConstrained, rng);
    assert_ks("uni-constrained factor", &constrained, |x| {
        x.clamp(0.0, 1.0)
    });
    let arbitrary = factors(DeadlineDist::UniArbitrary, rng);
    assert_ks("uni-arbitrary factor", &arbitrary, |x| {
        (x / 2.0).clamp(0.0, 1.0)
    });
}

#[test]
fn deadlines_of_generated_tasks_follow_the_factor() {
    // D = C + f (T - C) on whole tasks, with a fine grid so rounding is invisible to KS.
    let rng = &mut seeded(27);
    let grid = kairos_model::Duration::from_nanos(1);
    let (u, p) = (UtilDist::UniMedium, PeriodDist::UniModerate);
    for (dist, scale) in [
        (DeadlineDist::UniConstrained, 1.0),
        (DeadlineDist::UniArbitrary, 2.0),
    ] {
        let f: Vec<f64> = (0..N)
            .map(|i| {
                let t = kairos_gen::draw_task(rng, i + 1, u, p, dist, grid).unwrap();
                let (c, d, t) = (
                    t.wcet.as_nanos(),
                    t.deadline.as_nanos(),
                    t.period.as_nanos(),
                );
                assert!(
                    c <= d && (scale > 1.0 || d <= t),
                    "{dist}: C={c} D={d} T={t}"
                );
                (d - c) as f64 / (t - c) as f64
            })
            .collect();
        assert_ks(&format!("{dist} (D - C) / (T - C)"), &f, |x| {
            (x / scale).clamp(0.0, 1.0)
        });
    }
}
