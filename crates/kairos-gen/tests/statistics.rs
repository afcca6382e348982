//! Distribution tests of the utilization generators and the named distributions.
//!
//! Each test compares against a reference written independently (a closed-form CDF, or a slow
//! rejection sampler) at a fixed seed and significance `common::ALPHA`, with enough samples
//! that the biases listed in the crate's test notes are caught.

mod common;

use common::*;
use kairos_gen::rng::seeded;
use kairos_gen::{randfixedsum, uunifast, uunifast_discard, Discard, RandFixedSum};

const SETS: usize = 20_000;

/// `SETS` vectors from `sample`, transposed: `columns[i]` holds every set's `i`-th value.
fn columns(n: usize, mut sample: impl FnMut() -> Vec<f64>) -> Vec<Vec<f64>> {
    let mut cols = vec![Vec::with_capacity(SETS); n];
    for _ in 0..SETS {
        for (col, v) in cols.iter_mut().zip(sample()) {
            col.push(v);
        }
    }
    cols
}

#[test]
fn uunifast_marginals_are_beta_1_n_minus_1() {
    let (n, total) = (5, 2.5);
    let rng = &mut seeded(11);
    let cols = columns(n, || uunifast(rng, n, total).unwrap());
    for (i, col) in cols.iter().enumerate() {
        let scaled: Vec<f64> = col.iter().map(|u| u / total).collect();
        assert_ks(&format!("u_{} / U", i + 1), &scaled, |x| {
            beta_cdf(x, 1, n as u32 - 1)
        });
    }
}

#[test]
fn uunifast_pairs_are_beta_2_n_minus_2() {
    // A joint check: on the uniform simplex (u_i + u_j) / U is Beta(2, n - 2).
    let (n, total) = (6, 1.0);
    let rng = &mut seeded(12);
    let cols = columns(n, || uunifast(rng, n, total).unwrap());
    for (i, j) in [(0, 1), (0, 5), (2, 4)] {
        let pair: Vec<f64> = cols[i].iter().zip(&cols[j]).map(|(a, b)| a + b).collect();
        assert_ks(&format!("u_{} + u_{}", i + 1, j + 1), &pair, |x| {
            beta_cdf(x, 2, n as u32 - 2)
        });
    }
}

#[test]
fn uunifast_totals_are_exact() {
    let rng = &mut seeded(13);
    for n in 1..=60 {
        for total in [0.0, 0.3, 1.0, 3.7, 16.0] {
            for _ in 0..20 {
                let u = uunifast(rng, n, total).unwrap();
                assert_eq!(u.len(), n);
                assert!(u.iter().all(|&x| x >= 0.0), "negative utilization in {u:?}");
                let sum: f64 = u.iter().sum();
                assert!((sum - total).abs() <= 1e-9, "n={n}: sum {sum} != {total}");
            }
        }
    }
}

#[test]
fn uunifast_discard_respects_the_cap_and_stays_uniform() {
    let (n, total, cap) = (4, 2.6, 0.8);
    let rng = &mut seeded(14);
    let cols = columns(n, || {
        let u = uunifast_discard(rng, n, total, Discard::with_cap(cap)).unwrap();
        assert!(
            u.iter().all(|&x| (0.0..=cap).contains(&x)),
            "cap broken: {u:?}"
        );
        assert!(
            (u.iter().sum::<f64>() - total).abs() <= 1e-9,
            "total broken: {u:?}"
        );
        u
    });
    // Discarding is conditioning: the result must match rejection sampling from the twin.
    let twin_rng = &mut seeded(1014);
    let twin = columns(n, || box_slice_by_rejection(twin_rng, n, total, 0.0, cap));
    for i in 0..n {
        assert_ks_two_sample(&format!("discard u_{}", i + 1), &cols[i], &twin[i]);
    }
}

#[test]
fn randfixedsum_respects_bounds_and_total() {
    let rng = &mut seeded(15);
    let cases = [
        (2, 1.0, 0.0, 1.0),
        (3, 1.2, 0.2, 0.6),
        (5, 4.9, 0.0, 1.0),
        (8, 0.1, 0.0, 1.0),
        (10, 5.0, 0.45, 0.55),
        (16, 12.0, 0.5, 0.9),
        (40, 17.3, 0.1, 0.95),
        (7, -2.0, -1.0, 0.5),
    ];
    for (n, total, lo, hi) in cases {
        let rfs = RandFixedSum::new(n, total, lo, hi).unwrap();
        for _ in 0..500 {
            let x = rfs.sample(rng);
            assert_eq!(x.len(), n);
            assert!(
                x.iter().all(|v| (lo..=hi).contains(v)),
                "{x:?} outside [{lo}, {hi}]"
            );
            let sum: f64 = x.iter().sum();
            assert!(
                (sum - total).abs() <= 1e-9,
                "sum {sum} != {total} for {x:?}"
            );
        }
    }
}

#[test]
fn randfixedsum_without_active_bounds_is_uunifast() {
    // With a = 0 and b >= U the slice is the whole simplex: marginals are Beta(1, n - 1).
    let rng = &mut seeded(16);
    for (n, total, hi) in [(5, 1.0, 1.0), (4, 1.5, 3.0)] {
        let rfs = RandFixedSum::new(n, total, 0.0, hi).unwrap();
        let cols = columns(n, || rfs.sample(rng));
        for (i, col) in cols.iter().enumerate() {
            let scaled: Vec<f64> = col.iter().map(|u| u / total).collect();
            let what = format!("RandFixedSum n={n} b={hi} x_{}", i + 1);
            assert_ks(&what, &scaled, |x| beta_cdf(x, 1, n as u32 - 1));
        }
    }
}

#[test]
fn randfixedsum_with_tight_bounds_matches_rejection_twin() {
    // Corners of the slice are where a wrong transition table piles up mass: compare the
    // marginals and the largest component with slow rejection sampling.
    let (n, total, lo, hi) = (4, 2.0, 0.3, 0.7);
    let rfs = RandFixedSum::new(n, total, lo, hi).unwrap();
    let rng = &mut seeded(17);
    let cols = columns(n, || rfs.sample(rng));
    let twin_rng = &mut seeded(1017);
    let twin = columns(n, || box_slice_by_rejection(twin_rng, n, total, lo, hi));
    for i in 0..n {
        assert_ks_two_sample(&format!("tight x_{}", i + 1), &cols[i], &twin[i]);
        let m = mean(&cols[i]);
        assert!((m - total / n as f64).abs() < 0.005, "x_{} mean {m}", i + 1);
    }
    let max_of = |c: &[Vec<f64>]| -> Vec<f64> {
        (0..SETS)
            .map(|s| c.iter().map(|col| col[s]).fold(f64::MIN, f64::max))
            .collect()
    };
    assert_ks_two_sample("tight max component", &max_of(&cols), &max_of(&twin));
}

#[test]
fn randfixedsum_agrees_with_uunifast_discard() {
    // Two different algorithms for the same distribution: uniform on the capped simplex.
    let (n, total, cap) = (5, 3.0, 0.9);
    let rng = &mut seeded(18);
    let rfs = columns(n, || randfixedsum(rng, n, total, 0.0, cap).unwrap());
    let discard = columns(n, || {
        uunifast_discard(rng, n, total, Discard::with_cap(cap)).unwrap()
    });
    for i in 0..n {
        assert_ks_two_sample(&format!("RFS vs discard x_{}", i + 1), &rfs[i], &discard[i]);
    }
}
