//! Whether the host alone explains a real run's misses: the evidence on which a real run may
//! be run once more (a measurement that needs a whole run, a test), never a retry without it.
//!
//! A run the host held long enough piles up jobs; past what the dispatcher tracks it stops
//! early ("the run is overloaded"), and every job of the pile missed. When each of those
//! misses is attributed to the host by the rule of [`crate::attribution`] and none to the
//! schedule, what went wrong was the host's, and the stalls that explain them are the
//! evidence, printed before any new run.
//!
//! A run the host stopped has a second ground ([`host_stop_evidence`]): the host took more
//! than [`DISTURBED`] of a CPU's time. A measurement's figures (the overhead profile's) are
//! then the host's neighbours', not this machine's, whatever the rule made of each miss: once a
//! core has fallen behind, later misses sit behind work the schedule could not catch up on,
//! and the rule, which weighs each job's own window and backlog, calls many of them the
//! schedule's. A test's run stopped so is likewise no test of its schedule: a deferrable VCPU,
//! charged while its core holds a job, stalls included, runs out of budget on such a host
//! (CI hosts took half of each CPU).

use super::{MissCause, MissesByCause};
use crate::dispatcher::OVERLOADED;
use crate::measure::RunResult;
use crate::stalls::{CoreLost, Seen, Stall};
use kairos_model::Duration;

/// The stalls shown in the evidence, longest first.
const SHOWN: usize = 3;

/// The share of a CPU's time the host may take from a run it did not stop. A
/// quiet host takes well under a hundredth (steal of a few milliseconds a second at worst on
/// the 2-vCPU machines kairos is tested on); CI runs that stopped overloaded had lost 28 to
/// 32 % of each CPU to stalls and slowing, and 25 % to steal.
pub const DISTURBED: f64 = 0.10;

/// The host's part in a run whose misses are all the host's, in text (how many, the longest
/// stalls that explain them, the steal); `None` when a miss is the schedule's or the run has
/// no miss.
pub fn host_evidence(result: &RunResult) -> Option<String> {
    evidence(result.misses_by_cause, &result.miss_causes, &result.stalls)
}

fn evidence(by_cause: MissesByCause, causes: &[MissCause], cores: &[CoreLost]) -> Option<String> {
    if by_cause.host == 0 || by_cause.schedule > 0 {
        return None;
    }
    let mut stalls: Vec<Stall> = causes.iter().filter_map(|m| m.stall).collect();
    stalls.sort_by_key(|s| (std::cmp::Reverse(s.length), s.core, s.start));
    stalls.dedup();
    let mut parts = vec![format!("{} miss(es), every one the host's", by_cause.host)];
    parts.extend(stalls.iter().take(SHOWN).map(|s| describe(s, cores)));
    let steal: u64 = (cores.iter().filter_map(|c| c.steal))
        .map(Duration::as_nanos)
        .sum();
    if steal > 0 {
        parts.push(format!("steal {}", Duration::from_nanos(steal)));
    }
    Some(parts.join("; "))
}

/// Why the host stopped a run early, in text: the run piled up past what the dispatcher
/// tracks ([`OVERLOADED`]) and either every miss is the host's ([`host_evidence`]) or the
/// host took more than `DISTURBED` of a CPU (`host_share_evidence`). `None` when the run
/// was not stopped, or stopped for another reason (a signal, the watchdog, the policy), or
/// without the host's evidence: then the stop is the run's own to explain.
pub fn host_stop_evidence(result: &RunResult) -> Option<String> {
    stop_evidence(result.stopped_by.as_deref(), || {
        host_evidence(result).or_else(|| host_share_evidence(result))
    })
}

/// The host's evidence (`host`) when the stop (`stopped_by`) is a pile-up, only the host's
/// to cause; a watchdog's or a policy's stop is not, whatever the host did.
fn stop_evidence(
    stopped_by: Option<&str>,
    host: impl FnOnce() -> Option<String>,
) -> Option<String> {
    let piled_up = stopped_by.is_some_and(|r| r.ends_with(OVERLOADED));
    piled_up.then(host).flatten()
}

