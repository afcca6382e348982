//! The time a slowed core took from a job: CPU time its worker held that its calibrated work
//! does not account for, beyond the share every segment of the run loses so.
//!
//! A worker of the user-space dispatcher counts its work in calibrated units
//! ([`crate::calibrate`]) and reads its thread's CPU time at each end of a segment
//! ([`WorkerTime`]). CPU time with no work in it is time the core ran slower than at
//! calibration while the worker held it: a hypervisor sharing the physical core with another
//! guest, a lower clock, or interrupts (this kernel charges their time to the thread they
//! interrupt). Some of it is the run's own: the
//! loop's clock and word reads between units and the interrupts of the dispatcher's timers, a
//! few percent of every segment on this machine, and the release and doorbell its end pays. So a
//! segment counts as slowed only by what it lost beyond the run's median share
//! ([`Slowness::typical`]) and [`SEGMENT_ALLOWANCE`]: a core slowed through the whole run is then
//! not counted at all, which errs towards the schedule, as the stall watcher's floor does.
//!
//! Stalls and slowness barely overlap: with steal accounting (`CONFIG_PARAVIRT_TIME_ACCOUNTING`)
//! time the hypervisor takes the vCPU away is not the thread's CPU time, and a thread that holds
//! the core is not the worker; only an interrupt inside a stall counts in both. Callers weigh the
//! larger of the two, not their sum.

use crate::measure::{SegmentRecord, WorkerTime};
use kairos_model::Duration;

/// Parts per million, the unit of [`Slowness::typical`].
const MILLION: u64 = 1_000_000;

/// The CPU time a segment's end costs its worker whatever the core's speed, never counted as
/// slowed: releasing the job and ringing the dispatcher (a futex wake, 2-5 us here) and reading
/// the thread's CPU time (about 1 us), with room to spare.
pub const SEGMENT_ALLOWANCE: Duration = Duration::from_micros(10);

/// The share of CPU time a run's segments typically lose without work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slowness {
    /// The median over the segments that counted their work, in parts per million of their
    /// CPU time (0 when none did).
    pub typical: u64,
}

impl Slowness {
    /// The median share of `segments`.
    pub fn of(segments: &[SegmentRecord]) -> Slowness {
        let mut shares: Vec<u64> = (segments.iter())
            .filter_map(|s| s.worker_time)
            .filter(|t| t.on_cpu > Duration::ZERO)
            .map(|t| t.slowed().as_nanos() * MILLION / t.on_cpu.as_nanos())
            .collect();
        let typical = match shares.len() {
            0 => 0,
            n => *shares.select_nth_unstable(n / 2).1,
        };
        Slowness { typical }
    }

    /// What jobs lost on `core` to a slowed core ([`Slowness::excess`] of each of the
    /// `segments` there), summed; `None` if no segment there counted its work.
    pub fn on_core(&self, segments: &[SegmentRecord], core: usize) -> Option<Duration> {
        (segments.iter())
            .filter(|s| s.cpu == core)
            .filter_map(|s| s.worker_time.map(|t| self.excess(&t)))
            .reduce(|a, b| a + b)
    }

    /// What `time` lost beyond the typical share and the segment's allowance.
    pub fn excess(&self, time: &WorkerTime) -> Duration {
        let usual = time.on_cpu.as_nanos() * self.typical / MILLION;
        (time.slowed())
            .saturating_sub(Duration::from_nanos(usual))
            .saturating_sub(SEGMENT_ALLOWANCE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(on_cpu_us: u64, work_us: u64) -> SegmentRecord {
        SegmentRecord {
            cpu: 0,
            task: 0,
            job: 0,
            start: 0,
            end: on_cpu_us * 1000,
            worker_time: Some(WorkerTime {
                on_cpu: Duration::from_micros(on_cpu_us),
                work: Duration::from_micros(work_us),
            }),
        }
    }

    #[test]
    fn a_segment_is_slowed_only_beyond_the_runs_median_share() {
        // Shares 2 %, 3 %, 4 % and 50 %, and a segment of kernel dispatch (not counted).
        let mut segments = vec![
            segment(1000, 980),
            segment(1000, 970),
            segment(1000, 960),
            segment(2000, 1000),
        ];
        segments.push(SegmentRecord {
            worker_time: None,
            ..segment(1000, 0)
        });
        let slowness = Slowness::of(&segments);
        // The upper median of four: 4 %.
        assert_eq!(slowness.typical, 40_000);
        let excess = |s: &SegmentRecord| slowness.excess(&s.worker_time.unwrap());
        // 1000 us lost of 2000, 80 us of them usual, 10 us the segment's allowance.
        assert_eq!(excess(&segments[3]), Duration::from_micros(910));
        assert_eq!(excess(&segments[0]), Duration::ZERO);
        assert_eq!(Slowness::of(&segments[4..]).typical, 0);
        // Core 0's total: 910 us from the slowed segment, none from the usual ones.
        assert_eq!(
            slowness.on_core(&segments, 0),
            Some(Duration::from_micros(910))
        );
        assert_eq!(slowness.on_core(&segments, 1), None);
    }
}
