//! Time in integer nanoseconds.
//!
//! Two newtypes keep points and lengths apart: `Instant - Instant = Duration`,
//! `Instant + Duration = Instant`, and there is no `Instant + Instant`. Arithmetic panics on
//! overflow in every profile (`overflow-checks = true` in the workspace); inputs are validated
//! before they reach arithmetic, so an overflow is a bug, never a user error.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// A length of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

/// A point in time, in nanoseconds since the start of the schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * 1_000_000_000)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    pub fn checked_add(self, other: Duration) -> Option<Duration> {
        self.0.checked_add(other.0).map(Duration)
    }
    pub fn checked_mul(self, factor: u64) -> Option<Duration> {
        self.0.checked_mul(factor).map(Duration)
    }
    pub fn checked_sub(self, other: Duration) -> Option<Duration> {
        self.0.checked_sub(other.0).map(Duration)
    }
    pub fn saturating_sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
    /// Seconds as a float, for display and ratios only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Milliseconds as a float, for display only.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl Instant {
    pub const ZERO: Instant = Instant(0);

    pub const fn from_nanos(ns: u64) -> Self {
        Instant(ns)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// The length from the origin to this instant.
    pub const fn since_origin(self) -> Duration {
        Duration(self.0)
    }
    pub fn checked_add(self, d: Duration) -> Option<Instant> {
        self.0.checked_add(d.0).map(Instant)
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, rhs: Duration) -> Duration {
        Duration(self.0 + rhs.0)
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, rhs: Duration) {
        self.0 += rhs.0;
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, rhs: Duration) -> Duration {
        Duration(self.0 - rhs.0)
    }
}
impl SubAssign for Duration {
    fn sub_assign(&mut self, rhs: Duration) {
        self.0 -= rhs.0;
    }
}
impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0 + rhs.0)
    }
}
impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        self.0 += rhs.0;
    }
}
impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, rhs: Duration) -> Instant {
        Instant(self.0 - rhs.0)
    }
}
impl Sub for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        Duration(self.0 - rhs.0)
    }
}

/// Prints with the largest unit that keeps the value exact ("1.5ms", "250us", "7ns").
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        format_nanos(self.0, f)
    }
}
impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        format_nanos(self.0, f)
    }
}

fn format_nanos(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    if ns == 0 {
        return write!(f, "0ns");
    }
    for (scale, unit) in UNITS {
        if ns >= scale {
            let whole = ns / scale;
            let frac = ns % scale;
            if frac == 0 {
                return write!(f, "{whole}{unit}");
            }
            // Up to three fractional digits keep it readable; otherwise fall to a finer unit.
            if frac.is_multiple_of((scale / 1000).max(1)) && scale >= 1000 {
                let digits = format!("{:03}", frac / (scale / 1000));
                return write!(f, "{whole}.{}{unit}", digits.trim_end_matches('0'));
            }
        }
    }
    write!(f, "{ns}ns")
}

/// Durations serialize as the text workload files use ("1.5ms"), so output can be read back.
impl serde::Serialize for Duration {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Instants serialize as integer nanoseconds, for machine-readable traces.
impl serde::Serialize for Instant {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

/// Greatest common divisor (Euclid).
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Least common multiple, `None` on overflow of `u64` nanoseconds.
pub fn checked_lcm(a: u64, b: u64) -> Option<u64> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_picks_the_exact_unit() {
        assert_eq!(Duration::from_millis(10).to_string(), "10ms");
        assert_eq!(Duration::from_micros(1500).to_string(), "1.5ms");
        assert_eq!(Duration::from_micros(250).to_string(), "250us");
        assert_eq!(Duration::from_nanos(1_000_001).to_string(), "1000.001us");
        assert_eq!(Duration::from_nanos(0).to_string(), "0ns");
        assert_eq!(Duration::from_nanos(3_910_000).to_string(), "3.91ms");
    }

    #[test]
    fn lcm_detects_overflow() {
        assert_eq!(checked_lcm(4, 6), Some(12));
        assert_eq!(checked_lcm(u64::MAX, u64::MAX - 1), None);
    }
}
