//! Exact comparisons of utilization sums, U = sum_i C_i / T_i, without floats.
//!
//! Verdicts such as "U <= 1" must not depend on rounding: `1/3 + 1/3 + 1/3` is exactly 1 and a
//! float sum may land on either side. Two sums of fractions are compared over a common
//! denominator L = lcm(T_i): sum_i C_i / T_i = (sum_i C_i (L / T_i)) / L. The fast path does this
//! in `u128` with checked arithmetic; when the lcm or a product does not fit (many coprime
//! periods), the same computation runs on a small arbitrary-precision natural number
//! (`BigNat`), so the answer is exact for every input. A float filter in front answers first
//! when the two sums differ by far more than float rounding can explain (see
//! `compare_sums_f64`); it never decides a near-tie.
//!
//! A term with a zero denominator (a task with T = 0, which is not a valid sporadic task) counts
//! as +infinity, so every bound rejects it.

use crate::SporadicTask;
use std::cmp::Ordering;

/// The unit fraction 1/1, for comparisons against 1.
const ONE: (u64, u64) = (1, 1);

/// `a.C / a.T` against `b.C / b.T`, exactly (u128 cross-multiplication; T = 0 is +infinity).
pub fn compare_task_utilization(a: &SporadicTask, b: &SporadicTask) -> Ordering {
    compare_fraction((a.wcet_ns(), a.period_ns()), (b.wcet_ns(), b.period_ns()))
}

/// `sum_{i in a} C_i / T_i` against `sum_{i in b} C_i / T_i`, exactly.
pub fn compare_utilization(a: &[SporadicTask], b: &[SporadicTask]) -> Ordering {
    let terms = |ts: &[SporadicTask]| {
        ts.iter()
            .map(|t| (t.wcet_ns(), t.period_ns()))
            .collect::<Vec<_>>()
    };
    compare_sums(&terms(a), &terms(b))
}

/// `sum_i C_i / T_i <= 1`, exactly.
pub fn utilization_at_most_one(tasks: &[SporadicTask]) -> bool {
    let terms: Vec<_> = tasks.iter().map(|t| (t.wcet_ns(), t.period_ns())).collect();
    compare_sums(&terms, &[ONE]) != Ordering::Greater
}

/// `sum_i C_i / min(D_i, T_i) <= 1` (total density), exactly.
pub fn density_at_most_one(tasks: &[SporadicTask]) -> bool {
    let terms: Vec<_> = tasks
        .iter()
        .map(|t| (t.wcet_ns(), t.deadline_ns().min(t.period_ns())))
        .collect();
    compare_sums(&terms, &[ONE]) != Ordering::Greater
}

/// `n1/d1` against `n2/d2`; a zero denominator is +infinity.
fn compare_fraction((n1, d1): (u64, u64), (n2, d2): (u64, u64)) -> Ordering {
    match (d1 == 0, d2 == 0) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        // Each product is below 2^128: exact.
        (false, false) => (u128::from(n1) * u128::from(d2)).cmp(&(u128::from(n2) * u128::from(d1))),
    }
}

/// Compares two sums of fractions `(numerator, denominator)`.
fn compare_sums(a: &[(u64, u64)], b: &[(u64, u64)]) -> Ordering {
    let infinite = |s: &[(u64, u64)]| s.iter().any(|&(_, d)| d == 0);
    match (infinite(a), infinite(b)) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        (false, false) => {}
    }
    compare_sums_f64(a, b)
        .or_else(|| compare_sums_u128(a, b))
        .unwrap_or_else(|| compare_sums_big(a, b))
}

