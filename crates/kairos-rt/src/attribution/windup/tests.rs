//! The wait for a wind-up on hand-made segments and holes, every value worked by hand.

use super::*;
use crate::attribution::tests::worked;

const US: u64 = 1_000;

/// A segment of job `(task, 0)` on `cpu` over `[from, to)` us.
fn ran(task: usize, cpu: usize, (from, to): (u64, u64), optional: bool) -> SegmentRecord {
    worked(cpu, (task, 0), (from * US, to * US), optional)
}

fn hole(core: usize, from_us: u64, length_us: u64, seen: Seen) -> Stall {
    Stall {
        core,
        start: Instant::from_nanos(from_us * US),
        length: Duration::from_micros(length_us),
        held: Duration::ZERO,
        seen,
    }
}

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// A charged path of `timer_us`, no ring.
fn path(timer_us: u64) -> Path {
    Path {
        timer: us(timer_us),
        ring: Duration::ZERO,
    }
}

/// The optional deadline at 1 ms of job `(0, 0)` among `all`.
fn deadline(all: &[SegmentRecord]) -> OptionalDeadline<'_> {
    OptionalDeadline {
        at: Instant::from_nanos(1_000 * US),
        own: all.iter().filter(|s| s.task == 0).collect(),
        job: (0, 0),
        all,
    }
}

/// Job `(0, 0)` on core 1, its optional part done at 700 us and its wind-up from 1.33 ms, and
/// `others`.
fn job(others: &[SegmentRecord]) -> Vec<SegmentRecord> {
    let mut all = vec![ran(0, 1, (0, 700), true), ran(0, 1, (1_330, 1_500), false)];
    all.extend_from_slice(others);
    all
}

/// The twin began its wind-up at `from_us` on core 1.
fn twin(from_us: u64) -> Vec<Segment> {
    let at = |us: u64| Instant::from_nanos(us * US);
    vec![(1, at(0), at(200)), (1, at(from_us), at(from_us + 170))]
}

#[test]
fn holes_on_the_path_count_once_each_up_to_the_wait_beyond_the_twins() {
    let all = job(&[]);
    let od = deadline(&all);
    assert!(od.reached_optional());
    assert_eq!(od.wind_up().map(|s| s.start), Some(1_330 * US));
    let twin = twin(1_000);
    // A late start of the wind-up's worker, 150 us before it, and a late wake-up of its
    // dispatcher at 1.05 ms for 100 us, overlapping it by 0: 250 us of holes.
    let holes = StallIndex::new(&[
        hole(1, 1_180, 150, Seen::Worker),
        hole(1, 1_050, 100, Seen::Dispatcher),
    ]);
    let wait = od.wind_up_wait(&holes, None, (&twin, path(80))).unwrap();
    assert_eq!(
        (wait.core, wait.start),
        (1, Instant::from_nanos(1_330 * US))
    );
    assert_eq!(wait.host, us(250));
    // With the 80 us the analysis charges for the path: 330 us, all of the wait.
    assert_eq!(wait.platform, us(330));
    // The host's part as a stall ending at the wind-up's start.
    let named = wait.as_stall();
    assert_eq!(
        (named.end(), named.length, named.seen),
        (wait.start, us(250), Seen::Path)
    );
    // Overlapping holes count once: a watcher's stall over [1.1, 1.25) ms adds the 30 us
    // between them.
    let overlapping = StallIndex::new(&[
        hole(1, 1_180, 150, Seen::Worker),
        hole(1, 1_050, 100, Seen::Dispatcher),
        hole(1, 1_100, 150, Seen::Watcher),
    ]);
    let wait = od
        .wind_up_wait(&overlapping, None, (&twin, path(80)))
        .unwrap();
    assert_eq!(wait.host, us(280));
    // The twin itself waited 200 us: the platform's part is at most the other 130 us.
    let late_twin = self::twin(1_200);
    let wait = od
        .wind_up_wait(&holes, None, (&late_twin, path(80)))
        .unwrap();
    assert_eq!((wait.host, wait.platform), (us(130), us(130)));
    // No hole recorded on the path: no evidence, however long the wait.
    assert_eq!(
        od.wind_up_wait(&StallIndex::new(&[]), None, (&twin, path(80))),
        None
    );
    // Nor without the twin's wind-up.
    assert_eq!(od.wind_up_wait(&holes, None, (&twin[..1], path(80))), None);
}

