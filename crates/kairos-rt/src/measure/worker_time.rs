//! What a worker of the user-space dispatcher had of its core over one segment.

use super::SegmentRecord;
use kairos_model::{Duration, ExecutionLoss};
use serde::Serialize;

/// The worker's thread CPU time over one segment, the work it did in it (calibrated units, at
/// the core's undisturbed speed) and the time its core's dispatcher was awake meanwhile.
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

/// The execution loss of a run ([`ExecutionLoss`]): of the wall time of every segment whose
/// worker counted its work outside an optional part, the share it lost ([`WorkerTime::lost`]),
/// all such segments together. A total rather than a median of segments: the kernel's
/// throttling and a busy core's response times see the long-run share, host holes inside the
/// run's segments included, which errs towards charging too much. Zero when no segment counted
/// its work.
pub fn execution_loss(segments: &[SegmentRecord]) -> ExecutionLoss {
    let (lost, wall) = (segments.iter())
        .filter_map(|s| {
            let time = s.worker_time.filter(|t| !t.optional)?;
            let wall = Duration::from_nanos(s.end.saturating_sub(s.start));
            Some((
                u128::from(time.lost(wall).as_nanos()),
                u128::from(wall.as_nanos()),
            ))
        })
        .fold((0u128, 0u128), |(l, w), (dl, dw)| (l + dl, w + dw));
    let ppm = match wall {
        0 => 0,
        wall => (lost * 1_000_000).div_ceil(wall),
    };
    let ppm = u32::try_from(ppm)
        .unwrap_or(u32::MAX)
        .min(ExecutionLoss::MAX_PPM);
    ExecutionLoss::from_ppm(ppm).expect("clamped to the largest loss")
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
        assert_eq!(execution_loss(&segments).ppm(), 20_000);
        assert!(execution_loss(&segments[2..]).is_zero());
        // Rounded up: 1 ns of 3.
        assert_eq!(execution_loss(&[segment(3, 3, 2, false)]).ppm(), 333_334);
        // Clamped to the largest a profile may give.
        let all_lost = execution_loss(&[segment(1_000, 1_000, 0, false)]);
        assert_eq!(all_lost.ppm(), ExecutionLoss::MAX_PPM);
    }
}
