//! SchedCAT's named utilization, period and deadline distributions.
//!
//! Definitions follow SchedCAT (B. Brandenburg et al., `schedcat/generator/tasksets.py`,
//! `NAMED_UTILIZATIONS` and `NAMED_PERIODS`), used in e.g. B. Brandenburg, "Scheduling and
//! Locking in Multiprocessor Real-Time Operating Systems", PhD thesis, UNC 2011, Ch. 4; the
//! broad period range is that of Emberson, Stafford and Davis (WATERS 2010).
//!
//! | name | definition |
//! |---|---|
//! | `uni-light` / `uni-medium` / `uni-heavy` | utilization uniform in `[0.001,0.1)` / `[0.1,0.4)` / `[0.5,0.9)` |
//! | `exp-light` / `exp-medium` / `exp-heavy` | exponential with mean 0.10 / 0.25 / 0.50, redrawn while above 1 |
//! | `bimo-light` / `bimo-medium` / `bimo-heavy` | `U[0.001,0.5)` with probability 8/9, 6/9, 4/9, else `U[0.5,0.9)` |
//! | `uni-short` / `uni-moderate` / `uni-long` | integer period (ms) uniform in `[3,33]` / `[10,100]` / `[50,250]` |
//! | `log-uni-short` / `-moderate` / `-long` | `floor(exp(U[ln min, ln(max+1))))`: log-uniform integer over the same ranges |
//! | `uni-broad` | integer period uniform in `[1,1000]` ms |
//! | `uni-MIN-MAX`, `log-uni-MIN-MAX` | the same shapes over a custom range in ms |
//! | `implicit` / `uni-constrained` / `uni-arbitrary` | `D = T` / `D = C + U(0,1)(T - C)` / `D = C + U(0,2)(T - C)` |
//!
//! The exponential's redraw truncates it to [0, 1], so its mean is below the nominal one:
//! `mu - e^(-1/mu) / (1 - e^(-1/mu))` (0.0999546, 0.2283, 0.3435).
//!
//! Each distribution parses from its name (`FromStr`), prints its name (`Display`), and
//! serializes as that name, so experiment configs can name them.

use crate::portable_math::{exp, ln};
use crate::rng::{below, uniform_f64, uniform_inclusive, unit_f64, ChaCha8Rng};
use std::fmt;
use std::str::FromStr;

/// A named per-task utilization distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UtilDist {
    UniLight,
    UniMedium,
    UniHeavy,
    ExpLight,
    ExpMedium,
    ExpHeavy,
    BimoLight,
    BimoMedium,
    BimoHeavy,
}

/// The two modes of the bimodal distributions.
const LIGHT_MODE: (f64, f64) = (0.001, 0.5);
const HEAVY_MODE: (f64, f64) = (0.5, 0.9);

impl UtilDist {
    pub const ALL: [UtilDist; 9] = [
        UtilDist::UniLight,
        UtilDist::UniMedium,
        UtilDist::UniHeavy,
        UtilDist::ExpLight,
        UtilDist::ExpMedium,
        UtilDist::ExpHeavy,
        UtilDist::BimoLight,
        UtilDist::BimoMedium,
        UtilDist::BimoHeavy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UtilDist::UniLight => "uni-light",
            UtilDist::UniMedium => "uni-medium",
            UtilDist::UniHeavy => "uni-heavy",
            UtilDist::ExpLight => "exp-light",
            UtilDist::ExpMedium => "exp-medium",
            UtilDist::ExpHeavy => "exp-heavy",
            UtilDist::BimoLight => "bimo-light",
            UtilDist::BimoMedium => "bimo-medium",
            UtilDist::BimoHeavy => "bimo-heavy",
        }
    }

    /// One utilization, in `[0, 1]`.
    pub fn sample(self, rng: &mut ChaCha8Rng) -> f64 {
        match self {
            UtilDist::UniLight => uniform_f64(rng, 0.001, 0.1),
            UtilDist::UniMedium => uniform_f64(rng, 0.1, 0.4),
            UtilDist::UniHeavy => uniform_f64(rng, 0.5, 0.9),
            UtilDist::ExpLight => truncated_exponential(rng, 0.10),
            UtilDist::ExpMedium => truncated_exponential(rng, 0.25),
            UtilDist::ExpHeavy => truncated_exponential(rng, 0.50),
            UtilDist::BimoLight => bimodal(rng, 8),
            UtilDist::BimoMedium => bimodal(rng, 6),
            UtilDist::BimoHeavy => bimodal(rng, 4),
        }
    }
}

