//! What a worker of the user-space dispatcher had of its core over one segment.

use super::SegmentRecord;
use kairos_model::{Duration, ExecutionLoss};
use serde::Serialize;

/// The worker's thread CPU time over one segment, the work it did in it (calibrated units, at
/// the core's undisturbed speed) and the time its core's dispatcher took meanwhile (its CPU
/// time and the switches around it, `crate::dispatcher`'s `awake`).
/// CPU time the work does not account for is time the core ran slower than at calibration
/// while the worker held it: the host's (a busy sibling of the host's core, a lower clock) or
/// interrupts'. Wall time that is neither the worker's CPU time nor its dispatcher's is time
/// the core was taken from it: by a thread outside the run, the kernel, or the hypervisor
/// (steal accounting keeps the vCPU's absence out of the thread's CPU time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WorkerTime {
    pub on_cpu: Duration,
    pub work: Duration,
    pub dispatching: Duration,
    /// The segment ran an optional part of an imprecise job, as a best-effort thread: what it
    /// lost is no evidence (the part is cut at its optional deadline whatever it did, and
    /// shares its CPU with the machine's ordinary threads by design).
    pub optional: bool,
}

impl WorkerTime {
    /// The CPU time the work does not account for.
    pub fn slowed(&self) -> Duration {
        self.on_cpu.saturating_sub(self.work)
    }

    /// What a segment of `wall` lost besides the run's own dispatching: the CPU time without
    /// work and the wall time off the CPU that the dispatcher did not take.
    pub fn lost(&self, wall: Duration) -> Duration {
        let taken = (wall.saturating_sub(self.on_cpu)).saturating_sub(self.dispatching);
        self.slowed() + taken
    }
}

impl SegmentRecord {
    /// Whether it ran an optional part of an imprecise job, as a best-effort thread.
    pub fn is_optional(&self) -> bool {
        self.worker_time.is_some_and(|t| t.optional)
    }
}

/// What `segment` lost ([`WorkerTime::lost`]), if its worker counted its work outside an
/// optional part: a best-effort part shares its CPU by design, and is cut at its optional
/// deadline whatever it lost, so its time is neither the machine's usual loss nor evidence.
pub fn counted_loss(segment: &SegmentRecord) -> Option<Duration> {
    let wall = Duration::from_nanos(segment.end.saturating_sub(segment.start));
    (segment.worker_time)
        .filter(|t| !t.optional)
        .map(|t| t.lost(wall))
}

/// The execution loss of a run ([`ExecutionLoss`]), rounded up: of the wall time of every
/// segment whose worker counted its work outside an optional part (best-effort threads, whose
/// pace is no measure of the machine's), the share it lost ([`WorkerTime::lost`]), all such
/// segments together. A long-run average rather than a median of segments, because the
/// kernel's throttling sees the long-run share; host holes inside the run's segments count in
/// it, and so do the release and the doorbell a segment's end pays, which the analysis also
/// charges as `release` and `ipi` (twice, on the safe side). Zero when no segment counted its
/// work; `None` above [`ExecutionLoss::MAX_PPM`], a run too disturbed to measure.
pub fn execution_loss(segments: &[SegmentRecord]) -> Option<ExecutionLoss> {
    let (lost, wall) = (segments.iter())
        .filter_map(|s| {
            let lost = counted_loss(s)?;
            let wall = s.end.saturating_sub(s.start);
            Some((u128::from(lost.as_nanos()), u128::from(wall)))
        })
        .fold((0u128, 0u128), |(l, w), (dl, dw)| (l + dl, w + dw));
    let ppm = match wall {
        0 => 0,
        wall => (lost * 1_000_000).div_ceil(wall),
    };
    ExecutionLoss::from_ppm(u32::try_from(ppm).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(wall: u64, on_cpu: u64, work: u64, optional: bool) -> SegmentRecord {
        SegmentRecord {
            cpu: 0,
            task: 0,
            job: 0,
            start: 1_000,
            end: 1_000 + wall,
            worker_time: Some(WorkerTime {
                on_cpu: Duration::from_nanos(on_cpu),
                work: Duration::from_nanos(work),
                dispatching: Duration::ZERO,
                optional,
            }),
        }
    }

    #[test]
    fn the_loss_is_the_lost_share_of_all_counted_wall_time() {
        // 30 of 1000 and 10 of 1000 lost: 2 %; the optional part and a segment without its
        // worker's time do not count.
        let mut segments = vec![
            segment(1_000, 1_000, 970, false),
            segment(1_000, 990, 990, false),
            segment(1_000, 500, 0, true),
        ];
        segments.push(SegmentRecord {
            worker_time: None,
            ..segments[0]
        });
        let ppm = |s: &[SegmentRecord]| execution_loss(s).map(|l| l.ppm());
        assert_eq!(ppm(&segments), Some(20_000));
        assert_eq!(ppm(&segments[2..]), Some(0));
        // Rounded up: 1 ns of 3.
        assert_eq!(ppm(&[segment(3, 3, 2, false)]), Some(333_334));
        // Past the largest a profile may give: no figure.
        assert_eq!(ppm(&[segment(1_000, 1_000, 100, false)]), Some(900_000));
        assert_eq!(ppm(&[segment(1_000, 1_000, 99, false)]), None);
    }
}
