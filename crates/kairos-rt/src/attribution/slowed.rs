//! The time a slowed core took from a job: the wall time of its segments that is neither its
//! calibrated work nor the run's own dispatching, beyond the share every segment of the run
//! loses so.
//!
//! A worker of the user-space dispatcher counts its work in calibrated units
//! ([`crate::calibrate`]), reads its thread's CPU time at each end of a segment, and how much
//! its core's dispatcher took meanwhile ([`WorkerTime`](crate::measure::WorkerTime)). Two kinds
//! of time are lost:
//! - CPU time with no work in it: the core ran slower than at calibration while the worker
//!   held it (a hypervisor sharing the physical core with another guest, a lower clock, or
//!   interrupts, which this kernel charges to the thread they interrupt);
//! - wall time off the CPU that the dispatcher did not take: the worker outranks every thread
//!   of the run but its dispatcher and the watchers, so a thread outside the run, the kernel or
//!   the hypervisor took it (with steal accounting the vCPU's absence is not the thread's CPU
//!   time). Holes below the stall watcher's floor show here.
//!
//! Some of it is the run's own: the loop's clock and word reads between units, the interrupts
//! of the dispatcher's timers and the switches to it, a few percent of every segment on this
//! machine, and the release and doorbell its end pays. So a segment counts as slowed only by
//! what it lost beyond the run's median share ([`Slowness::typical`], taken of the time the
//! segment kept, see [`Slowness::excess`]) and [`SEGMENT_ALLOWANCE`]: a core slowed through
//! the whole run is then not counted at all, which errs towards the schedule, as the stall
//! watcher's floor does.
//!
//! A stall the watcher saw inside a segment is also time off the worker's CPU, so the two can
//! overlap: callers weigh the larger of the two, never their sum.

use super::{lost_in, Segment, StallIndex};
use crate::measure::{counted_loss, SegmentRecord};
use kairos_model::{Duration, Instant};
use std::collections::HashMap;

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
    /// wall time (0 when none did).
    pub typical: u64,
}

impl Slowness {
    /// The median share of `segments`.
    pub fn of(segments: &[SegmentRecord]) -> Slowness {
        let mut shares: Vec<u64> = (segments.iter())
            .filter(|s| s.end > s.start)
            .filter_map(|s| Some(counted_loss(s)?.as_nanos() * MILLION / (s.end - s.start)))
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
            .filter_map(|s| self.excess(s))
            .reduce(|a, b| a + b)
    }

    /// What `segment` lost beyond the typical share and its allowance; `None` if its worker
    /// did not count its work.
    ///
    /// The usual share is that of the segment's time without its loss, `kept * typical / (1 -
    /// typical)`, which is `wall * typical` for a segment that lost the usual share: a hole
    /// that stretches a segment does not grow the share excused in it (a 216 us wind-up held
    /// 8 ms off its CPU would otherwise be excused 250 us at a 3 % share).
    pub fn excess(&self, segment: &SegmentRecord) -> Option<Duration> {
        let lost = counted_loss(segment)?;
        let wall = segment.end.saturating_sub(segment.start);
        let kept = wall.saturating_sub(lost.as_nanos());
        let usual = match MILLION.checked_sub(self.typical) {
            Some(rest) if rest > 0 => kept.saturating_mul(self.typical) / rest,
            _ => u64::MAX,
        };
        Some(
            lost.saturating_sub(Duration::from_nanos(usual))
                .saturating_sub(SEGMENT_ALLOWANCE),
        )
    }
}

/// Each job's segments that counted their work: `(start, end, lost beyond the usual share)`.
pub struct SlowedSegments(Vec<(u64, u64, Duration)>);

impl SlowedSegments {
    /// What the segments that began in `[from, to)` lost.
    pub fn begun_in(&self, from: u64, to: u64) -> Duration {
        (self.0.iter())
            .filter(|&&(start, _, _)| from <= start && start < to)
            .map(|&(_, _, lost)| lost)
            .fold(Duration::ZERO, |a, b| a + b)
    }

    /// What those begun at or after `from` surely lost before `at`: of a segment running past
    /// it, its loss less the time after `at`.
    pub fn within(&self, from: u64, at: u64) -> Duration {
        (self.0.iter())
            .filter(|&&(start, _, _)| from <= start && start < at)
            .map(|&(_, end, lost)| {
                lost.saturating_sub(Duration::from_nanos(end.saturating_sub(at)))
            })
            .fold(Duration::ZERO, |a, b| a + b)
    }
}

impl SlowedSegments {
    /// What the segment begun at `start` surely lost before `cut` (none if it counted no work).
    pub fn of_segment(&self, start: u64, cut: u64) -> Duration {
        (self.0.iter().find(|&&(s, _, _)| s == start)).map_or(Duration::ZERO, |&(_, end, lost)| {
            lost.saturating_sub(Duration::from_nanos(end.saturating_sub(cut)))
        })
    }
}

/// What a slowed core took from every job's segments on `cores` begun in `[from, to)`, before
/// `to` and beyond the stalls inside each (which the stalls' own sum counts): the backlog's
/// lost time besides its stalls.
pub fn slowed_in(
    (from, to): (Instant, Instant),
    cores: &[usize],
    (segments, slowed): (&HashMap<(usize, u64), Vec<Segment>>, &Slowed),
    stalls: &StallIndex,
) -> Duration {
    let mut total = Duration::ZERO;
    for (key, segs) in segments {
        let Some(lost) = slowed.get(key) else {
            continue;
        };
        let begun =
            |&&(core, start, _): &&Segment| cores.contains(&core) && from <= start && start < to;
        for &(core, start, end) in segs.iter().filter(begun) {
            let surely = lost.of_segment(start.as_nanos(), to.as_nanos());
            let stalled = lost_in((start, end.min(to)), &[core], stalls);
            total += surely.saturating_sub(stalled);
        }
    }
    total
}

