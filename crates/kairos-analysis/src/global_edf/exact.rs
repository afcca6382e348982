//! Exact comparison of a sum of non-negative fractions against an integer, without floats.
//!
//! Density and utilization tests (GFB, BAK, the `U <= m` precondition) compare a sum of
//! rationals `sum_i p_i / q_i` with a bound. The common denominator of a hundred task periods
//! does not fit in 128 bits, so [`FractionSum`] keeps each term as an integer part plus a
//! remainder `r_i / q_i`, brackets the sum of remainders in 64.64 fixed point (lower and upper
//! bound, both exact integers), and only when the bound is inside that bracket falls back to an
//! exact big-integer comparison. The answer never depends on rounding: the bracket is a proof,
//! and the fallback is exact.

use std::cmp::Ordering;

/// A running sum of non-negative fractions `p / q` (`p` up to 128 bits, `0 < q < 2^64`).
#[derive(Clone, Debug, Default)]
pub(crate) struct FractionSum {
    /// Sum of the integer parts `floor(p / q)`; `None` once it no longer fits in 128 bits.
    whole: Option<u128>,
    /// Sum of `floor(r * 2^64 / q)` over the remainders `r = p mod q`.
    frac_floor: u128,
    /// How many remainders were rounded down in `frac_floor` (each by less than `2^-64`).
    inexact: u128,
    /// Remainders kept for the exact fallback: `(r, q)` with `0 < r < q`.
    remainders: Vec<(u64, u64)>,
}

impl FractionSum {
    pub(crate) fn new() -> Self {
        FractionSum {
            whole: Some(0),
            ..FractionSum::default()
        }
    }

    /// Adds the integer `n`.
    pub(crate) fn add_int(&mut self, n: u128) {
        self.whole = self.whole.and_then(|w| w.checked_add(n));
    }

    /// Adds `p / q`. `q` must be non-zero (callers check task parameters first); a zero `q`
    /// makes the sum unbounded, which every comparison then reports as "greater".
    pub(crate) fn add(&mut self, p: u128, q: u64) {
        if q == 0 {
            self.whole = None;
            return;
        }
        let (int, rem) = if let Ok(p64) = u64::try_from(p) {
            (u128::from(p64 / q), p64 % q)
        } else {
            let q128 = u128::from(q);
            // The remainder is below q < 2^64.
            (p / q128, (p % q128) as u64)
        };
        self.add_int(int);
        if rem == 0 {
            return;
        }
        let scaled = u128::from(rem) << 64;
        let q128 = u128::from(q);
        self.frac_floor += scaled / q128;
        if scaled % q128 != 0 {
            self.inexact += 1;
        }
        self.remainders.push((rem, q));
    }

    /// A lower bound of the sum's integer part, cheap; `None` if it exceeds 128 bits.
    pub(crate) fn floor_lower_bound(&self) -> Option<u128> {
        self.whole.map(|w| w.saturating_add(self.frac_floor >> 64))
    }

    /// Compares the sum with the integer `k`, exactly.
    pub(crate) fn cmp_int(&self, k: u128) -> Ordering {
        let Some(whole) = self.whole else {
            return Ordering::Greater;
        };
        if whole > k {
            return Ordering::Greater;
        }
        // Sum of remainders F in [0, n) against diff = k - whole; n = number of remainders.
        let diff = k - whole;
        let n = self.remainders.len() as u128;
        if n == 0 {
            return 0.cmp(&diff);
        }
        if diff >= n {
            return Ordering::Less;
        }
        // diff < n < 2^63, so the shift fits; F * 2^64 lies in [frac_floor, frac_floor + inexact]
        // and equals frac_floor only when inexact == 0.
        let target = diff << 64;
        let upper = self.frac_floor + self.inexact;
        if upper < target || (upper == target && self.inexact > 0) {
            return Ordering::Less;
        }
        if self.frac_floor > target || (self.frac_floor == target && self.inexact > 0) {
            return Ordering::Greater;
        }
        if self.inexact == 0 {
            return self.frac_floor.cmp(&target);
        }
        exact_remainder_cmp(&self.remainders, diff)
    }
}

