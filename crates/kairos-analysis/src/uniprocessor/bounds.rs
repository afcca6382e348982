//! Utilization bounds for rate-monotonic scheduling on one processor (sufficient tests).
//!
//! - [`liu_layland`]: C. L. Liu and J. W. Layland, "Scheduling algorithms for multiprogramming
//!   in a hard-real-time environment", JACM 20(1), 1973, Theorem 5:
//!   `U = sum_i C_i / T_i <= n (2^{1/n} - 1)`.
//! - [`hyperbolic`]: E. Bini, G. Buttazzo and G. Buttazzo, "Rate monotonic analysis: the
//!   hyperbolic bound", IEEE Transactions on Computers 52(7), 2003, Theorem 1:
//!   `prod_i (U_i + 1) <= 2`. It accepts every set Liu & Layland accepts.
//!
//! Assumptions:
//! 1. One processor, preemptive fixed priorities, no blocking, no overheads.
//! 2. The bounds are stated for implicit deadlines under RM. For other deadlines each task is
//!    read as (C_i, P_i, P_i) with P_i = min(D_i, T_i), i.e. U_i becomes the density
//!    C_i / min(D_i, T_i) (equal to U_i for implicit deadlines), and the priority order certified
//!    is "shorter P_i first" (RM for implicit deadlines, DM for constrained ones): the
//!    transformed set meets every deadline P_i, and the real releases are at least T_i >= P_i
//!    apart, which fixed-priority scheduling tolerates (sustainability in the period).
//! 3. A task with P_i = 0 is not a valid task: the verdict is "not schedulable".
//!
//! Arithmetic: the hyperbolic bound is rational and decided exactly:
//! `prod_i (C_i + P_i) <= 2 prod_i P_i` over arbitrary-precision naturals. The Liu & Layland
//! bound is irrational, so it is decided in `f64` with a safety margin toward "no": accept iff
//! `U <= n (2^{1/n} - 1) - (1e-9 + 4 n eps)`, the bound computed as `n * expm1(ln 2 / n)` (no
//! cancellation). The sum of n correctly rounded quotients below 1 is off by at most about
//! `n eps`, so a set the float test accepts is below the real bound: the test stays sufficient;
//! only sets within ~1e-9 of the bound are rejected that the exact bound would accept.

use super::utilization::BigNat;
use crate::{SporadicTask, Verdict};

/// Liu & Layland's bound (with densities for non-implicit deadlines, see the module doc).
pub fn liu_layland(tasks: &[SporadicTask]) -> Verdict {
    if tasks.iter().any(|t| p_of(t) == 0) {
        return Verdict::no(None);
    }
    if tasks.is_empty() {
        return Verdict::yes();
    }
    let n = tasks.len() as f64;
    let u: f64 = tasks
        .iter()
        .map(|t| t.wcet_ns() as f64 / p_of(t) as f64)
        .sum();
    let bound = n * (std::f64::consts::LN_2 / n).exp_m1();
    let margin = 1e-9 + 4.0 * n * f64::EPSILON;
    if u <= bound - margin {
        Verdict::yes()
    } else {
        Verdict::no(None)
    }
}

/// The hyperbolic bound, decided exactly (with densities for non-implicit deadlines).
pub fn hyperbolic(tasks: &[SporadicTask]) -> Verdict {
    if tasks.iter().any(|t| p_of(t) == 0 || t.wcet_ns() > p_of(t)) {
        // U_i + 1 > 2 alone exceeds the bound; P_i = 0 is invalid.
        return Verdict::no(None);
    }
    // prod (U_i + 1) <= 2  <=>  prod (C_i + P_i) <= 2 prod P_i  (every P_i > 0).
    let mut lhs = BigNat::from_u64(1);
    let mut rhs = BigNat::from_u64(2);
    for t in tasks {
        lhs = lhs.mul_u64(t.wcet_ns()).add(&lhs.mul_u64(p_of(t)));
        rhs = rhs.mul_u64(p_of(t));
    }
    if lhs <= rhs {
        Verdict::yes()
    } else {
        Verdict::no(None)
    }
}

/// P_i = min(D_i, T_i).
fn p_of(t: &SporadicTask) -> u64 {
    t.deadline_ns().min(t.period_ns())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn implicit(c: u64, t: u64) -> SporadicTask {
        task_ns(c, t, t)
    }

    #[test]
    fn hyperbolic_is_exact_at_the_boundary() {
        // (1/2 + 1)(1/3 + 1) = 2 exactly: accepted; one ns more is rejected.
        assert!(hyperbolic(&[implicit(1, 2), implicit(1, 3)]).schedulable);
        assert!(!hyperbolic(&[implicit(500_000_001, 1_000_000_000), implicit(1, 3)]).schedulable);
    }

    #[test]
    fn liu_layland_rejects_the_boundary_itself() {
        // n = 1: the bound is 1; U = 1 sits on it and is rejected by the safety margin.
        assert!(!liu_layland(&[implicit(5, 5)]).schedulable);
        assert!(liu_layland(&[implicit(99, 100)]).schedulable);
        // n = 2: 2(sqrt 2 - 1) = 0.828427...
        assert!(liu_layland(&[implicit(414, 1000), implicit(414, 1000)]).schedulable);
        assert!(!liu_layland(&[implicit(415, 1000), implicit(414, 1000)]).schedulable);
    }
}
