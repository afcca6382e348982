//! Durations written by people: `"10ms"`, `"250us"`, `"1.5ms"`, `"2s"`, `"40ns"`.
//!
//! The value is exact: the decimal digits are scaled to nanoseconds with integer arithmetic, and a
//! value finer than one nanosecond is an error rather than being rounded.

use crate::time::Duration;
use thiserror::Error;

/// Why a duration text was refused. The messages are shown to users by `kairos check`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DurationTextError {
    #[error("duration {0:?} has no unit")]
    MissingUnit(String),
    #[error("duration {text:?} has unknown unit {unit:?}")]
    UnknownUnit { text: String, unit: String },
    #[error("duration {0:?} is negative")]
    Negative(String),
    #[error("duration {0:?} is not a number with a unit")]
    Malformed(String),
    #[error("duration {0:?} is finer than one nanosecond")]
    TooFine(String),
    #[error("duration {0:?} is too large (more than 584 years)")]
    TooLarge(String),
}

/// Units accepted after the number, with their length in nanoseconds.
pub const UNITS: [(&str, u64); 5] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
];

/// Parses `"<number><unit>"` (spaces around and between allowed) into an exact [`Duration`].
pub fn parse_duration(text: &str) -> Result<Duration, DurationTextError> {
    let trimmed = text.trim();
    if trimmed.starts_with('-') {
        return Err(DurationTextError::Negative(text.to_string()));
    }
    let number_end = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_' || c == '+'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(number_end);
    let unit = unit.trim();
    if number.is_empty() {
        return Err(DurationTextError::Malformed(text.to_string()));
    }
    if unit.is_empty() {
        return Err(DurationTextError::MissingUnit(text.to_string()));
    }
    // "1e9s" has an exponent, not the unit "e9s".
    let exponent =
        |rest: &str| rest.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    if unit.strip_prefix(['e', 'E']).is_some_and(exponent) {
        return Err(DurationTextError::Malformed(text.to_string()));
    }
    let Some(&(_, scale)) = UNITS.iter().find(|(name, _)| *name == unit) else {
        return Err(DurationTextError::UnknownUnit {
            text: text.to_string(),
            unit: unit.to_string(),
        });
    };
    scale_decimal(number, scale, text).map(Duration::from_nanos)
}

/// `number * scale` for a decimal `number` such as `1.5`, exactly.
fn scale_decimal(number: &str, scale: u64, text: &str) -> Result<u64, DurationTextError> {
    let malformed = || DurationTextError::Malformed(text.to_string());
    let too_large = || DurationTextError::TooLarge(text.to_string());
    let number = number.strip_prefix('+').unwrap_or(number).replace('_', "");
    let (whole, fraction) = match number.split_once('.') {
        Some((w, f)) => (w, f),
        None => (number.as_str(), ""),
    };
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !all_digits(whole) || !all_digits(fraction) {
        return Err(malformed());
    }
    let whole_value: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_large())?
    };
    let mut nanos = whole_value.checked_mul(scale).ok_or_else(too_large)?;
    let mut place = scale;
    for digit in fraction.bytes().map(|b| u64::from(b - b'0')) {
        if !place.is_multiple_of(10) {
            if digit != 0 {
                return Err(DurationTextError::TooFine(text.to_string()));
            }
            continue;
        }
        place /= 10;
        nanos = nanos.checked_add(digit * place).ok_or_else(too_large)?;
    }
    Ok(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_unit_and_fractions() {
        assert_eq!(parse_duration("10ms"), Ok(Duration::from_millis(10)));
        assert_eq!(parse_duration("1.5ms"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("250µs"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration(" 40 ns "), Ok(Duration::from_nanos(40)));
        assert_eq!(parse_duration("0.001ms"), Ok(Duration::from_nanos(1000)));
        assert_eq!(parse_duration(".5s"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("3.910ms"), Ok(Duration::from_micros(3910)));
    }

    #[test]
    fn refuses_what_is_not_exact() {
        assert_eq!(
            parse_duration("5"),
            Err(DurationTextError::MissingUnit("5".into()))
        );
        assert!(matches!(
            parse_duration("5h"),
            Err(DurationTextError::UnknownUnit { .. })
        ));
        assert_eq!(
            parse_duration("-1ms"),
            Err(DurationTextError::Negative("-1ms".into()))
        );
        assert_eq!(
            parse_duration("1.5ns"),
            Err(DurationTextError::TooFine("1.5ns".into()))
        );
        assert_eq!(
            parse_duration("ms"),
            Err(DurationTextError::Malformed("ms".into()))
        );
        assert_eq!(
            parse_duration("1.2.3ms"),
            Err(DurationTextError::Malformed("1.2.3ms".into()))
        );
        assert_eq!(
            parse_duration("1e9s"),
            Err(DurationTextError::Malformed("1e9s".into()))
        );
        assert!(matches!(
            parse_duration("5e"),
            Err(DurationTextError::UnknownUnit { .. })
        ));
        assert!(matches!(
            parse_duration("99999999999s"),
            Err(DurationTextError::TooLarge(_))
        ));
    }

    #[test]
    fn round_trips_through_display() {
        for ns in [
            1u64,
            999,
            1_000,
            1_500,
            3_910_000,
            10_000_000_000,
            123_456_789,
        ] {
            let d = Duration::from_nanos(ns);
            assert_eq!(parse_duration(&d.to_string()), Ok(d));
        }
    }
}
