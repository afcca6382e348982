//! The watchdog on real threads: a SCHED_FIFO thread spinning without progress is demoted
//! after the stall time, and the hard stop demotes even one that makes progress. Needs
//! real-time privilege (ignored by a plain `cargo test`; CI runs it as root).

mod common;

use common::{assert_no_rt_thread_left, require_rt, serial};
use kairos_os::{clock, sched, thread};
use kairos_rt::watchdog::{Guarded, Heartbeat, RunControl, Watchdog, WatchdogConfig};
use std::sync::atomic::AtomicI32;
use std::sync::Arc;

/// A SCHED_FIFO thread that spins without a heartbeat until it sees itself demoted (or 3 s).
fn spinner(beat: Option<Arc<Heartbeat>>) -> impl FnOnce() -> bool + Send + 'static {
    move || {
        let until = clock::now_ns() + 3_000_000_000;
        while clock::now_ns() < until {
            if let Some(b) = &beat {
                b.beat();
            }
            if sched::policy_of(0) == Some(libc::SCHED_OTHER) {
                return true;
            }
        }
        false
    }
}

fn spin_under_watchdog(
    config_of: impl Fn(u64) -> WatchdogConfig,
    beating: bool,
) -> (bool, Option<String>, Option<String>) {
    let control = RunControl::new();
    let watchdog =
        Watchdog::start(Arc::clone(&control), config_of(clock::now_ns())).expect("watchdog");
    let heartbeat = Arc::new(Heartbeat::default());
    let cpu = *kairos_os::online_cpus().last().expect("a CPU");
    let spec = thread::ThreadSpec::fifo("kairos-stuck", 10, vec![cpu]);
    let spin =
        thread::spawn(spec, spinner(beating.then(|| Arc::clone(&heartbeat)))).expect("spinner");
    watchdog.guard(Guarded {
        name: spin.name().to_string(),
        tid: spin.tid(),
        heartbeat,
        child: Arc::new(AtomicI32::new(0)),
    });
    let demoted = spin.join().expect("spinner ends");
    let intervention = watchdog.stop();
    (demoted, intervention, control.reason())
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn the_watchdog_demotes_a_thread_that_spins_without_progress() {
    let _lock = serial();
    require_rt();
    let (demoted, intervention, reason) = spin_under_watchdog(
        |now| WatchdogConfig {
            period_ns: 10_000_000,
            stall_ns: 100_000_000,
            hard_stop_at_ns: now + 60_000_000_000,
        },
        false,
    );
    assert!(demoted, "the spinning thread was never demoted");
    let text = intervention.expect("the watchdog intervened");
    assert!(text.contains("without progress"), "{text}");
    assert_eq!(reason.as_deref(), Some(text.as_str()));
    assert_no_rt_thread_left();
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn the_hard_stop_demotes_even_a_thread_that_makes_progress() {
    let _lock = serial();
    require_rt();
    let (demoted, intervention, _) = spin_under_watchdog(
        |now| WatchdogConfig {
            period_ns: 10_000_000,
            stall_ns: 60_000_000_000,
            hard_stop_at_ns: now + 150_000_000,
        },
        true,
    );
    assert!(demoted, "the hard stop did not demote the thread");
    assert!(intervention.expect("intervened").contains("hard stop"));
    assert_no_rt_thread_left();
}
