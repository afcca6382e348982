//! Seeding and the few sampling primitives every generator is built on.
//!
//! All randomness comes from a [`ChaCha8Rng`] seeded explicitly, never from the OS. The
//! primitives below read the generator's raw `u64` output and turn it into numbers with
//! integer operations and correctly rounded float operations only, so the stream of values a
//! seed produces does not depend on the machine, nor on how a future `rand` release implements
//! its own distributions.

use rand::{RngCore, SeedableRng};
pub use rand_chacha::ChaCha8Rng;

/// The generator every kairos generator takes, seeded from a `u64`.
///
/// `seed_from_u64` is value-stable across `rand_core` versions and architectures.
pub fn seeded(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A uniform float in `[0, 1)` with 53 random bits (every value a multiple of 2^-53).
pub fn unit_f64(rng: &mut ChaCha8Rng) -> f64 {
    const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
    (rng.next_u64() >> 11) as f64 * SCALE
}

/// A uniform float in `[lo, hi)` (or exactly `lo` when the range is empty).
pub fn uniform_f64(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit_f64(rng)
}

/// A uniform integer in `[0, n)`, without bias (Lemire, "Fast random integer generation in an
/// interval", ACM TOMACS 29(1), 2019). Returns 0 when `n` is 0.
pub fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

/// A uniform integer in `[lo, hi]` (inclusive); `lo` when `hi < lo`.
pub fn uniform_inclusive(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    if hi <= lo {
        return lo;
    }
    match (hi - lo).checked_add(1) {
        Some(span) => lo + below(rng, span),
        None => rng.next_u64(),
    }
}

/// Shuffles `items` uniformly (Fisher-Yates, drawing with [`below`]).
pub fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = seeded(1);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[below(&mut rng, 7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    #[test]
    fn unit_is_half_open() {
        let mut rng = seeded(2);
        for _ in 0..10_000 {
            let x = unit_f64(&mut rng);
            assert!((0.0..1.0).contains(&x));
        }
    }

    #[test]
    fn shuffle_keeps_the_elements() {
        let mut rng = seeded(3);
        let mut v: Vec<u32> = (0..50).collect();
        shuffle(&mut rng, &mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
