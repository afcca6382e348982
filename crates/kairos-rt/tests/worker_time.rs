//! What a job's worker lost on a real run of the user-space dispatcher: a core held away from
//! the running job counts as the job's loss, also when the hold makes the core's dispatcher
//! wake late for an event at which the job runs on (a release of a lower-priority task). The
//! dispatcher's late wake-up is a stall cut out of every job's segment, so if its lateness were
//! credited to the run's own dispatching the hole would count on neither side.
//!
//! A thread as important as the stall watchers holds the run's core for 2 ms every 6.3 ms;
//! each hold inside the first job's execution covers a release of a lower-priority task (one
//! each millisecond), so the dispatcher wakes up to 2 ms late there and keeps the job (a hold
//! that preempts a pass just begun is the dispatcher's wall time awake, not its CPU time, and
//! counts as the job's loss too). Bounded
//! runs (under a second), behaviour only, never a latency bound. Needs real-time privilege:
//! ignored by a plain `cargo test`, run by CI as root (`tests/common`).

use kairos_model::{check_source, Format, Workload};
use kairos_os::{clock, priority, thread};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::calibrate::calibrate;
use kairos_rt::dispatcher::{run_user, UserRunConfig, TIMER_TO_HANDLER};
use kairos_rt::measure::{counted_loss, RunResult, SegmentRecord};

mod common;
use common::{assert_no_rt_thread_left, require_rt, serial};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;
const PERIOD: u64 = 20 * MS;
const HOLD: u64 = 2 * MS;
const HOLD_EVERY: u64 = 6_300 * US;
/// The short tasks, released 1, 2, ..., `SHORT` ms into each window.
const SHORT: u64 = 7;

/// `a` (the highest priority) runs 8 ms from the start of each 20 ms; [`SHORT`] short tasks
/// are released 1, 2, ... ms into each window and wait behind it.
fn workload() -> Workload {
    let mut source = String::from("name = \"kept\"\ncores = 1\n");
    source += "[[tasks]]\nname = \"a\"\nwcet = \"8ms\"\nperiod = \"20ms\"\npriority = 1\n";
    for i in 1..=SHORT {
        source += &format!(
            "[[tasks]]\nname = \"b{i}\"\nwcet = \"100us\"\nperiod = \"20ms\"\n\
             offset = \"{i}ms\"\npriority = {}\n",
            i + 1
        );
    }
    check_source(&source, Format::Toml)
        .workload
        .expect("test workload is valid")
}

/// Holds `cpu` at SCHED_FIFO [`priority::STALL_WATCH`] for [`HOLD`] every [`HOLD_EVERY`] from
/// `from` to `until` (CLOCK_MONOTONIC); returns each hold, from and to.
fn holder(cpu: usize, from: u64, until: u64) -> thread::RtThread<Vec<(u64, u64)>> {
    let spec = thread::ThreadSpec::fifo("test-hold", priority::STALL_WATCH, vec![cpu]);
    thread::spawn(spec, move || {
        let mut holds = Vec::new();
        let mut next = from;
        while next < until {
            clock::sleep_until(next);
            let start = clock::now_ns();
            while clock::now_ns() < start + HOLD {
                std::hint::spin_loop();
            }
            holds.push((start, clock::now_ns()));
            next += HOLD_EVERY;
        }
        holds
    })
    .expect("the holding thread starts")
}

fn run(w: &Workload, cpu: usize) -> RunResult {
    let mut config = UserRunConfig::new(600 * MS);
    config.cpus = Some(vec![cpu]);
    config.calibration = Some(calibrate(&[cpu]).expect("calibration"));
    let policy = PolicyKind::PartitionedFp.build(PriorityOrder::Auto);
    let result = run_user(w, policy, &config).expect("the run starts").result;
    assert_eq!(result.stopped_by, None, "{:?}", result.notes);
    result
}

/// How late the hold `(from, to)` (run time) made the dispatcher for the first release of a
/// short task inside it, if one was: what crediting every late wake-up, whatever its pass did,
/// would credit to the run there.
fn late_for_a_release((from, to): (u64, u64)) -> Option<u64> {
    (from / PERIOD..=to / PERIOD)
        .flat_map(|window| (1..=SHORT).map(move |i| window * PERIOD + i * MS))
        .find(|&release| from < release && release < to)
        .map(|release| to - release)
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_hole_over_a_release_that_keeps_the_job_is_the_jobs_loss() {
    let _lock = serial();
    require_rt();
    let w = workload();
    let cpu = kairos_os::online_cpus()[0];
    let now = clock::now_ns();
    let holds = holder(cpu, now + 50 * MS, now + 900 * MS);
    let result = run(&w, cpu);
    let holds: Vec<(u64, u64)> = (holds.join().expect("the holding thread ends").into_iter())
        .filter(|&(from, _)| from > result.origin_ns)
        .map(|(from, to)| (from - result.origin_ns, to - result.origin_ns))
        .collect();
    assert_no_rt_thread_left();
    let of_a: Vec<&SegmentRecord> = (result.segments.iter())
        .filter(|s| s.task == 0 && s.worker_time.is_some())
        .collect();
    let (mut credited, mut late) = (0, 0);
    for segment in &of_a {
        let inside: Vec<(u64, u64)> = (holds.iter().copied())
            .filter(|&(from, to)| segment.start <= from && to <= segment.end)
            .collect();
        let held: u64 = inside.iter().map(|(from, to)| to - from).sum();
        let lost = counted_loss(segment).expect("a counts its work").as_nanos();
        // Each wake-up of the dispatcher inside is credited a switch back of 5 us, which may
        // be more than the switch took: the releases and the holds. (The reading of its CPU
        // clock before each sleep is counted both in the next reading and in the switch back,
        // a microsecond or two: covered by the worker's own slowed time, `on_cpu - work`.)
        let allowance = 5 * US * (SHORT + inside.len() as u64);
        assert!(
            lost + allowance >= held,
            "a's segment {segment:?} lost {lost} ns, its holds {inside:?} took {held} ns"
        );
        let lateness: u64 = inside.iter().copied().filter_map(late_for_a_release).sum();
        if lateness > 0 {
            let time = segment.worker_time.expect("a counts its work");
            (credited, late) = (credited + time.dispatching.as_nanos(), late + lateness);
        }
    }
    // Not vacuous: its timers woke the dispatcher a millisecond late or more, as the holds
    // over releases make them (its late wake-ups inside a hold are not kept as stalls of their
    // own: the watcher saw the hold), and in the segments where holds made it late for
    // releases it was credited less than half that lateness (crediting the lateness would
    // make the credit larger than it).
    let timers = &result.histograms[TIMER_TO_HANDLER].buckets;
    let late_wakes: u64 = (timers.iter().filter(|&&(ns, _)| ns >= MS))
        .map(|&(_, n)| n)
        .sum();
    assert!(
        late_wakes >= 3,
        "{late_wakes} timer wake-ups 1 ms late: {timers:?}"
    );
    assert!(
        late > 10 * MS && credited < late / 2,
        "dispatcher credited {credited} ns where holds made it {late} ns late; holds {holds:?}"
    );
}
