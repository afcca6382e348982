//! The rule on a job that waited for its wind-up: the holes on the path of the wait, what the
//! analysis charges for that path, and what the job lost before its optional deadline.

use super::*;

/// What varies in [`waited`]'s run.
struct Waited<'a> {
    /// Where the twin begins the wind-up.
    twin_from: u64,
    /// Where the run's wind-up ends (its completion).
    done: u64,
    /// What the analysis charges for the path ([`Twin::path`]): the timer core is 0, the
    /// wind-up's 1, so the timer's lateness and the ring.
    path: Path,
    others: &'a [SegmentRecord],
    stalls: &'a [Stall],
}

impl Default for Waited<'_> {
    fn default() -> Self {
        Waited {
            twin_from: 8 * MS,
            done: 10_068_000,
            path: Path {
                timer: Duration::from_micros(60),
                ring: Duration::from_micros(40),
            },
            others: &[],
            stalls: &[],
        }
    }
}

/// The late wake-up of the timer core's dispatcher (core 0) due at the optional deadline,
/// 209 us long.
fn late_timer() -> Stall {
    Stall {
        seen: Seen::Dispatcher,
        ..stall(0, 8 * MS, 209_000)
    }
}

/// `b#0` on core 1 with its optional deadline at 8 ms and its deadline at 10 ms: mandatory
/// part [0, 0.2) ms, optional part [0.2, 1) ms (done early), wind-up begun 330 us after the
/// instant, done at `done` (10.068 ms: 68 us late); its workers lost nothing. Its twin runs the
/// wind-up from `twin_from` and completes it at 9.738 ms: 262 us of slack. The timer core is 0.
fn waited(w: Waited) -> (MissesByCause, Vec<MissCause>) {
    let part = |span, optional| worked(1, (1, 0), span, optional);
    let runs = [
        (0, 200_000, false),
        (200_000, MS, true),
        (8_330_000, w.done, false),
    ];
    let mut parts: Vec<SegmentRecord> = runs.iter().map(|&(s, e, o)| part((s, e), o)).collect();
    parts.extend_from_slice(w.others);
    let jobs = vec![JobRecord {
        cpu: Some(1),
        ..job(1, 0, (0, 10 * MS), w.done)
    }];
    let measured = Trace {
        optional_deadlines: vec![None, Some(Duration::from_millis(8))],
        ..trace(
            runs.iter()
                .map(|&(s, e, _)| segment(1, 1, 0, s, e))
                .collect(),
        )
    };
    let run = RunView {
        worker_segments: &parts,
        timer_core: Some(0),
        ..two_cores(&measured, w.stalls)
    };
    let simulated = trace(vec![
        segment(1, 1, 0, 0, 200_000),
        segment(1, 1, 0, w.twin_from, 9_738_000),
        TraceEvent::Completion {
            task: 1,
            job: 0,
            at: at(9_738_000),
        },
    ]);
    let twin = Twin {
        trace: &simulated,
        path: w.path,
        stalled: None,
    };
    attribute(&jobs, &run, Some(twin))
}

#[test]
fn holes_on_the_path_to_a_wind_up_and_the_charged_path_overran_its_slack() {
    let stalls = [late_timer()];
    // 209 us of hole, at least the 68 us it was late; with the 100 us the analysis charges
    // for the path, 309 us of the platform's, more than its 262 us of slack: the host's.
    let (counts, causes) = waited(Waited {
        stalls: &stalls,
        ..Waited::default()
    });
    assert_eq!((counts.host, counts.schedule), (1, 0));
    let named = causes[0].stall.expect("the wait is named");
    assert_eq!(named.seen, Seen::Path);
    assert_eq!((named.core, named.end()), (1, at(8_330_000)));
    assert_eq!(named.length, Duration::from_micros(209));
    // The same wait with no hole recorded on it: no evidence.
    assert_eq!(waited(Waited::default()).0.schedule, 1);
    // Without a profile nothing is charged for the path: 209 us, within the slack.
    let uncharged = Waited {
        stalls: &stalls,
        path: Path::default(),
        ..Waited::default()
    };
    assert_eq!(waited(uncharged).0.schedule, 1);
    // The twin itself waited 100 us: the platform's 230 us are within the slack.
    let twin_waited = Waited {
        stalls: &stalls,
        twin_from: 8_100_000,
        ..Waited::default()
    };
    assert_eq!(waited(twin_waited).0.schedule, 1);
    // Done at `done` with `stalls`.
    let done_at = |stalls: &[Stall], done| {
        let w = Waited {
            stalls,
            done,
            ..Waited::default()
        };
        waited(w).0
    };
    // 250 us late: the platform's 309 us overran the slack, but without the host's 209 us it
    // would still have been late.
    assert_eq!(done_at(&stalls, 10_250_000).schedule, 1);
    // A late start of the wind-up's worker, 100 us before it, is one of those holes: with it
    // the host took 309 us, counted once, short of 350 us of lateness; 300 us late, the host's.
    let start = Stall {
        seen: Seen::Worker,
        ..stall(1, 8_230_000, 100_000)
    };
    let both = [late_timer(), start];
    assert_eq!(done_at(&both, 10_350_000).schedule, 1);
    assert_eq!(done_at(&both, 10_300_000).host, 1);
}