#[test]
fn the_timer_cores_holes_count_only_over_the_instant() {
    let all = job(&[]);
    let od = deadline(&all);
    let twin = twin(1_000);
    let timer = |stalls: &[Stall]| {
        let index = StallIndex::new(stalls);
        od.wind_up_wait(&StallIndex::new(&[]), Some((&index, 0)), (&twin, path(0)))
    };
    // A late wake-up of core 0's dispatcher due at the instant, 209 us long.
    let at_instant = hole(0, 1_000, 209, Seen::Dispatcher);
    assert_eq!(timer(&[at_instant]).map(|w| w.host), Some(us(209)));
    // One that began after it: the timer may have been handled before.
    assert_eq!(timer(&[hole(0, 1_010, 209, Seen::Dispatcher)]), None);
    // A watcher's stall from 0.9 ms to 2 ms: its part up to the wind-up's start, 330 us.
    assert_eq!(
        timer(&[hole(0, 900, 1_100, Seen::Watcher)]).map(|w| w.host),
        Some(us(330))
    );
}

#[test]
fn the_schedule_on_the_path_leaves_no_evidence() {
    let holes = StallIndex::new(&[hole(1, 1_180, 150, Seen::Worker)]);
    let twin = twin(1_000);
    let wait = |others: &[SegmentRecord]| {
        let all = job(others);
        deadline(&all).wind_up_wait(&holes, None, (&twin, path(0)))
    };
    assert!(wait(&[]).is_some());
    // Another job's real-time part on core 1 meanwhile: it may have waited behind it.
    assert_eq!(wait(&[ran(3, 1, (1_050, 1_300), false)]), None);
    // On core 0 it changes nothing.
    assert!(wait(&[ran(3, 0, (1_050, 1_300), false)]).is_some());
    // An optional part running at the instant yields at once: nothing held the wind-up.
    assert!(wait(&[ran(3, 1, (900, 1_300), true)]).is_some());
    // One begun after it: a pass chose it over the wind-up, or knew of none.
    assert_eq!(wait(&[ran(3, 1, (1_050, 1_300), true)]), None);
    // The job's own optional part resumed after the instant, the same.
    assert_eq!(wait(&[ran(0, 1, (1_010, 1_100), true)]), None);
}

#[test]
fn only_a_job_waiting_for_its_wind_up_has_a_wait() {
    let holes = StallIndex::new(&[hole(1, 1_180, 150, Seen::Worker)]);
    let twin = twin(1_000);
    // Its mandatory part still ran at the instant: not waiting for its wind-up.
    let busy = [
        ran(0, 1, (800, 1_100), false),
        ran(0, 1, (1_330, 1_500), false),
    ];
    let od = deadline(&busy);
    assert!(!od.reached_optional());
    assert_eq!(od.wind_up_wait(&holes, None, (&twin, path(0))), None);
    // No wind-up after the instant.
    let none = [ran(0, 1, (0, 700), true)];
    assert_eq!(
        deadline(&none).wind_up_wait(&holes, None, (&twin, path(0))),
        None
    );
}

#[test]
fn holes_count_only_between_the_instant_and_the_wind_ups_start() {
    let all = job(&[]);
    let od = deadline(&all);
    let twin = twin(1_000);
    let host = |stall: Stall| {
        let holes = StallIndex::new(&[stall]);
        od.wind_up_wait(&holes, None, (&twin, path(0)))
            .map(|w| w.host)
    };
    // Cut at the wind-up's start, and at the instant.
    assert_eq!(host(hole(1, 1_300, 300, Seen::Watcher)), Some(us(30)));
    assert_eq!(host(hole(1, 900, 150, Seen::Dispatcher)), Some(us(50)));
    // Wholly before the instant: nothing.
    assert_eq!(host(hole(1, 800, 150, Seen::Dispatcher)), None);
}

#[test]
fn the_ring_is_charged_only_when_another_core_handles_the_timer() {
    let all = job(&[]);
    let od = deadline(&all);
    let twin = twin(1_000);
    let holes = StallIndex::new(&[hole(1, 1_180, 150, Seen::Worker)]);
    let charged = Path {
        timer: us(40),
        ring: us(30),
    };
    let platform = |timer_core: usize| {
        let none = StallIndex::new(&[]);
        let wait = od.wind_up_wait(&holes, Some((&none, timer_core)), (&twin, charged));
        wait.map(|w| w.platform)
    };
    // The wind-up's core 1 handles its own timer: the timer's lateness only.
    assert_eq!(platform(1), Some(us(190)));
    // Core 0 handles it and rings core 1.
    assert_eq!(platform(0), Some(us(220)));
}