/// Exact comparison of `sum r_i / q_i` with the integer `diff` (slow path).
fn exact_remainder_cmp(remainders: &[(u64, u64)], diff: u128) -> Ordering {
    // Merge equal denominators first: fewer, shorter big-integer steps.
    let mut terms = remainders.to_vec();
    terms.sort_unstable_by_key(|&(_, q)| q);
    let mut merged: Vec<(u128, u64)> = Vec::with_capacity(terms.len());
    for (r, q) in terms {
        match merged.last_mut() {
            Some((sum, last_q)) if *last_q == q => *sum += u128::from(r),
            _ => merged.push((u128::from(r), q)),
        }
    }
    // Integer parts of the merged terms move into the target.
    let mut target = diff;
    let mut fractions: Vec<(u64, u64)> = Vec::with_capacity(merged.len());
    for (sum, q) in merged {
        let q128 = u128::from(q);
        let int = sum / q128;
        if int > target {
            return Ordering::Greater;
        }
        target -= int;
        let rem = (sum % q128) as u64;
        if rem > 0 {
            fractions.push((rem, q));
        }
    }
    // num / den = sum of the remaining fractions, built exactly.
    let mut num = BigUint::from_u128(0);
    let mut den = BigUint::from_u128(1);
    for (r, q) in fractions {
        num.mul_small(q);
        let mut term = den.clone();
        term.mul_small(r);
        num.add_assign(&term);
        den.mul_small(q);
    }
    let mut rhs = den;
    rhs.mul_u128(target);
    num.cmp(&rhs)
}

/// Minimal unsigned big integer (little-endian 64-bit limbs) for the exact fallback.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BigUint {
    limbs: Vec<u64>,
}

impl BigUint {
    fn from_u128(v: u128) -> Self {
        let mut b = BigUint {
            limbs: vec![v as u64, (v >> 64) as u64],
        };
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    fn mul_small(&mut self, x: u64) {
        let mut carry: u128 = 0;
        for limb in &mut self.limbs {
            let v = u128::from(*limb) * u128::from(x) + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry > 0 {
            self.limbs.push(carry as u64);
        }
        self.trim();
    }

    fn mul_u128(&mut self, x: u128) {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        let mut high_part = self.clone();
        self.mul_small(lo);
        if hi > 0 {
            high_part.mul_small(hi);
            high_part.limbs.insert(0, 0);
            self.add_assign(&high_part);
        }
    }

    fn add_assign(&mut self, other: &BigUint) {
        if self.limbs.len() < other.limbs.len() {
            self.limbs.resize(other.limbs.len(), 0);
        }
        let mut carry = false;
        for (i, limb) in self.limbs.iter_mut().enumerate() {
            let o = other.limbs.get(i).copied().unwrap_or(0);
            let (s1, c1) = limb.overflowing_add(o);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *limb = s2;
            carry = c1 || c2;
            if !carry && i >= other.limbs.len() {
                break;
            }
        }
        if carry {
            self.limbs.push(1);
        }
        self.trim();
    }
}

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl PartialOrd for BigUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow obvious twin: exact rational sum with the product of denominators, small inputs.
    fn brute(terms: &[(u128, u64)], k: u128) -> Ordering {
        let den: u128 = terms.iter().map(|&(_, q)| u128::from(q)).product();
        let num: u128 = terms.iter().map(|&(p, q)| p * (den / u128::from(q))).sum();
        num.cmp(&(k * den))
    }

    #[test]
    fn matches_brute_force_on_small_sums() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let n = (next() % 5) as usize;
            let terms: Vec<(u128, u64)> = (0..n)
                .map(|_| (u128::from(next() % 40), next() % 9 + 1))
                .collect();
            let mut sum = FractionSum::new();
            for &(p, q) in &terms {
                sum.add(p, q);
            }
            for k in 0..12u128 {
                assert_eq!(sum.cmp_int(k), brute(&terms, k), "{terms:?} vs {k}");
            }
        }
    }

    #[test]
    fn exact_ties_with_many_thirds_and_large_denominators() {
        let mut sum = FractionSum::new();
        for _ in 0..3 {
            sum.add(1, 3);
        }
        assert_eq!(sum.cmp_int(1), Ordering::Equal);
        let q = u64::MAX - 58; // a large prime-ish denominator
        let mut big = FractionSum::new();
        big.add(u128::from(q - 1), q);
        big.add(1, q);
        assert_eq!(big.cmp_int(1), Ordering::Equal);
        big.add(1, u64::MAX);
        assert_eq!(big.cmp_int(1), Ordering::Greater);
        assert_eq!(big.cmp_int(2), Ordering::Less);
    }

    #[test]
    fn huge_sums_saturate_to_greater() {
        let mut sum = FractionSum::new();
        sum.add(u128::MAX, 1);
        sum.add(u128::MAX, 1);
        assert_eq!(sum.cmp_int(u128::MAX), Ordering::Greater);
        assert_eq!(sum.floor_lower_bound(), None);
    }
}
