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

    /// A distribution whose buckets up to `highest_ns` exist from the start, so that recording
    /// a value up to it never allocates (a real-time thread records on its critical path);
    /// beyond it, it still grows as needed.
    pub fn with_range(highest_ns: u64) -> Self {
        let mut histogram = Histogram::new_with_bounds(1, highest_ns.max(2), 3)
            .expect("1 to at least 2 with 3 significant digits are valid bounds");
        histogram.auto(true);
        Distribution { histogram }
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
    /// Records `ns` into the distribution `name`, allocating only the first time a name is
    /// seen (and when a value is beyond the distribution's range so far).
    pub fn record(&mut self, name: &str, ns: u64) {
        match self.distributions.get_mut(name) {
            Some(d) => d.record(ns),
            None => self
                .distributions
                .entry(name.to_string())
                .or_default()
                .record(ns),
        }
    }

    /// Creates the distribution `name` with buckets up to `highest_ns` if it does not exist yet
    /// ([`Distribution::with_range`]): a thread that records on its critical path reserves its
    /// distributions before the run starts. An empty distribution adds nothing to a run's
    /// histograms.
    pub fn reserve(&mut self, name: &str, highest_ns: u64) {
        if !self.distributions.contains_key(name) {
            (self.distributions).insert(name.to_string(), Distribution::with_range(highest_ns));
        }
    }

    /// Adds `other`'s distributions; an empty one (reserved, never recorded) adds nothing.
    pub fn merge(&mut self, other: &Measurements) {
        for (name, d) in other.distributions.iter().filter(|(_, d)| d.count() > 0) {
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