#[test]
fn the_schedule_on_the_path_to_a_wind_up_leaves_the_miss_its_own() {
    let stalls = [late_timer()];
    let beside = |others: &[SegmentRecord]| {
        waited(Waited {
            stalls: &stalls,
            others,
            ..Waited::default()
        })
        .0
    };
    let other = |cpu, span, optional| worked(cpu, (0, 7), span, optional);
    // Another job's real-time part on core 1 meanwhile: the wind-up may have waited for it.
    assert_eq!(
        beside(&[other(1, (8_050_000, 8_300_000), false)]).schedule,
        1
    );
    // On core 0 it changes nothing.
    assert_eq!(beside(&[other(0, (8_050_000, 8_300_000), false)]).host, 1);
    // An optional part running at the instant yields at once; one begun after it was chosen
    // by a pass that knew of no wind-up or passed it over.
    assert_eq!(beside(&[other(1, (7_900_000, 8_300_000), true)]).host, 1);
    assert_eq!(
        beside(&[other(1, (8_050_000, 8_300_000), true)]).schedule,
        1
    );
}

#[test]
fn a_profile_charges_its_largest_release_latency_and_doorbell_to_the_path() {
    use kairos_model::Cost;
    let trace = Trace::default();
    let overheads = Overheads {
        release_latency: Cost::Fixed(Duration::from_micros(42)),
        ipi: Cost::Fixed(Duration::from_micros(37)),
        scheduling: Cost::Fixed(Duration::from_micros(8)),
        ..Overheads::default()
    };
    let twin = Twin::charging(&trace, &overheads);
    let expected = Path {
        timer: Duration::from_micros(42),
        ring: Duration::from_micros(37),
    };
    assert_eq!(twin.path, expected);
    assert_eq!(Twin::new(&trace).path, Path::default());
}

#[test]
fn what_a_job_lost_before_its_optional_deadline_delayed_nothing() {
    // Two 200 us stalls of core 1, each within the 262 us slack, 400 us together, with the
    // wait's evidence left out (another job's real-time part on core 1 before the wind-up).
    let other = SegmentRecord {
        cpu: 1,
        task: 0,
        job: 7,
        start: 8_050_000,
        end: 8_300_000,
        worker_time: None,
    };
    let others = [other];
    let with = |stalls: &[Stall]| {
        waited(Waited {
            others: &others,
            stalls,
            ..Waited::default()
        })
    };
    // Inside the optional part: the wind-up began at its instant whatever they took, so the
    // schedule's. So with one of 150 us inside the mandatory part and one inside the wind-up:
    // only the second, within the slack, delayed the job.
    let in_optional = [stall(1, 300_000, 200_000), stall(1, 600_000, 200_000)];
    assert_eq!(with(&in_optional).0.schedule, 1);
    let split = [stall(1, 20_000, 150_000), stall(1, 8_500_000, 150_000)];
    assert_eq!(with(&split).0.schedule, 1);
    // One stall of 300 us inside the optional part, longer than the slack alone: it still
    // delayed nothing.
    let long = [stall(1, 300_000, 300_000)];
    assert_eq!(with(&long).0.schedule, 1);
    // Inside the wind-up, 220 and 180 us, they took 400 us of it: the host's, the longer named.
    let in_windup = [stall(1, 8_500_000, 220_000), stall(1, 9_000_000, 180_000)];
    let (counts, causes) = with(&in_windup);
    assert_eq!((counts.host, counts.schedule), (1, 0));
    assert_eq!(causes[0].stall, Some(in_windup[0]));
}