/// Each job's segments that lost time to a slowed core.
pub type Slowed = HashMap<(usize, u64), SlowedSegments>;

pub fn slowed_by_job(segments: &[SegmentRecord]) -> HashMap<(usize, u64), SlowedSegments> {
    let slowness = Slowness::of(segments);
    let mut by_job: HashMap<(usize, u64), SlowedSegments> = HashMap::new();
    for s in segments {
        if let Some(excess) = slowness.excess(s) {
            let lost = (s.start, s.end, excess);
            by_job
                .entry((s.task, s.job))
                .or_insert(SlowedSegments(Vec::new()))
                .0
                .push(lost);
        }
    }
    by_job
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::WorkerTime;

    /// A segment of `wall` us on core 0 whose worker held the CPU `on_cpu` us, did `work` us
    /// of work, while its dispatcher took `dispatching` us.
    fn segment(wall: u64, on_cpu: u64, work: u64, dispatching: u64) -> SegmentRecord {
        SegmentRecord {
            cpu: 0,
            task: 0,
            job: 0,
            start: 0,
            end: wall * 1000,
            worker_time: Some(WorkerTime {
                on_cpu: Duration::from_micros(on_cpu),
                work: Duration::from_micros(work),
                dispatching: Duration::from_micros(dispatching),
                optional: false,
            }),
        }
    }

    #[test]
    fn a_segment_is_slowed_only_beyond_the_runs_median_share() {
        // Shares 2 %, 3 %, 4 % and 50 %, and a segment of kernel dispatch (not counted).
        let mut segments = vec![
            segment(1000, 1000, 980, 0),
            segment(1000, 1000, 970, 0),
            segment(1000, 1000, 960, 0),
            segment(2000, 2000, 1000, 0),
        ];
        segments.push(SegmentRecord {
            worker_time: None,
            ..segment(1000, 1000, 0, 0)
        });
        let slowness = Slowness::of(&segments);
        // The upper median of four: 4 %.
        assert_eq!(slowness.typical, 40_000);
        let excess = |s: &SegmentRecord| slowness.excess(s).unwrap();
        // 1000 us lost of 2000: the usual share of the 1000 us kept is 1000 * 4 / 96 =
        // 41.666 us, and 10 us the segment's allowance.
        assert_eq!(excess(&segments[3]), Duration::from_nanos(948_334));
        assert_eq!(excess(&segments[0]), Duration::ZERO);
        assert_eq!(slowness.excess(&segments[4]), None);
        assert_eq!(Slowness::of(&segments[4..]).typical, 0);
        // Core 0's total: from the slowed segment alone, none from the usual ones.
        assert_eq!(
            slowness.on_core(&segments, 0),
            Some(Duration::from_nanos(948_334))
        );
        // A segment that lost exactly the usual share is excused all of it (4 % of 1000 us).
        assert_eq!(excess(&segment(1000, 1000, 960, 0)), Duration::ZERO);
        assert_eq!(
            excess(&segment(1000, 1000, 949, 0)),
            Duration::from_nanos(1_459)
        );
        assert_eq!(slowness.on_core(&segments, 1), None);
    }

    #[test]
    fn only_segments_begun_in_the_span_count_and_only_their_loss_before_its_end() {
        let ns = Duration::from_nanos;
        let lost = SlowedSegments(vec![
            (0, 1_000, ns(300)),
            (2_000, 3_000, ns(200)),
            (4_000, 4_600, ns(500)),
        ]);
        assert_eq!(lost.within(2_000, 5_000), ns(700));
        assert_eq!(lost.within(0, 5_000), ns(1_000));
        // The third begins past 3,000; of one running past the end, only what it surely lost
        // before it: 500 ns less the 400 ns after 4,200.
        assert_eq!(lost.within(0, 3_000), ns(500));
        assert_eq!(lost.within(2_500, 4_200), ns(100));
    }

    #[test]
    fn a_hole_that_stretches_a_segment_is_not_excused_in_proportion_to_it() {
        // 3 % usual; a wind-up of 216 us of work held 8.05 ms off its CPU over 8.331 ms.
        let slowness = Slowness { typical: 30_000 };
        let held = segment(8_331, 281, 216, 0);
        // Lost: 65 us slowed on the CPU and 8.05 ms off it; kept 216 us, of which 6.68 us usual.
        let excess = slowness.excess(&held).unwrap();
        assert_eq!(excess, Duration::from_nanos(8_098_320));
        // Every share excused: nothing counts.
        assert_eq!(
            Slowness { typical: 1_000_000 }.excess(&held),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn time_off_the_cpu_counts_unless_the_dispatcher_took_it() {
        let typical = Slowness { typical: 0 };
        // 2000 us of wall time, 1000 on the CPU with 980 of work: 20 slowed, and 1000 off the
        // CPU of which the dispatcher took 100: 920 lost, less the 10 us allowance.
        let taken = segment(2000, 1000, 980, 100);
        assert_eq!(typical.excess(&taken), Some(Duration::from_micros(910)));
        // Off the CPU only while its dispatcher ran: nothing taken.
        let dispatched = segment(1300, 1000, 1000, 300);
        assert_eq!(typical.excess(&dispatched), Some(Duration::ZERO));
        // CPU time read past the segment's ends (the reads around it) is no time taken.
        let longer = segment(1000, 1005, 1000, 0);
        assert_eq!(typical.excess(&longer), Some(Duration::ZERO));
    }
}