/// A float filter that answers only when the answer is certain. Each term n/d is within
/// 1.5 eps of its value (two conversions and one division, each correctly rounded), and a sum
/// of k such non-negative terms within about (k + 1.5) eps relative of the exact sum; with at
/// most 10^5 terms that is below 10^-10 relative. So sums that differ by more than 10^-9 of the
/// larger one are ordered as the floats say; closer ones (ties included) go to the exact paths.
fn compare_sums_f64(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<Ordering> {
    if a.len() + b.len() > 100_000 {
        return None;
    }
    let sum = |s: &[(u64, u64)]| s.iter().map(|&(n, d)| n as f64 / d as f64).sum::<f64>();
    let (sa, sb) = (sum(a), sum(b));
    let tolerance = 1e-9 * sa.max(sb);
    if sa - sb > tolerance {
        Some(Ordering::Greater)
    } else if sb - sa > tolerance {
        Some(Ordering::Less)
    } else {
        None
    }
}

/// The fast path: `None` if the common denominator or a partial sum overflows `u128`.
fn compare_sums_u128(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<Ordering> {
    let mut l: u128 = 1;
    for &(_, d) in a.iter().chain(b) {
        let d = u128::from(d);
        l = (l / gcd_u128(l, d)).checked_mul(d)?;
    }
    let scaled = |s: &[(u64, u64)]| -> Option<u128> {
        s.iter().try_fold(0u128, |acc, &(n, d)| {
            acc.checked_add(u128::from(n).checked_mul(l / u128::from(d))?)
        })
    };
    Some(scaled(a)?.cmp(&scaled(b)?))
}

/// The exact slow path over [`BigNat`].
fn compare_sums_big(a: &[(u64, u64)], b: &[(u64, u64)]) -> Ordering {
    let mut l = BigNat::from_u64(1);
    for &(_, d) in a.iter().chain(b) {
        let g = kairos_model::time::gcd(d, l.rem_u64(d));
        l = l.mul_u64(d / g);
    }
    let scaled = |s: &[(u64, u64)]| {
        s.iter().fold(BigNat::from_u64(0), |acc, &(n, d)| {
            acc.add(&l.div_u64(d).mul_u64(n))
        })
    };
    scaled(a).cmp(&scaled(b))
}

fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A natural number in base 2^64, little-endian limbs, no trailing zero limbs. Only the
/// operations exact utilization sums need; divisors are never zero (callers filter T = 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BigNat(Vec<u64>);

impl BigNat {
    pub(crate) fn from_u64(v: u64) -> Self {
        BigNat(vec![v]).normalized()
    }

    fn normalized(mut self) -> Self {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }

    pub(crate) fn mul_u64(&self, k: u64) -> Self {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut carry: u128 = 0;
        for &limb in &self.0 {
            // limb * k + carry < 2^128: (2^64 - 1)^2 + 2^64 - 1 < 2^128.
            let v = u128::from(limb) * u128::from(k) + carry;
            out.push(v as u64);
            carry = v >> 64;
        }
        out.push(carry as u64);
        BigNat(out).normalized()
    }

    pub(crate) fn add(&self, other: &BigNat) -> Self {
        let (long, short) = if self.0.len() >= other.0.len() {
            (&self.0, &other.0)
        } else {
            (&other.0, &self.0)
        };
        let mut out = Vec::with_capacity(long.len() + 1);
        let mut carry = false;
        for (i, &x) in long.iter().enumerate() {
            let (s1, c1) = x.overflowing_add(short.get(i).copied().unwrap_or(0));
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            out.push(s2);
            carry = c1 || c2;
        }
        out.push(u64::from(carry));
        BigNat(out).normalized()
    }

    /// `self / k` (floor); `k > 0`.
    pub(crate) fn div_u64(&self, k: u64) -> Self {
        let mut out = vec![0u64; self.0.len()];
        let mut rem: u128 = 0;
        for i in (0..self.0.len()).rev() {
            let cur = (rem << 64) | u128::from(self.0[i]);
            out[i] = (cur / u128::from(k)) as u64;
            rem = cur % u128::from(k);
        }
        BigNat(out).normalized()
    }

    /// `self mod k`; `k > 0`.
    pub(crate) fn rem_u64(&self, k: u64) -> u64 {
        let mut rem: u128 = 0;
        for &limb in self.0.iter().rev() {
            rem = ((rem << 64) | u128::from(limb)) % u128::from(k);
        }
        rem as u64
    }
}

impl PartialOrd for BigNat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BigNat {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, p: u64) -> SporadicTask {
        task_ns(c, p, p)
    }

    #[test]
    fn thirds_sum_to_exactly_one() {
        assert!(utilization_at_most_one(&[t(1, 3), t(1, 3), t(1, 3)]));
        assert!(!utilization_at_most_one(&[
            t(1, 3),
            t(1, 3),
            t(1, 3),
            t(1, u64::MAX)
        ]));
    }

    #[test]
    fn big_path_agrees_with_u128_path() {
        // Large coprime periods force the BigNat path.
        let primes = [
            18_446_744_073_709_551_557u64,
            18_446_744_073_709_551_533,
            18_446_744_073_709_551_521,
        ];
        let a: Vec<_> = primes.iter().map(|&p| (p / 3, p)).collect();
        assert_eq!(compare_sums_u128(&a, &[ONE]), None);
        assert_eq!(compare_sums_big(&a, &[ONE]), Ordering::Less);
        let small = [(1, 6), (1, 10), (1, 15)];
        assert_eq!(
            compare_sums_big(&small, &[(1, 3)]),
            compare_sums_u128(&small, &[(1, 3)]).unwrap()
        );
        assert_eq!(compare_sums_big(&small, &[(1, 3)]), Ordering::Equal);
    }

    #[test]
    fn float_filter_defers_near_ties() {
        let third = (1u64 << 62, 3u64 << 62);
        assert_eq!(compare_sums_f64(&[third, third, third], &[ONE]), None);
        assert_eq!(compare_sums_f64(&[(1, 2)], &[ONE]), Some(Ordering::Less));
        // 1 - 2^-60 against 1: floats cannot tell, the exact path can.
        let almost = [(u64::MAX >> 4, 1 << 60)];
        assert_eq!(compare_sums_f64(&almost, &[ONE]), None);
        assert_eq!(compare_sums(&almost, &[ONE]), Ordering::Less);
    }

    #[test]
    fn zero_period_is_infinite() {
        assert!(!utilization_at_most_one(&[t(0, 0)]));
        assert_eq!(
            compare_task_utilization(&t(1, 0), &t(5, 1)),
            Ordering::Greater
        );
    }
}
