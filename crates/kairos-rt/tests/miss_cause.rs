//! Deadline misses of real runs attributed to their cause, under both dispatches: a stall
//! injected into a run's core (a thread as important as the stall watchers, above every thread
//! of the run, holding the core for three periods of the task) is reported over its instant and
//! the misses inside it are the host's; a set whose lower-priority task cannot meet its
//! deadline (a schedule fault, no stall needed) has every such miss classed as the schedule's.
//! Bounded runs (under a second), behaviour only, never a latency bound. Needs real-time
//! privilege: ignored by a plain `cargo test`, run by CI as root (`tests/common`).

use kairos_model::{check_source, Format, Instant, Workload};
use kairos_os::{clock, priority, thread};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::attribution::{Cause, SlackFrom, Twin};
use kairos_rt::calibrate::{calibrate, Calibration};
use kairos_rt::dispatcher::{run_user, UserRunConfig};
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::{plan, run_periodic, PeriodicConfig, PeriodicPolicy};
use kairos_rt::watchdog::RunControl;
use kairos_trace::{Trace, TraceEvent};

mod common;
use common::{assert_no_rt_thread_left, require_rt, serial};

const MS: u64 = 1_000_000;

/// One task on one core with 8 ms of slack in each 10 ms window.
const ONE_TASK: &str = r#"
name = "held"
cores = 1
[[tasks]]
name = "a"
wcet = "2ms"
period = "10ms"
"#;

/// `a` (priority 1) takes 5 ms of every 10; `b` (priority 2) needs 3 ms more by 6 ms: it
/// completes at 8 ms of every period at the earliest, a miss the schedule makes.
const LATE_B: &str = r#"
name = "late-b"
cores = 1
[[tasks]]
name = "a"
wcet = "5ms"
period = "10ms"
priority = 1
[[tasks]]
name = "b"
wcet = "3ms"
period = "10ms"
deadline = "6ms"
priority = 2
"#;

fn workload(source: &str) -> Workload {
    check_source(source, Format::Toml)
        .workload
        .expect("test workload is valid")
}

/// How a test runs a one-core workload: on which CPU, and the run itself.
enum Dispatch {
    Kernel,
    User,
}

/// The CPU a one-core run uses under `dispatch` (the kernel's plan places it).
fn cpu_of(w: &Workload, dispatch: &Dispatch) -> usize {
    match dispatch {
        Dispatch::Kernel => {
            plan(w, &kernel_config(), &kairos_os::online_cpus())
                .expect("plan")
                .cpus[0]
        }
        Dispatch::User => kairos_os::online_cpus()[0],
    }
}

fn kernel_config() -> PeriodicConfig {
    PeriodicConfig::new(PeriodicPolicy::Pfp, 800 * MS)
}

/// Runs `w` for 800 ms on `cpu` under `dispatch`, calibrated beforehand so the run starts
/// within the start delay of the call.
fn run(w: &Workload, dispatch: &Dispatch, cpu: usize, calibration: Calibration) -> RunResult {
    let result = match dispatch {
        Dispatch::Kernel => run_periodic(w, &kernel_config(), &calibration, RunControl::new())
            .expect("the run starts"),
        Dispatch::User => {
            let mut config = UserRunConfig::new(800 * MS);
            config.cpus = Some(vec![cpu]);
            config.calibration = Some(calibration);
            let policy = PolicyKind::PartitionedFp.build(PriorityOrder::Auto);
            run_user(w, policy, &config).expect("the run starts").result
        }
    };
    assert_no_rt_thread_left();
    assert_eq!(result.stopped_by, None, "{:?}", result.notes);
    assert_eq!(
        result.misses_by_cause.host + result.misses_by_cause.schedule,
        result.deadline_misses
    );
    result
}