/// The host's take of the run's most disturbed CPU, in text, when it is more than
/// [`DISTURBED`] of the time run: the larger of the CPU's steal and its recorded lost time
/// (stalls, late wake-ups of its dispatcher, late starts of its workers, slowing under its
/// jobs). `None` otherwise, or when the run ran no time.
fn host_share_evidence(result: &RunResult) -> Option<String> {
    share_evidence(&result.stalls, Duration::from_nanos(result.ran_ns))
}

fn share_evidence(cores: &[CoreLost], ran: Duration) -> Option<String> {
    if ran.is_zero() {
        return None;
    }
    let share = |c: &CoreLost| taken(c).as_nanos() as f64 / ran.as_nanos() as f64;
    let worst = cores.iter().max_by(|a, b| share(a).total_cmp(&share(b)))?;
    (share(worst) > DISTURBED).then(|| {
        format!(
            "the host took {} of CPU {}'s {} ({:.0} %: steal {}, lost {}), more than {:.0} %",
            ms(taken(worst)),
            worst.cpu,
            ms(ran),
            share(worst) * 100.0,
            ms(worst.steal.unwrap_or(Duration::ZERO)),
            ms(recorded(worst)),
            DISTURBED * 100.0
        )
    })
}

/// Milliseconds to a tenth: these figures are hundreds of them, whose exact nanoseconds
/// would only hide their size.
fn ms(d: Duration) -> String {
    format!("{:.1}ms", d.as_nanos() as f64 / 1e6)
}

/// What the host took from a CPU: steal and the lost time recorded there overlap (a stolen
/// CPU shows as a stall or a slowed job), so the larger of the two.
fn taken(c: &CoreLost) -> Duration {
    recorded(c).max(c.steal.unwrap_or(Duration::ZERO))
}

fn recorded(c: &CoreLost) -> Duration {
    c.total + c.late_wake_total + c.late_start_total + c.slowed.unwrap_or(Duration::ZERO)
}

