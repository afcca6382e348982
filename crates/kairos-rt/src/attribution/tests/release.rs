//! The whole rule on a global run whose job's release waited for a held core
//! ([`super::super::release`]).

use super::*;

const US: u64 = 1_000;

/// On 2 cores under a global policy: `b#0` runs on core 0 [0, 0.3) ms, so core 0 takes in
/// task b's next release; `a#0` runs there from 0.3 ms, frozen by a watcher's stall [0.9,
/// 1.7) ms; `b#1`, released at 1 ms and due at 3 ms, begins on core 1 at 1.75 ms and ends at
/// 3.2 ms, 200 us late. `on_core_1` are other jobs' segments on core 1.
fn held_release(release_core: Option<usize>, on_core_1: &[SegmentRecord]) -> Vec<MissCause> {
    let jobs = vec![
        JobRecord {
            cpu: Some(0),
            ..job(1, 0, (0, 5 * MS), 300 * US)
        },
        JobRecord {
            cpu: Some(0),
            ..job(0, 0, (0, 10 * MS), 4 * MS)
        },
        JobRecord {
            release_core,
            ..job(1, 1, (MS, 3 * MS), 3_200 * US)
        },
    ];
    let spans = [
        (0, (1, 0), (0, 300 * US)),
        (0, (0, 0), (300 * US, 4 * MS)),
        (1, (1, 1), (1_750 * US, 3_200 * US)),
    ];
    let measured = trace(
        (spans.iter())
            .map(|&(core, (task, n), (s, e))| segment(core, task, n, s, e))
            .collect(),
    );
    let mut segments: Vec<SegmentRecord> = (spans.iter())
        .map(|&(core, id, span)| worked(core, id, span, false))
        .collect();
    segments.extend_from_slice(on_core_1);
    let stalls = [stall(0, 900 * US, 800 * US)];
    let run = RunView {
        worker_segments: &segments,
        timer_core: Some(0),
        ..two_cores(&measured, &stalls)
    };
    attribute(&jobs, &run, None).1
}

#[test]
fn a_release_its_held_core_took_in_late_is_the_hosts_miss() {
    // b#1's own slack: 2 ms less its 1.45 ms = 550 us. No stall touched core 1, and its
    // backlog's demand slack, from its release (only a#0 was pending before it), is 2 x 2 ms
    // less 1.45 ms = 2.55 ms, more than the 800 us stall. Its release, due at 1 ms on core 0,
    // waited for the stall's end at 1.7 ms with core 1 idle: held 700 us, past its 550 us.
    let causes = held_release(Some(0), &[]);
    assert_eq!(causes.len(), 1);
    let b = causes[0];
    assert_eq!((b.task, b.job, b.cause), (1, 1, Cause::Host));
    assert_eq!(b.stall, Some(stall(0, 900 * US, 800 * US)));
    assert_eq!(b.slack, Some(Duration::from_micros(550)));
    assert_eq!(b.evidence, Duration::from_micros(700));
}

#[test]
fn without_the_releases_core_or_with_core_1_busy_it_stays_the_schedules() {
    // Kernel dispatch records no release core: the stall of a core b#1 never ran on and
    // shorter than its backlog's room explains nothing.
    let causes = held_release(None, &[]);
    assert_eq!(causes[0].cause, Cause::Schedule);
    assert_eq!(causes[0].backlog_evidence, Duration::from_micros(800));
    // Another job ran on core 1 from 1.2 to 1.6 ms: b#1 may have waited behind it.
    let other = worked(1, (2, 0), (1_200 * US, 1_600 * US), false);
    assert_eq!(held_release(Some(0), &[other])[0].cause, Cause::Schedule);
}
