//! cyclictest (rt-tests), the reference timer-latency tool kairos's own probes are set beside:
//! whether it is installed, and its histogram read back.

use kairos_rt::measure::Distribution;

/// Whether an executable called `name` is on `PATH`.
pub fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(name))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Sums cyclictest's `-h` histogram over its threads: lines `BUCKET_US COUNT COUNT ...`, and
/// `# Histogram Overflows: N N` counted just above the histogram's range.
pub fn parse_cyclictest_histogram(text: &str) -> Distribution {
    let mut histogram = Distribution::new();
    let mut top_us = 0u64;
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(first) = fields.next() else { continue };
        if let Ok(bucket_us) = first.parse::<u64>() {
            let count: u64 = fields.filter_map(|f| f.parse::<u64>().ok()).sum();
            // A bucket holds [N, N+1) us: its middle is the fair point to compare with.
            if count > 0 {
                histogram.record_n(bucket_us * 1000 + 500, count);
            }
            top_us = top_us.max(bucket_us);
        } else if let Some(rest) = line.strip_prefix("# Histogram Overflows:") {
            let overflows: u64 = rest
                .split_whitespace()
                .filter_map(|f| f.parse::<u64>().ok())
                .sum();
            if overflows > 0 {
                histogram.record_n((top_us + 1) * 1000 + 500, overflows);
            }
        }
    }
    histogram
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyclictest_histogram_is_summed_over_threads() {
        let text = "# /dev/cpu_dma_latency set to 0us\n# Histogram\n000010 000002\t000001\n000011 000000\t000004\n# Total: 000000002 000000005\n# Min Latencies: 00010 00010\n# Histogram Overflows: 00001 00000\n";
        let h = parse_cyclictest_histogram(text);
        assert_eq!(h.count(), 8);
        let s = h.summary();
        assert!(s.min >= 10_490 && s.min <= 10_510, "{s:?}");
        assert!(s.p50 >= 11_490 && s.p50 < 11_520, "{s:?}");
        assert!(s.max >= 12_000, "overflow counted above the range: {s:?}");
    }
}
