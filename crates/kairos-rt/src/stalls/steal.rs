//! Steal time per CPU from `/proc/stat`: the 8th number of each `cpuN` line counts the clock
//! ticks the hypervisor ran something else while this vCPU wanted to run (the guest's steal
//! clock, `Documentation/filesystems/proc.rst`, "1.8 Miscellaneous kernel statistics"). Coarse
//! (a tick is [`kairos_os::clock::ticks_per_second`]ths of a second), but it says whether the
//! host took time from a CPU between two readings.

use kairos_model::Duration;
use std::collections::BTreeMap;

/// Steal ticks so far per CPU number, as `/proc/stat` reads now; `None` if it cannot be read.
pub fn steal_ticks_per_cpu() -> Option<BTreeMap<usize, u64>> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    Some(parse_steal(&stat))
}

/// The steal column of every `cpuN` line of a `/proc/stat` text, by CPU number (the `cpu`
/// line of all CPUs together is skipped; a line without a steal column, from a kernel older
/// than 2.6.11, is too).
pub fn parse_steal(stat: &str) -> BTreeMap<usize, u64> {
    stat.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let cpu = fields.next()?.strip_prefix("cpu")?.parse().ok()?;
            let steal = fields.nth(7)?.parse().ok()?;
            Some((cpu, steal))
        })
        .collect()
}

/// `ticks` clock ticks as time.
pub fn ticks_to_duration(ticks: u64) -> Duration {
    let per_second = kairos_os::clock::ticks_per_second();
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000 / per_second.max(1)))
}

/// The steal time each of `cpus` gained from `before` to `after`; `None` for a CPU either
/// reading lacks.
pub fn steal_between(
    cpus: &[usize],
    before: Option<&BTreeMap<usize, u64>>,
    after: Option<&BTreeMap<usize, u64>>,
) -> Vec<Option<Duration>> {
    cpus.iter()
        .map(|cpu| {
            let (b, a) = (before?.get(cpu)?, after?.get(cpu)?);
            Some(ticks_to_duration(a.saturating_sub(*b)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  4612748 737 396111 2573005 30969 0 8517 17360 0 0
cpu0 2261935 361 200423 1333902 8278 0 2879 8584 0 0
cpu1 2350813 376 195687 1239102 22691 0 5637 8776 0 0
intr 47704184 0 0 0
ctxt 123
";

    #[test]
    fn the_eighth_number_of_each_cpu_line_is_its_steal() {
        let steal = parse_steal(STAT);
        assert_eq!(steal, BTreeMap::from([(0, 8584), (1, 8776)]));
    }

    #[test]
    fn a_line_without_a_steal_column_is_skipped() {
        let steal = parse_steal("cpu0 1 2 3 4 5 6 7\ncpu1 1 2 3 4 5 6 7 9\n");
        assert_eq!(steal, BTreeMap::from([(1, 9)]));
    }

    #[test]
    fn steal_gained_is_the_difference_in_ticks_as_time() {
        let before = BTreeMap::from([(0, 10), (1, 20)]);
        let after = BTreeMap::from([(0, 13), (1, 20)]);
        let tick = 1_000_000_000 / kairos_os::clock::ticks_per_second();
        let gained = steal_between(&[0, 1, 2], Some(&before), Some(&after));
        assert_eq!(
            gained,
            vec![
                Some(Duration::from_nanos(3 * tick)),
                Some(Duration::ZERO),
                None
            ]
        );
        assert_eq!(steal_between(&[0], None, Some(&after)), vec![None]);
    }
}
