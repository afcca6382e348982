//! The third case: a job its twin meets and its stalled twin misses is the host's.

use super::*;

/// Under a global policy on cores 0 and 1: `a#0` runs [0, 3) ms on core 0 around a 1 ms
/// stall there at 0.5 ms and meets its 20 ms deadline; `b#0` runs [2, 10.5) ms on core 1 and
/// misses its 10 ms deadline. No stall touched core 1, and the backlog of both cores had
/// 20 - 8.5 ms of room, more than the stall: the first two cases say `schedule`. The twin
/// completes `b#0` at `twin` (us, or never), and the calm and the stalled twin, if there are,
/// at `pair`.
fn global(
    twin: Option<u64>,
    pair: Option<(Option<u64>, Option<u64>)>,
) -> (MissesByCause, Vec<MissCause>) {
    let jobs = vec![
        job(0, 0, (0, 20 * MS), 3 * MS),
        JobRecord {
            cpu: Some(1),
            ..job(1, 0, (0, 10 * MS), 10_500_000)
        },
    ];
    let measured = trace(vec![
        segment(0, 0, 0, 0, 3 * MS),
        segment(1, 1, 0, 2 * MS, 10_500_000),
    ]);
    let stalls = [stall(0, MS / 2, MS)];
    let run = two_cores(&measured, &stalls);
    let completed = |at_us: Option<u64>| {
        trace(
            (at_us.into_iter())
                .map(|us| TraceEvent::Completion {
                    task: 1,
                    job: 0,
                    at: at(us * 1_000),
                })
                .collect(),
        )
    };
    let plain = completed(twin);
    let pair = pair.map(|(calm, stalled)| (completed(calm), completed(stalled)));
    let twin = Twin::new(&plain);
    let twin = match &pair {
        Some((calm, stalled)) => twin.with_stalled(Stalled { calm, stalled }),
        None => twin,
    };
    attribute(&jobs, &run, Some(twin))
}

#[test]
fn a_job_its_stalled_twin_misses_and_its_twin_meets_is_the_hosts() {
    let (counts, causes) = global(Some(9_800), Some((Some(9_900), Some(10_800))));
    assert_eq!(
        (counts.host, counts.schedule, counts.by_stalled_twin),
        (1, 0, Some(1))
    );
    let b = &causes[0];
    assert_eq!(b.stalled_twin, Some(Some(at(10_800_000))));
    assert_eq!(b.stall, Some(stall(0, MS / 2, MS)));
    assert_eq!(b.slack, Some(Duration::from_micros(200)));
    // Unfinished in the stalled twin: the host's too.
    let (counts, causes) = global(Some(9_800), Some((Some(9_900), None)));
    assert_eq!((counts.host, causes[0].stalled_twin), (1, Some(None)));
}

#[test]
fn a_job_its_stalled_twin_meets_or_its_twin_misses_stays_the_schedules() {
    // The stalled twin meets it, at its deadline exactly.
    let (counts, causes) = global(Some(9_800), Some((Some(9_900), Some(10_000))));
    assert_eq!(
        (counts.host, counts.schedule, counts.by_stalled_twin),
        (0, 1, Some(0))
    );
    assert_eq!(causes[0].stalled_twin, None);
    // The twin misses it by itself: no slack, whatever the stalled twin says.
    let (counts, _) = global(Some(10_200), Some((Some(9_900), Some(10_800))));
    assert_eq!((counts.host, counts.schedule), (0, 1));
    let (counts, _) = global(None, Some((Some(9_900), None)));
    assert_eq!((counts.host, counts.schedule), (0, 1));
    // The calm twin, every cost at its largest, misses it too: the stalls are not all it
    // lacked.
    let (counts, _) = global(Some(9_800), Some((Some(10_100), Some(10_800))));
    assert_eq!((counts.host, counts.schedule), (0, 1));
    let (counts, _) = global(Some(9_800), Some((None, None)));
    assert_eq!((counts.host, counts.schedule), (0, 1));
    // No stalled twin: the first two cases decide.
    let (counts, _) = global(Some(9_800), None);
    assert_eq!(
        (counts.host, counts.schedule, counts.by_stalled_twin),
        (0, 1, None)
    );
}