/// Exponential with the given mean (inverse CDF), redrawn while above 1.
fn truncated_exponential(rng: &mut ChaCha8Rng, mean: f64) -> f64 {
    loop {
        // 1 - r is exact and in (0, 1]; `0.0 - ...` keeps a zero positive.
        let x = 0.0 - mean * ln(1.0 - unit_f64(rng));
        if x <= 1.0 {
            return x;
        }
    }
}

/// The light mode with probability `light_ninths / 9`, else the heavy mode.
fn bimodal(rng: &mut ChaCha8Rng, light_ninths: u64) -> f64 {
    let (lo, hi) = if below(rng, 9) < light_ninths {
        LIGHT_MODE
    } else {
        HEAVY_MODE
    };
    uniform_f64(rng, lo, hi)
}

/// A period distribution; every period is a whole number of milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeriodDist {
    UniShort,
    UniModerate,
    UniLong,
    LogUniShort,
    LogUniModerate,
    LogUniLong,
    UniBroad,
    /// Uniform integer in `[min_ms, max_ms]` (`uni-MIN-MAX`).
    Uniform {
        min_ms: u64,
        max_ms: u64,
    },
    /// Log-uniform integer in `[min_ms, max_ms]` (`log-uni-MIN-MAX`).
    LogUniform {
        min_ms: u64,
        max_ms: u64,
    },
}

impl PeriodDist {
    /// The named distributions (custom ranges excluded).
    pub const NAMED: [PeriodDist; 7] = [
        PeriodDist::UniShort,
        PeriodDist::UniModerate,
        PeriodDist::UniLong,
        PeriodDist::LogUniShort,
        PeriodDist::LogUniModerate,
        PeriodDist::LogUniLong,
        PeriodDist::UniBroad,
    ];

    /// The name of a named distribution; `None` for a custom range (see `Display`).
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            PeriodDist::UniShort => "uni-short",
            PeriodDist::UniModerate => "uni-moderate",
            PeriodDist::UniLong => "uni-long",
            PeriodDist::LogUniShort => "log-uni-short",
            PeriodDist::LogUniModerate => "log-uni-moderate",
            PeriodDist::LogUniLong => "log-uni-long",
            PeriodDist::UniBroad => "uni-broad",
            PeriodDist::Uniform { .. } | PeriodDist::LogUniform { .. } => return None,
        })
    }

    /// The inclusive range in ms, and whether it is log-uniform.
    pub fn range_ms(self) -> (u64, u64, bool) {
        match self {
            PeriodDist::UniShort => (3, 33, false),
            PeriodDist::UniModerate => (10, 100, false),
            PeriodDist::UniLong => (50, 250, false),
            PeriodDist::LogUniShort => (3, 33, true),
            PeriodDist::LogUniModerate => (10, 100, true),
            PeriodDist::LogUniLong => (50, 250, true),
            PeriodDist::UniBroad => (1, 1000, false),
            PeriodDist::Uniform { min_ms, max_ms } => (min_ms, max_ms, false),
            PeriodDist::LogUniform { min_ms, max_ms } => (min_ms, max_ms, true),
        }
    }

    /// Checks a custom range: `1 <= min_ms <= max_ms <= 10^9` (about 11.6 days).
    pub fn validate(self) -> Result<(), crate::GenError> {
        let (lo, hi, _) = self.range_ms();
        if lo >= 1 && lo <= hi && hi <= 1_000_000_000 {
            Ok(())
        } else {
            Err(crate::GenError::invalid(
                "period distribution",
                self,
                "a range with 1 <= min <= max <= 10^9 ms",
            ))
        }
    }

    /// One period in milliseconds, within [`PeriodDist::range_ms`].
    pub fn sample_ms(self, rng: &mut ChaCha8Rng) -> u64 {
        let (lo, hi, log) = self.range_ms();
        let lo = lo.max(1);
        if !log {
            return uniform_inclusive(rng, lo, hi);
        }
        // SchedCAT's log_uniform_int: truncate a log-uniform real on [lo, hi + 1).
        let (a, b) = (ln(lo as f64), ln(hi as f64 + 1.0));
        let x = exp(uniform_f64(rng, a, b)).floor();
        (x as u64).clamp(lo, hi.max(lo))
    }
}