/// A stall as the report names it, on its CPU (the run numbers its cores by index).
fn describe(s: &Stall, cores: &[CoreLost]) -> String {
    let cpu = (cores.iter().find(|c| c.core == s.core)).map_or(s.core, |c| c.cpu);
    let what = match s.seen {
        Seen::Watcher => "stall",
        Seen::Dispatcher => "late wake-up of the dispatcher",
        Seen::Worker => "late start of a worker",
        Seen::Path => "late wind-up",
    };
    let length = s.length.as_nanos() as f64 / 1e6;
    format!("{what} of {length:.2}ms on CPU {cpu} at {}", s.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::tests::stall;
    use crate::attribution::{Cause, SlackFrom};
    use kairos_model::Instant;

    fn miss(job: u64, cause: Cause, stall: Option<Stall>) -> MissCause {
        MissCause {
            task: 0,
            job,
            cause,
            slack: Some(Duration::from_micros(500)),
            own_slack: Some(Duration::from_micros(500)),
            stall,
            slowed: Duration::ZERO,
            backlog_from: Instant::ZERO,
            evidence: Duration::ZERO,
            backlog_evidence: Duration::ZERO,
            stalled_twin: None,
        }
    }

    fn counted(host: u64, schedule: u64) -> MissesByCause {
        MissesByCause {
            host,
            schedule,
            slack_from: SlackFrom::Run,
            by_stalled_twin: None,
        }
    }

    #[test]
    fn misses_all_the_hosts_name_the_longest_stalls_once_each() {
        let long = stall(0, 513_000, 62_000_000);
        let short = |at_us: u64| stall(1, at_us * 1_000, 600_000);
        let causes = [
            miss(0, Cause::Host, Some(long)),
            miss(1, Cause::Host, Some(long)),
            miss(2, Cause::Host, Some(stall(1, 2_513_000, 900_000))),
            miss(3, Cause::Host, Some(short(5_513))),
            miss(4, Cause::Host, Some(short(7_513))),
        ];
        // The run's cores 0 and 1 are CPUs 2 and 3; the hypervisor stole 10 ms of CPU 3.
        let cpu = |core, steal_ms| CoreLost {
            core,
            cpu: core + 2,
            steal: Some(Duration::from_millis(steal_ms)),
            ..CoreLost::default()
        };
        // The three longest, the first of two equal ones.
        assert_eq!(
            evidence(counted(5, 0), &causes, &[cpu(0, 0), cpu(1, 10)]).as_deref(),
            Some(
                "5 miss(es), every one the host's; stall of 62.00ms on CPU 2 at 513us; \
                 stall of 0.90ms on CPU 3 at 2.513ms; stall of 0.60ms on CPU 3 at 5.513ms; \
                 steal 10ms"
            )
        );
    }

    #[test]
    fn each_kind_of_hole_is_named_for_what_saw_it() {
        let named = |seen| {
            let hole = Stall {
                seen,
                ..stall(1, 1_435_000_000, 209_262)
            };
            describe(&hole, &[])
        };
        let at = "of 0.21ms on CPU 1 at 1.435s";
        assert_eq!(named(Seen::Watcher), format!("stall {at}"));
        assert_eq!(
            named(Seen::Dispatcher),
            format!("late wake-up of the dispatcher {at}")
        );
        assert_eq!(named(Seen::Worker), format!("late start of a worker {at}"));
        assert_eq!(named(Seen::Path), format!("late wind-up {at}"));
    }

    /// The figures of the CI run whose profile stopped overloaded with misses of both causes.
    fn lost(cpu: usize, stalls_ms: u64, steal_ms: u64, slowed_ms: u64) -> CoreLost {
        CoreLost {
            core: cpu,
            cpu,
            watched: true,
            total: Duration::from_millis(stalls_ms),
            steal: Some(Duration::from_millis(steal_ms)),
            late_wake_total: Duration::from_millis(19),
            late_start_total: Duration::from_millis(1),
            slowed: Some(Duration::from_millis(slowed_ms)),
            ..CoreLost::default()
        }
    }

    #[test]
    fn a_host_that_took_more_than_a_tenth_of_a_cpu_disturbed_the_run() {
        let ran = Duration::from_millis(2_364);
        let cores = [lost(0, 481, 580, 188), lost(1, 475, 650, 257)];
        // CPU 1: 475 + 19 + 1 + 257 = 752 ms recorded, more than its 650 ms of steal.
        assert_eq!(
            share_evidence(&cores, ran).as_deref(),
            Some(
                "the host took 752.0ms of CPU 1's 2364.0ms (32 %: steal 650.0ms, lost 752.0ms), \
                 more than 10 %"
            )
        );
        // Steal counts when it is the larger: 300 ms of 2.364 s is 13 %.
        let stolen = [lost(0, 10, 300, 0)];
        assert!(share_evidence(&stolen, ran)
            .unwrap()
            .contains("took 300.0ms of CPU 0"));
    }

    #[test]
    fn a_quiet_host_or_an_empty_run_is_no_evidence() {
        // 200 ms of 2.364 s is 8.5 %: below the bar.
        let quiet = [lost(0, 100, 50, 80), lost(1, 0, 200, 0)];
        assert_eq!(share_evidence(&quiet, Duration::from_millis(2_364)), None);
        assert_eq!(share_evidence(&quiet, Duration::ZERO), None);
        assert_eq!(share_evidence(&[], Duration::from_millis(1)), None);
    }

    #[test]
    fn only_a_pile_up_the_host_explains_is_the_hosts_stop() {
        let piled = format!("task a has 32 released, unfinished jobs at 1s: {OVERLOADED}");
        let host = || Some("steal 300ms".to_string());
        assert_eq!(
            stop_evidence(Some(&piled), host).as_deref(),
            Some("steal 300ms")
        );
        assert_eq!(stop_evidence(Some(&piled), || None), None);
        assert_eq!(stop_evidence(Some("watchdog: no progress"), host), None);
        assert_eq!(stop_evidence(Some("SIGINT"), host), None);
        assert_eq!(stop_evidence(None, host), None);
    }

    #[test]
    fn one_miss_of_the_schedule_or_none_at_all_is_no_evidence() {
        let causes = [
            miss(0, Cause::Host, Some(stall(0, 513_000, 62_000_000))),
            miss(1, Cause::Schedule, None),
        ];
        assert_eq!(evidence(counted(1, 1), &causes, &[]), None);
        assert_eq!(evidence(counted(0, 0), &[], &[]), None);
    }
}
