//! Late starts of a job's worker, kept as host stalls.
//!
//! A core's dispatcher asks its worker to run a job (a store and a futex wake) and sleeps; the
//! worker is then the most important thread of the run on that core. From the request to the
//! worker's first instruction, only three things of the run can take the core: the
//! dispatcher's own pass (its time, [`CoreShared::dispatched_by`]), the wait for the
//! job's hand-off from the core it ran on (the holder word, [`crate::handoff`]), and the
//! stopped worker's last steps (a few microseconds, under the floor: not taken out). What is
//! left beyond the usual start is time the host took: an interrupt, the kernel, a thread above the run, or the hypervisor running something
//! else on the vCPU. Probing a G-RMWP run on this machine showed one: a wind-up decided on its
//! idle core at its optional deadline began 340 us after the decision, with no stall seen
//! (the watcher's floor is 500 us) and its dispatcher asleep.
//!
//! So each start later than [`LATE_START_FLOOR_NS`] beyond the run's own share is kept, as a
//! stall ([`Seen::Worker`]) of its length less the worker's usual start (its median request to
//! start: that median includes some of the dispatcher's time, so the stall errs short), ending
//! at the job's first instruction, where the job's own segment begins
//! ([`crate::attribution`] adds it to what the host took from that job).
//!
//! [`CoreShared::dispatched_by`]: super::shared::CoreShared::dispatched_by

use super::percore::DispatcherLog;
use super::worker::WorkerLog;
use crate::stalls::{LostTime, Seen, Stall};
use kairos_model::{Duration, Instant};

/// The least delay kept: the dispatchers' late wake-up floor, above the 99th percentile of an
/// ordinary start on this machine (request to start p99 about 35 us).
pub const LATE_START_FLOOR_NS: u64 = super::late::LATE_WAKE_FLOOR_NS;

/// Late starts a worker keeps without growing its list; the rest are dropped.
const LATE_STARTS_RESERVED: usize = 1024;

/// How late a start was beyond the run's own share: from the request to the first instruction
/// (`start - requested`), less the core's dispatcher's time meanwhile (`dispatched`) and
/// the wait for the job's hand-off (`handoff`). All in ns.
pub fn start_delay(requested: u64, start: u64, dispatched: u64, handoff: u64) -> u64 {
    (start.saturating_sub(requested))
        .saturating_sub(dispatched)
        .saturating_sub(handoff)
}

/// One worker's late starts: `(start, delay)` in run time.
#[derive(Debug)]
pub struct LateStarts {
    kept: Vec<(u64, u64)>,
    dropped: u64,
}

impl Default for LateStarts {
    fn default() -> Self {
        LateStarts {
            kept: Vec::with_capacity(LATE_STARTS_RESERVED),
            dropped: 0,
        }
    }
}

impl LateStarts {
    /// Notes a start at `start` that came `delay` late ([`start_delay`]), if past the floor;
    /// never allocates.
    pub fn note(&mut self, start: u64, delay: u64) {
        if delay <= LATE_START_FLOOR_NS {
            return;
        }
        if self.kept.len() == self.kept.capacity() {
            self.dropped += 1;
        } else {
            self.kept.push((start, delay));
        }
    }

    /// Late starts dropped because the list was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept starts as stalls of `core`, each its delay less `usual` (ns), ending at the
    /// start.
    pub fn stalls(&self, core: usize, usual: u64) -> Vec<Stall> {
        (self.kept.iter())
            .filter(|&&(_, delay)| delay > usual)
            .map(|&(start, delay)| {
                let length = delay - usual;
                Stall {
                    core,
                    start: Instant::from_nanos(start.saturating_sub(length)),
                    length: Duration::from_nanos(length),
                    held: Duration::ZERO,
                    seen: Seen::Worker,
                }
            })
            .collect()
    }
}

/// Adds the dispatchers' late wake-ups, then the workers' late starts, to the run's lost time
/// (each only where no stall seen before it covers it), with a note for those dropped.
pub fn add_late_ones(
    lost: &mut LostTime,
    dispatchers: &[DispatcherLog],
    workers: &[WorkerLog],
    notes: &mut Vec<String>,
) {
    lost.add_late(
        dispatchers
            .iter()
            .flat_map(|d| d.late_wakes.iter().copied()),
    );
    lost.add_late(workers.iter().flat_map(WorkerLog::late_start_stalls));
    let dropped: u64 = dispatchers.iter().map(|d| d.late_wakes_dropped).sum();
    if dropped > 0 {
        notes.push(format!(
            "{dropped} late wake-up(s) of the dispatchers were not kept as stalls (their lists were full)"
        ));
    }
    let dropped: u64 = workers.iter().map(|w| w.late_starts.dropped()).sum();
    if dropped > 0 {
        notes.push(format!(
            "{dropped} late start(s) of the workers were not kept as stalls (their lists were full)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_own_time_on_the_way_is_not_a_delay() {
        // 400 us from request to start, of which the dispatcher took 30 and the hand-off
        // took 20: 350 us the run did not spend.
        assert_eq!(start_delay(1_000_000, 1_400_000, 30_000, 20_000), 350_000);
        // A start no later than the run's own time is no delay at all.
        assert_eq!(start_delay(1_000_000, 1_040_000, 30_000, 20_000), 0);
        assert_eq!(start_delay(1_000_000, 900_000, 0, 0), 0);
    }

    #[test]
    fn only_starts_past_the_floor_are_kept_each_ending_at_its_start() {
        let mut late = LateStarts::default();
        late.note(2_000_000, LATE_START_FLOOR_NS);
        late.note(5_000_000, 350_000);
        let stalls = late.stalls(1, 20_000);
        assert_eq!(
            stalls,
            vec![Stall {
                core: 1,
                start: Instant::from_nanos(4_670_000),
                length: Duration::from_nanos(330_000),
                held: Duration::ZERO,
                seen: Seen::Worker,
            }]
        );
        assert_eq!(stalls[0].end(), Instant::from_nanos(5_000_000));
        assert_eq!(late.dropped(), 0);
    }
}
