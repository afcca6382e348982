//! UUniFast and UUniFast-discard: utilization vectors uniform on the simplex.
//!
//! - E. Bini and G. C. Buttazzo, "Measuring the Performance of Schedulability Tests",
//!   Real-Time Systems 30(1-2), 2005, Fig. 2 (UUniFast).
//! - R. I. Davis and A. Burns, "Priority Assignment for Global Fixed Priority Pre-Emptive
//!   Scheduling in Multiprocessor Real-Time Systems", RTSS 2009, Section 6 (UUniFast-discard:
//!   redraw the whole vector while any `u_i` exceeds 1).
//!
//! UUniFast draws `n` utilizations `u_1..u_n >= 0` with `sum u_i = U`, uniformly on that
//! simplex: `sumU_0 = U`, `sumU_i = sumU_{i-1} * r_i^(1/(n-i))` with `r_i ~ U[0,1)`,
//! `u_i = sumU_{i-1} - sumU_i`, and `u_n = sumU_{n-1}`. Each `u_i / U` is then Beta(1, n-1)
//! distributed. (SimSo's published version swaps `n` and `U`; this one follows the paper.)
//!
//! Assumptions:
//! 1. `n >= 1` and `U` is finite and `>= 0`.
//! 2. The root `r^(1/(n-i))` uses [`crate::portable_math::pow`], so a seed gives the same bits
//!    on every machine.

use crate::error::{non_negative, GenError};
use crate::portable_math::pow;
use crate::rng::{unit_f64, ChaCha8Rng};

/// UUniFast-discard's limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Discard {
    /// No utilization may exceed this (Davis & Burns use 1).
    pub cap: f64,
    /// Whole vectors drawn before giving up with [`GenError::RetriesExhausted`].
    pub max_attempts: u32,
}

impl Discard {
    /// The per-task cap of Davis & Burns (2009).
    pub const DEFAULT_CAP: f64 = 1.0;
    /// Enough for every acceptance rate above about 0.1 %.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 10_000;

    /// A cap with the default number of attempts.
    pub fn with_cap(cap: f64) -> Discard {
        Discard {
            cap,
            ..Discard::default()
        }
    }
}

impl Default for Discard {
    fn default() -> Self {
        Discard {
            cap: Discard::DEFAULT_CAP,
            max_attempts: Discard::DEFAULT_MAX_ATTEMPTS,
        }
    }
}

/// `n` utilizations, uniform on `{u >= 0, sum u = total}` (Bini & Buttazzo 2005).
pub fn uunifast(rng: &mut ChaCha8Rng, n: usize, total: f64) -> Result<Vec<f64>, GenError> {
    check_count(n)?;
    non_negative("total", total)?;
    Ok(draw(rng, n, total))
}

/// UUniFast, redrawn while any utilization exceeds `discard.cap` (Davis & Burns 2009).
///
/// The accepted vectors are uniform on `{0 <= u_i <= cap, sum u = total}`. Fails at once with
/// [`GenError::Infeasible`] when `total > n * cap`, and with [`GenError::RetriesExhausted`]
/// after `discard.max_attempts` rejected vectors (the acceptance rate collapses as `total`
/// approaches `n * cap`; [`RandFixedSum`](crate::RandFixedSum) has no such limit).
pub fn uunifast_discard(
    rng: &mut ChaCha8Rng,
    n: usize,
    total: f64,
    discard: Discard,
) -> Result<Vec<f64>, GenError> {
    check_count(n)?;
    non_negative("total", total)?;
    if !(discard.cap.is_finite() && discard.cap > 0.0) {
        return Err(GenError::invalid("cap", discard.cap, "a finite number > 0"));
    }
    if total > n as f64 * discard.cap {
        return Err(GenError::Infeasible(format!(
            "total utilization {total} exceeds n * cap = {n} * {}",
            discard.cap
        )));
    }
    for _ in 0..discard.max_attempts {
        let u = draw(rng, n, total);
        if u.iter().all(|&x| x <= discard.cap) {
            return Ok(u);
        }
    }
    Err(GenError::RetriesExhausted {
        generator: "UUniFast-discard",
        attempts: discard.max_attempts,
    })
}

fn check_count(n: usize) -> Result<(), GenError> {
    if n == 0 {
        return Err(GenError::invalid("n", n, "at least one task"));
    }
    Ok(())
}

/// Bini & Buttazzo's loop, with the paper's symbols.
fn draw(rng: &mut ChaCha8Rng, n: usize, total: f64) -> Vec<f64> {
    let mut u = Vec::with_capacity(n);
    let mut sum_u = total;
    for i in 1..n {
        let next_sum_u = sum_u * pow(unit_f64(rng), 1.0 / (n - i) as f64);
        u.push(sum_u - next_sum_u);
        sum_u = next_sum_u;
    }
    u.push(sum_u);
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;

    #[test]
    fn single_task_gets_everything() {
        assert_eq!(uunifast(&mut seeded(1), 1, 0.7).unwrap(), vec![0.7]);
    }

    #[test]
    fn rejects_bad_input() {
        let rng = &mut seeded(1);
        assert!(uunifast(rng, 0, 1.0).is_err());
        assert!(uunifast(rng, 3, f64::NAN).is_err());
        assert!(uunifast(rng, 3, -0.1).is_err());
        let err = uunifast_discard(rng, 2, 2.5, Discard::default()).unwrap_err();
        assert!(matches!(err, GenError::Infeasible(_)), "{err}");
    }

    #[test]
    fn gives_up_when_acceptance_is_hopeless() {
        let discard = Discard {
            cap: 1.0,
            max_attempts: 50,
        };
        let err = uunifast_discard(&mut seeded(1), 20, 19.9, discard).unwrap_err();
        assert_eq!(
            err,
            GenError::RetriesExhausted {
                generator: "UUniFast-discard",
                attempts: 50
            }
        );
        assert!(err.to_string().contains("RandFixedSum"));
    }
}
