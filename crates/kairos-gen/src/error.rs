//! The one error type of the generators.
//!
//! Every problem a caller can cause (a parameter out of its domain, an infeasible request, a
//! rejection sampler that ran out of attempts) is a value of [`GenError`]; the generators never
//! panic on user input.

use std::fmt;

/// Why a generator could not produce a result.
#[derive(Clone, Debug, PartialEq)]
pub enum GenError {
    /// A parameter lies outside its domain, e.g. a negative utilization or a zero grid.
    InvalidParameter {
        /// The parameter's name as the API spells it.
        name: &'static str,
        /// The value given, as text.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// The parameters are each valid but no result exists, e.g. a total utilization above
    /// `n * cap`.
    Infeasible(String),
    /// A rejection sampler (UUniFast-discard) gave up after `attempts` draws.
    RetriesExhausted {
        generator: &'static str,
        attempts: u32,
    },
}

impl GenError {
    pub(crate) fn invalid(
        name: &'static str,
        value: impl fmt::Display,
        expected: &'static str,
    ) -> Self {
        GenError::InvalidParameter {
            name,
            value: value.to_string(),
            expected,
        }
    }
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::InvalidParameter {
                name,
                value,
                expected,
            } => write!(f, "invalid {name} = {value}: expected {expected}"),
            GenError::Infeasible(why) => write!(f, "infeasible request: {why}"),
            GenError::RetriesExhausted {
                generator,
                attempts,
            } => write!(
                f,
                "{generator} gave up after {attempts} attempts; the acceptance rate is too low \
                 for these parameters (raise the cap or the attempt limit, or use RandFixedSum)"
            ),
        }
    }
}

impl std::error::Error for GenError {}

/// Checks that `value` is finite and at least zero.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64, GenError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(GenError::invalid(name, value, "a finite number >= 0"))
    }
}
