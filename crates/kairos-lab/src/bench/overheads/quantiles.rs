//! Quantiles of measured costs (ns: min, p50, p90, p99, p99.9, max), from a run's histograms
//! or from raw samples, and their inline tables in an `[overheads]` file.

use crate::Failure;
use kairos_model::overheads::P999_KEY;
use kairos_model::{Duration, Quantiles};
use kairos_rt::measure::{Distribution, HistogramJson, RunResult};

/// The quantiles every profile gives, as fractions.
const POINTS: [f64; 6] = [0.0, 0.5, 0.9, 0.99, 0.999, 1.0];

/// min, p50, p90, p99, p99.9 and max of a run's histogram, ns; an error if it has no sample.
pub(super) fn quantiles_of(result: &RunResult, name: &str) -> Result<[u64; 6], Failure> {
    let histogram = (result.histograms.get(name))
        .filter(|h| h.summary.count > 0)
        .ok_or_else(|| Failure::environment(format!("the run measured no {name}")))?;
    Ok(quantiles(histogram))
}

/// min, p50, p90, p99, p99.9 and max of a histogram with samples, ns (the analysis may charge
/// p99.9, `kairos_analysis::overheads::Quantile::P999` says why; with fewer than a thousand
/// samples it is the max).
pub(super) fn quantiles(histogram: &HistogramJson) -> [u64; 6] {
    POINTS.map(|q| quantile(histogram, q))
}

/// The smallest bucket value with at least a fraction `q` of the samples at or below it.
fn quantile(histogram: &HistogramJson, q: f64) -> u64 {
    if q <= 0.0 {
        return histogram.summary.min;
    }
    let wanted = (q * histogram.summary.count as f64).ceil() as u64;
    let mut seen = 0;
    for &(value, count) in &histogram.buckets {
        seen += count;
        if seen >= wanted {
            return value.clamp(histogram.summary.min, histogram.summary.max);
        }
    }
    histogram.summary.max
}

/// Quantile-wise sum (non-decreasing, as both are).
pub(super) fn combine(a: [u64; 6], b: [u64; 6]) -> [u64; 6] {
    std::array::from_fn(|i| a[i].saturating_add(b[i]))
}

/// `{ min = "...", p50 = "...", p90 = "...", p99 = "...", p999 = "...", max = "..." }`, exact
/// nanoseconds.
pub(super) fn inline_table(values: [u64; 6]) -> String {
    let [min, p50, p90, p99, p999, max] = values.map(Duration::from_nanos);
    // Checked as a reader will check it: non-decreasing, as quantiles and their sums are.
    Quantiles::from_values([min, p50, p90, p99, max])
        .and_then(|q| q.with_p999(p999))
        .expect("combined quantiles are non-decreasing");
    let keys = ["min", "p50", "p90", "p99", P999_KEY, "max"];
    let fields: Vec<String> = (keys.iter())
        .zip([min, p50, p90, p99, p999, max])
        .map(|(key, value)| format!("{key} = \"{}ns\"", value.as_nanos()))
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

/// The quantiles of a distribution measured apart from a run (the floor under a switch).
pub(super) fn quantiles_of_histogram(distribution: &Distribution) -> [u64; 6] {
    quantiles(&HistogramJson {
        summary: distribution.summary(),
        buckets: distribution.buckets(),
    })
}

/// The quantiles of raw samples, exactly as [`quantile`] reads a histogram (the smallest sample
/// with at least that fraction at or below it); `None` without samples. Sorts them.
pub(super) fn quantiles_from_samples(samples: &mut [u64]) -> Option<[u64; 6]> {
    if samples.is_empty() {
        return None;
    }
    samples.sort_unstable();
    let n = samples.len();
    Some(POINTS.map(|q| {
        let wanted = ((q * n as f64).ceil() as usize).clamp(1, n);
        samples[wanted - 1]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_samples_are_the_smallest_with_that_share_at_or_below() {
        let mut samples: Vec<u64> = (1..=1000).rev().collect();
        let q = quantiles_from_samples(&mut samples).expect("samples");
        assert_eq!(q, [1, 500, 900, 990, 999, 1000]);
        let mut three = vec![30, 10, 20];
        assert_eq!(
            quantiles_from_samples(&mut three),
            Some([10, 20, 30, 30, 30, 30])
        );
        assert_eq!(quantiles_from_samples(&mut []), None);
    }
}