/// Holds `cpu` busy at SCHED_FIFO [`priority::STALL_WATCH`] for `length` from `at`
/// (CLOCK_MONOTONIC); the thread ends after it. Returns when it held the core, from and to.
fn hold(cpu: usize, at: u64, length: u64) -> thread::RtThread<(u64, u64)> {
    let spec = thread::ThreadSpec::fifo("test-hold", priority::STALL_WATCH, vec![cpu]);
    thread::spawn(spec, move || {
        clock::sleep_until(at);
        let from = clock::now_ns();
        while clock::now_ns() < from + length {
            std::hint::spin_loop();
        }
        (from, clock::now_ns())
    })
    .expect("the holding thread starts")
}

fn a_stall_of_the_host_is_reported_and_blamed(dispatch: Dispatch) {
    let _lock = serial();
    require_rt();
    let w = workload(ONE_TASK);
    let cpu = cpu_of(&w, &dispatch);
    let calibration = calibrate(&[cpu]).expect("calibration");
    // About 400 ms into the run (it starts some 20 ms after the call): three 10 ms windows.
    let holder = hold(cpu, clock::now_ns() + 400 * MS, 30 * MS);
    let result = run(&w, &dispatch, cpu, calibration);
    let (from, to) = holder.join().expect("the holding thread ends");
    let (from, to) = (from - result.origin_ns, to - result.origin_ns);
    let middle = Instant::from_nanos((from + to) / 2);
    let stall = (result.stall_intervals.iter())
        .find(|s| s.start <= middle && middle < s.end())
        .unwrap_or_else(|| panic!("no stall over {middle}: {:?}", result.stall_intervals));
    let core = result
        .stalls
        .iter()
        .find(|c| c.core == stall.core)
        .expect("its core");
    assert_eq!(core.cpu, cpu);
    assert!(core.watched && core.count >= 1 && core.largest >= stall.length);
    // The watcher was runnable behind the holding thread, not late to wake.
    assert!(
        stall.held.as_nanos() * 2 > stall.length.as_nanos(),
        "{stall:?}"
    );
    // Jobs released and due inside the hold cannot run: they miss, and the stall is blamed.
    let inside: Vec<_> = (result.jobs.iter())
        .filter(|j| j.release >= from && j.deadline <= to)
        .collect();
    assert!(!inside.is_empty(), "no window inside [{from}, {to})");
    for job in inside {
        let cause = (result.miss_causes.iter())
            .find(|m| (m.task, m.job) == (job.task, job.job))
            .unwrap_or_else(|| panic!("a#{} did not miss", job.job));
        assert_eq!((cause.cause, cause.stall), (Cause::Host, Some(*stall)));
    }
    assert_eq!(result.misses_by_cause.slack_from, SlackFrom::Run);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_held_core_is_a_host_stall_under_kernel_dispatch() {
    a_stall_of_the_host_is_reported_and_blamed(Dispatch::Kernel);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_held_core_is_a_host_stall_under_user_dispatch() {
    a_stall_of_the_host_is_reported_and_blamed(Dispatch::User);
}

/// What the host took, at most, from the work on `cpu` from `from` to the later of `job`'s
/// completion and its deadline: every stall of the run then and the slowing of every segment
/// there, each whole.
fn taken_on_core(
    result: &RunResult,
    (cpu, from): (usize, Instant),
    job: &kairos_rt::measure::JobRecord,
) -> u64 {
    let (from, to) = (
        from.as_nanos(),
        job.completion.unwrap_or(0).max(job.deadline),
    );
    let stalled: u64 = (result.stall_intervals.iter())
        .filter(|s| s.overlaps(Instant::from_nanos(from), Instant::from_nanos(to)))
        .map(|s| s.length.as_nanos())
        .sum();
    let slowed: u64 = (result.segments.iter())
        .filter(|s| s.cpu == cpu && s.start < to && s.end > from)
        .filter_map(|s| s.worker_time.map(|t| t.slowed().as_nanos()))
        .sum();
    stalled + slowed
}

/// The schedule of [`LATE_B`] worked by hand: each period `a` completes at 5 ms, `b` at 8 ms.
fn hand_simulated(result: &RunResult) -> Trace {
    let periods = result.duration_ns / (10 * MS);
    let done = |task, job, ms| TraceEvent::Completion {
        task,
        job,
        at: Instant::from_nanos(job * 10 * MS + ms * MS),
    };
    Trace {
        events: (0..periods)
            .flat_map(|k| [done(0, k, 5), done(1, k, 8)])
            .collect(),
        ..Trace::default()
    }
}

fn a_late_task_is_the_schedules_fault(dispatch: Dispatch) {
    let _lock = serial();
    require_rt();
    let w = workload(LATE_B);
    let cpu = cpu_of(&w, &dispatch);
    let mut result = run(&w, &dispatch, cpu, calibrate(&[cpu]).expect("calibration"));
    let b = &result.tasks[1];
    assert!(b.jobs_released > 0);
    assert_eq!(b.deadline_misses, b.jobs_released, "b can never be in time");
    // Slack from the run: b's window of 6 ms less its own execution, at least 6 ms less the
    // time its segments span; the rule weighs the host's take against the larger of that and
    // its backlog's room. Only stalls on its core in its backlog `[b, d)` (its own window
    // included) longer than that floor, one alone or cut to the backlog and summed, a core
    // slowed under it by more, or the host's take from the work on its core in its backlog or
    // ahead of it (the stalls and the slowing of every segment there from the backlog's start
    // to its completion, counted whole here: more than the rule counts) above that floor, can
    // make a miss the host's.
    let host_evidence = |m: &kairos_rt::attribution::MissCause| {
        let job = result
            .jobs
            .iter()
            .find(|j| (j.task, j.job) == (m.task, m.job))
            .unwrap();
        let ran: u64 = (result.trace.segments())
            .filter(|&(_, task, number, _, _)| (task, number) == (m.task, m.job))
            .map(|(_, _, _, start, end)| end.as_nanos() - start.as_nanos())
            .sum();
        let floor = (6 * MS).saturating_sub(ran);
        let backlog = (m.backlog_from, Instant::from_nanos(job.deadline));
        let inside: Vec<_> = (result.stall_intervals.iter())
            .filter(|s| s.overlaps(backlog.0, backlog.1))
            .collect();
        let cut = |s: &&kairos_rt::stalls::Stall| {
            s.end()
                .min(backlog.1)
                .saturating_since(s.start.max(backlog.0))
        };
        let lost: u64 = inside.iter().map(|s| cut(s).as_nanos()).sum();
        inside.iter().any(|s| s.length.as_nanos() > floor)
            || lost > floor
            || m.slowed.as_nanos() > floor
            || taken_on_core(&result, (cpu, m.backlog_from), job) > floor
    };
    for m in result.miss_causes.iter().filter(|m| m.task == 1) {
        if !host_evidence(m) {
            assert_eq!(m.cause, Cause::Schedule, "b#{}: {m:?}", m.job);
        }
    }
    // Slack from the (hand-worked) simulation: it misses b too, so whatever the host did,
    // every miss of b is the schedule's.
    let simulated = hand_simulated(&result);
    result.attribute_misses(Some(Twin::new(&simulated)));
    assert_eq!(result.misses_by_cause.slack_from, SlackFrom::Simulation);
    let b_misses: Vec<_> = result.miss_causes.iter().filter(|m| m.task == 1).collect();
    assert_eq!(b_misses.len() as u64, result.tasks[1].deadline_misses);
    assert!(b_misses
        .iter()
        .all(|m| m.cause == Cause::Schedule && m.slack.is_none()));
    // A run with misses of the schedule's is no evidence to run it again.
    assert_eq!(kairos_rt::attribution::host_evidence(&result), None);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_task_that_cannot_be_in_time_is_a_schedule_miss_under_kernel_dispatch() {
    a_late_task_is_the_schedules_fault(Dispatch::Kernel);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_task_that_cannot_be_in_time_is_a_schedule_miss_under_user_dispatch() {
    a_late_task_is_the_schedules_fault(Dispatch::User);
}
