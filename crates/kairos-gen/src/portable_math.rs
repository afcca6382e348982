//! `ln`, `exp` and `pow` written with `+ - * /` only, so their results are bit-identical on
//! every machine.
//!
//! The standard library's `f64::ln`, `exp` and `powf` call the platform's libm, which IEEE 754
//! does not require to be correctly rounded: two machines may differ in the last bit, and a
//! last-bit difference that feeds an integer choice (a period, a rejection test) would make the
//! same seed give different task sets. The functions here use only operations IEEE 754 rounds
//! correctly (add, subtract, multiply, divide, and exact operations such as `floor`, `round`
//! and bit manipulation); Rust never fuses them into FMA on its own, so every platform with
//! IEEE doubles (every tier-1 target) computes the same bits.
//!
//! They are not correctly rounded either: the error is a few units in the last place, far
//! below anything a generator can notice. Reproducibility, not the last ulp, is the point.
//!
//! Method (the classic one of fdlibm, Sun Microsystems 1993, simplified):
//! 1. `ln x`: split `x = m * 2^e` with `m` in `[sqrt(1/2), sqrt(2))`, then
//!    `ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...)` with `s = (m - 1)/(m + 1)`,
//!    `|s| <= 0.172`, summed to 1e-18; `e ln 2` uses a split constant (Cody & Waite).
//! 2. `exp x`: `x = k ln 2 + r` with `|r| <= ln 2 / 2`, the Taylor series of `exp r` to
//!    degree 17, then scaling by `2^k` through the exponent bits.

/// ln 2 split as in fdlibm: `LN2_HI` has 32 significant bits, so `k * LN2_HI` is exact for
/// every exponent `k`; `LN2_HI + LN2_LO` is ln 2 to about 2^-85.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LOG2_E: f64 = std::f64::consts::LOG2_E;
const SQRT_2: f64 = std::f64::consts::SQRT_2;

/// Natural logarithm; `-inf` at 0, NaN below 0 or at NaN, `+inf` at `+inf`.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let (mut m, mut e) = split_exponent(x);
    if m > SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    // 2 atanh(s) = 2s (1 + z/3 + z^2/5 + ... + z^12/25), Horner from the top.
    let mut series = 0.0;
    for k in (1..=12).rev() {
        series = (series + 1.0 / f64::from(2 * k + 1)) * z;
    }
    let ln_m = 2.0 * s + 2.0 * s * series;
    let e = f64::from(e);
    e * LN2_HI + (e * LN2_LO + ln_m)
}

/// `x = m * 2^e` with `m` in `[1, 2)`, for finite `x > 0` (subnormals included).
fn split_exponent(x: f64) -> (f64, i32) {
    let (x, bias) = if x < f64::MIN_POSITIVE {
        (x * f64::from_bits(((1023 + 54) as u64) << 52), 54)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023 - bias;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    (m, e)
}

/// `e^x`; 0 below about -745, `+inf` above about 709.78.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    let k = (x * LOG2_E).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // exp(r) = 1 + r (1 + r/2 (1 + r/3 (... (1 + r/17)))).
    let mut p = 1.0;
    for j in (1..=17).rev() {
        p = 1.0 + r * p / f64::from(j);
    }
    scale_by_power_of_two(p, k as i32)
}

/// `y * 2^k` for `y` near 1, through at most two exact multiplications by powers of two.
fn scale_by_power_of_two(y: f64, k: i32) -> f64 {
    let pow2 = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    if k > 1023 {
        y * pow2(1023) * pow2(k - 1023)
    } else if k < -1022 {
        y * pow2(k + 54) * pow2(-54)
    } else {
        y * pow2(k)
    }
}

/// `x^y` for `x >= 0`, as `exp(y ln x)`; `0^y = 0` for `y > 0`, `x^0 = 1`.
pub fn pow(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x == 0.0 && y > 0.0 {
        return 0.0;
    }
    exp(y * ln(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn ln_matches_libm_to_a_few_ulps() {
        let mut x = 1e-310;
        while x < 1e300 {
            assert!(
                close(ln(x), x.ln(), 4e-16),
                "ln({x}) = {} vs {}",
                ln(x),
                x.ln()
            );
            x *= 1.37;
        }
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }

    #[test]
    fn ln_near_one_is_accurate() {
        for i in 1..2000 {
            let x = 1.0 + f64::from(i) * 1e-7;
            assert!(close(ln(x), x.ln(), 4e-16), "{x}");
            let y = 1.0 - f64::from(i) * 1e-7;
            assert!(close(ln(y), y.ln(), 4e-16), "{y}");
        }
    }

    #[test]
    fn exp_matches_libm_to_a_few_ulps() {
        let mut x = -708.0;
        while x < 709.0 {
            assert!(
                close(exp(x), x.exp(), 4e-16),
                "exp({x}) = {} vs {}",
                exp(x),
                x.exp()
            );
            x += 0.3711;
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert!(close(exp(-740.0), (-740.0f64).exp(), 1e-6));
    }

    #[test]
    fn pow_of_unit_interval_roots() {
        for i in 1..1000 {
            let r = f64::from(i) / 1000.0;
            for k in 1..40 {
                let y = 1.0 / f64::from(k);
                assert!(close(pow(r, y), r.powf(y), 2e-15), "{r}^{y}");
            }
        }
        assert_eq!(pow(0.0, 0.5), 0.0);
        assert_eq!(pow(0.3, 0.0), 1.0);
    }
}
