//! Distributions of nanosecond values (HDR histograms, 3 significant digits), their summaries
//! and the named set a run collects.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// A distribution of nanosecond values.
#[derive(Clone, Debug)]
pub struct Distribution {
    histogram: Histogram<u64>,
}

impl Default for Distribution {
    fn default() -> Self {
        Distribution::new()
    }
}

impl Distribution {
    pub fn new() -> Self {
        Distribution {
            // 3 significant digits, growing as needed: no value is ever refused.
            histogram: Histogram::new(3).expect("3 significant digits is a valid precision"),
        }
    }

    pub fn record(&mut self, ns: u64) {
        // With auto-resize, recording only fails for values beyond u64 ranges it cannot hold.
        let _ = self.histogram.record(ns);
    }

    /// Records `value` `count` times (e.g. a bucket of another tool's histogram).
    pub fn record_n(&mut self, ns: u64, count: u64) {
        let _ = self.histogram.record_n(ns, count);
    }

    pub fn merge(&mut self, other: &Distribution) {
        let _ = self.histogram.add(&other.histogram);
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    pub fn summary(&self) -> Summary {
        let h = &self.histogram;
        if h.is_empty() {
            return Summary::default();
        }
        Summary {
            count: h.len(),
            min: h.min(),
            p50: h.value_at_quantile(0.5),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean().round() as u64,
        }
    }

    /// Non-empty buckets as (highest value equivalent to the bucket, count), ascending.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.histogram
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_since_last_iteration()))
            .collect()
    }
}

/// Summary of a distribution in nanoseconds (zeros when empty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub count: u64,
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: u64,
}

impl Summary {
    /// "min 14.1 / p50 17.0 / p99 35.2 / p99.9 48.0 / max 60.3 us (n = 1000)".
    pub fn display_us(&self) -> String {
        if self.count == 0 {
            return "no samples".into();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        format!(
            "min {:.1} / p50 {:.1} / p99 {:.1} / p99.9 {:.1} / max {:.1} us (n = {})",
            us(self.min),
            us(self.p50),
            us(self.p99),
            us(self.p999),
            us(self.max),
            self.count
        )
    }
}

/// Named distributions a run collects (the standard ones plus any a dispatcher adds).
#[derive(Clone, Debug, Default)]
pub struct Measurements {
    pub distributions: BTreeMap<String, Distribution>,
}

impl Measurements {
    pub fn record(&mut self, name: &str, ns: u64) {
        self.distributions
            .entry(name.to_string())
            .or_default()
            .record(ns);
    }

    pub fn merge(&mut self, other: &Measurements) {
        for (name, d) in &other.distributions {
            self.distributions.entry(name.clone()).or_default().merge(d);
        }
    }

    pub fn summary(&self, name: &str) -> Summary {
        self.distributions
            .get(name)
            .map(Distribution::summary)
            .unwrap_or_default()
    }
}
