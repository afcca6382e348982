//! Whether the host alone explains a real run's misses: the evidence on which a real run may
//! be run once more (a measurement that needs a whole run, a test), never a retry without it.
//!
//! A run the host held long enough piles up jobs; past what the dispatcher tracks it stops
//! early ("the run is overloaded"), and every job of the pile missed. When each of those
//! misses is attributed to the host by the rule of [`crate::attribution`] and none to the
//! schedule, what went wrong was the host's, and the stalls that explain them are the
//! evidence, printed before any new run.

use super::{MissCause, MissesByCause};
use crate::measure::RunResult;
use crate::stalls::{CoreLost, Seen, Stall};
use kairos_model::Duration;

/// The stalls shown in the evidence, longest first.
const SHOWN: usize = 3;

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

/// A stall as the report names it, on its CPU (the run numbers its cores by index).
fn describe(s: &Stall, cores: &[CoreLost]) -> String {
    let cpu = (cores.iter().find(|c| c.core == s.core)).map_or(s.core, |c| c.cpu);
    let what = match s.seen {
        Seen::Watcher => "stall",
        Seen::Dispatcher => "late wake-up of the dispatcher",
        Seen::Worker => "late start of a worker",
        Seen::Path => "late wind-up",
    };
    let ms = s.length.as_nanos() as f64 / 1e6;
    format!("{what} of {ms:.2}ms on CPU {cpu} at {}", s.start)
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
        }
    }

    fn counted(host: u64, schedule: u64) -> MissesByCause {
        MissesByCause {
            host,
            schedule,
            slack_from: SlackFrom::Run,
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