/// How the relative deadline follows from `C` and `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadlineDist {
    /// `D = T`; draws nothing.
    Implicit,
    /// `D = C + U(0,1) (T - C)`.
    UniConstrained,
    /// `D = C + U(0,2) (T - C)`.
    UniArbitrary,
}

impl DeadlineDist {
    pub const ALL: [DeadlineDist; 3] = [
        DeadlineDist::Implicit,
        DeadlineDist::UniConstrained,
        DeadlineDist::UniArbitrary,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DeadlineDist::Implicit => "implicit",
            DeadlineDist::UniConstrained => "uni-constrained",
            DeadlineDist::UniArbitrary => "uni-arbitrary",
        }
    }

    /// The random factor `f` of `D = C + f (T - C)`; `None` (and no draw) for implicit.
    pub fn sample_factor(self, rng: &mut ChaCha8Rng) -> Option<f64> {
        match self {
            DeadlineDist::Implicit => None,
            DeadlineDist::UniConstrained => Some(unit_f64(rng)),
            DeadlineDist::UniArbitrary => Some(2.0 * unit_f64(rng)),
        }
    }
}

/// A name that matches no distribution; its message lists the valid ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseDistError {
    pub kind: &'static str,
    pub given: String,
    pub valid: Vec<&'static str>,
}

impl fmt::Display for ParseDistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} distribution '{}'; valid names: {}",
            self.kind,
            self.given,
            self.valid.join(", ")
        )?;
        if self.kind == "period" {
            write!(
                f,
                ", or uni-MIN-MAX / log-uni-MIN-MAX in whole ms (e.g. uni-350-850)"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseDistError {}

impl FromStr for UtilDist {
    type Err = ParseDistError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        UtilDist::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| ParseDistError {
                kind: "utilization",
                given: s.to_string(),
                valid: UtilDist::ALL.iter().map(|d| d.name()).collect(),
            })
    }
}

impl FromStr for PeriodDist {
    type Err = ParseDistError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        if let Some(d) = PeriodDist::NAMED
            .into_iter()
            .find(|d| d.name() == Some(name))
        {
            return Ok(d);
        }
        let custom = |rest: &str| -> Option<(u64, u64)> {
            let (lo, hi) = rest.split_once('-')?;
            Some((lo.parse().ok()?, hi.parse().ok()?))
        };
        let parsed = if let Some(rest) = name.strip_prefix("log-uni-") {
            custom(rest).map(|(min_ms, max_ms)| PeriodDist::LogUniform { min_ms, max_ms })
        } else if let Some(rest) = name.strip_prefix("uni-") {
            custom(rest).map(|(min_ms, max_ms)| PeriodDist::Uniform { min_ms, max_ms })
        } else {
            None
        };
        parsed
            .filter(|d| d.validate().is_ok())
            .ok_or_else(|| ParseDistError {
                kind: "period",
                given: s.to_string(),
                valid: PeriodDist::NAMED.iter().filter_map(|d| d.name()).collect(),
            })
    }
}

impl FromStr for DeadlineDist {
    type Err = ParseDistError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        DeadlineDist::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| ParseDistError {
                kind: "deadline",
                given: s.to_string(),
                valid: DeadlineDist::ALL.iter().map(|d| d.name()).collect(),
            })
    }
}

impl fmt::Display for UtilDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for PeriodDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.name(), self.range_ms()) {
            (Some(name), _) => f.write_str(name),
            (None, (lo, hi, true)) => write!(f, "log-uni-{lo}-{hi}"),
            (None, (lo, hi, false)) => write!(f, "uni-{lo}-{hi}"),
        }
    }
}

impl fmt::Display for DeadlineDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Serializes as the name and deserializes through `FromStr`, for configuration files.
macro_rules! serde_by_name {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <String as serde::Deserialize>::deserialize(d)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
serde_by_name!(UtilDist);
serde_by_name!(PeriodDist);
serde_by_name!(DeadlineDist);

#[cfg(test)]
mod tests;
