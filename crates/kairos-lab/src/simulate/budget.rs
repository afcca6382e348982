//! Bounds on what a simulation records, decided before it starts: the events its trace would
//! hold are estimated from the periods (jobs and server periods in the span recorded) and,
//! past the cap (`--max-events`), the run is refused with the estimate, or, for a Gantt chart
//! of the whole run, recorded over the first part of the run that fits, with a warning. The
//! engine stops a run whose trace passes the cap anyway ([`kairos_sim::TraceBounds`]): the
//! estimate only spares the user a run that would fail.

use crate::{Failure, Notify};
use kairos_model::{Duration, Instant};
use kairos_sim::TraceBounds;
use kairos_trace::Trace;

pub use kairos_sim::DEFAULT_MAX_TRACE_EVENTS;

/// Events a job adds to a trace in the usual case: its release, its completion and two
/// segments (one preemption).
const EVENTS_PER_JOB: u64 = 4;
/// Events a server (VCPU) period adds: its replenishment, a placement on a core and its
/// exhaustion.
const EVENTS_PER_SERVER_PERIOD: u64 = 3;

/// What of the trace the outputs need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceScope {
    /// Every event (a Perfetto trace, per-job rows): refused past the cap.
    #[default]
    Whole,
    /// What a Gantt chart of `[from, to]` draws: refused past the cap.
    Window(Instant, Instant),
    /// A Gantt chart of the run: past the cap, of its first part that fits, with a warning.
    Sampled,
}

/// The events a trace of the first `span` of a run holds, about: `tasks` are the periods of
/// the tasks (minimum inter-arrival times of sporadic ones), `servers` those of the servers.
pub fn estimate_events(
    span: Duration,
    tasks: impl IntoIterator<Item = Duration>,
    servers: impl IntoIterator<Item = Duration>,
) -> u64 {
    let periods_in = |period: Duration| span.as_nanos() / period.as_nanos().max(1) + 1;
    let count = |periods: &mut dyn Iterator<Item = Duration>, each: u64| {
        periods.fold(0u64, |n, p| {
            n.saturating_add(periods_in(p).saturating_mul(each))
        })
    };
    count(&mut tasks.into_iter(), EVENTS_PER_JOB)
        .saturating_add(count(&mut servers.into_iter(), EVENTS_PER_SERVER_PERIOD))
}

/// The bounds of the trace of a run of `duration` for `scope`, at most `max` events;
/// `estimate` gives the events of a span from the run's start ([`estimate_events`]).
pub fn trace_bounds(
    scope: TraceScope,
    duration: Duration,
    max: u64,
    estimate: impl Fn(Duration) -> u64,
    notify: Notify,
) -> Result<TraceBounds, Failure> {
    let whole = estimate(duration);
    let bounds = |window| TraceBounds {
        window,
        max_events: max,
    };
    match scope {
        TraceScope::Whole if whole > max => Err(too_many(whole, max, "the run")),
        TraceScope::Whole => Ok(bounds(None)),
        TraceScope::Window(from, to) => {
            let end = Instant::ZERO + duration;
            let span = to.min(end).saturating_since(from.min(end));
            match estimate(span) {
                events if events > max => Err(too_many(events, max, "the Gantt window")),
                _ => Ok(bounds(Some((from, to)))),
            }
        }
        TraceScope::Sampled if whole <= max => Ok(bounds(None)),
        TraceScope::Sampled => {
            let first = first_part(duration, whole, max);
            let events = estimate(first);
            if events > max {
                return Err(Failure::bad_input(format!(
                    "a cap of {max} events cannot hold even the first {first} of the run (about {events} events): raise it with --max-events N"
                )));
            }
            notify(&format!(
                "warning: a Gantt chart of the whole run would draw about {whole} events, more than the cap of {max}; drawing its first {first} (use --gantt-window START..END to pick the part, or --max-events N to raise the cap)"
            ));
            Ok(bounds(Some((Instant::ZERO, Instant::ZERO + first))))
        }
    }
}

/// After a run recorded with `bounds` for `scope`: a sampled trace ends where its window does,
/// so that its chart spans what was recorded.
pub fn end_sample(scope: TraceScope, bounds: TraceBounds, trace: Option<&mut Trace>) {
    if let (TraceScope::Sampled, Some((_, to)), Some(trace)) = (scope, bounds.window, trace) {
        trace.end = trace.end.min(to);
    }
}

/// The first part of a run of `duration` whose trace holds about half of `max` of its `whole`
/// events: half, because the estimate does not count every preemption and the engine stops a
/// run whose trace passes `max`.
fn first_part(duration: Duration, whole: u64, max: u64) -> Duration {
    let part = duration.as_nanos() as u128 * (max / 2) as u128 / whole.max(1) as u128;
    Duration::from_nanos(two_digits(part as u64).max(1))
}

/// `ns` rounded down to its first two digits, so the part reads as `30s`, not `30.009482996s`.
fn two_digits(ns: u64) -> u64 {
    let unit = 10u64.pow(ns.checked_ilog10().unwrap_or(0).saturating_sub(1));
    ns / unit * unit
}

fn too_many(events: u64, max: u64, what: &str) -> Failure {
    Failure::bad_input(format!(
        "the trace of {what} would hold about {events} events, more than the cap of {max}: draw part of the run with --gantt-window START..END, shorten --duration, or raise the cap with --max-events N"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_estimate_counts_each_period_started_in_the_span() {
        // 10ms over periods 2ms and 3ms: jobs at 0,2,..,10 (6) and 0,3,6,9 (4); one server of
        // period 5ms: periods at 0, 5, 10 (3).
        let events = estimate_events(ms(10), [ms(2), ms(3)], [ms(5)]);
        assert_eq!(events, 10 * EVENTS_PER_JOB + 3 * EVENTS_PER_SERVER_PERIOD);
    }

    #[test]
    fn a_sampled_gantt_past_the_cap_keeps_a_first_part_at_half_the_cap() {
        let mut told = Vec::new();
        // One event per nanosecond: 1s is 10^9 events; a cap of 1000 keeps the first 500ns.
        let per_ns = |span: Duration| span.as_nanos();
        let bounds = trace_bounds(
            TraceScope::Sampled,
            Duration::from_secs(1),
            1000,
            per_ns,
            &mut |m: &str| told.push(m.to_string()),
        )
        .unwrap();
        assert_eq!(
            bounds.window,
            Some((Instant::ZERO, Instant::from_nanos(500)))
        );
        assert!(told[0].contains("--max-events"), "{told:?}");
    }

    /// Ten tasks released at 0 (40 events before anything runs): a cap of 8 keeps no part.
    #[test]
    fn a_cap_smaller_than_the_first_instant_is_refused_before_the_run() {
        let ten_tasks = |span: Duration| estimate_events(span, [ms(1); 10], []);
        let mut quiet = |_: &str| {};
        let refused = trace_bounds(TraceScope::Sampled, ms(100), 8, ten_tasks, &mut quiet);
        let message = refused.unwrap_err().message;
        assert!(
            message.contains("about 40 events") && message.contains("--max-events"),
            "{message}"
        );
        assert!(trace_bounds(TraceScope::Sampled, ms(100), 200, ten_tasks, &mut quiet).is_ok());
    }

    #[test]
    fn a_sampled_part_keeps_its_first_two_digits() {
        assert_eq!(two_digits(30_009_482_996), 30_000_000_000);
        assert_eq!(two_digits(83_333), 83_000);
        assert_eq!(two_digits(7), 7);
        // 10s of a run whose trace is 3x the cap: half the cap is a sixth, 1.666..s.
        let part = first_part(Duration::from_secs(10), 3_000, 1_000);
        assert_eq!(part, Duration::from_millis(1_600));
    }

    #[test]
    fn whole_traces_and_windows_past_the_cap_are_refused_with_the_estimate() {
        let per_ns = |span: Duration| span.as_nanos();
        let mut quiet = |_: &str| {};
        let whole = trace_bounds(TraceScope::Whole, ms(1), 1000, per_ns, &mut quiet);
        let message = whole.unwrap_err().message;
        assert!(message.contains("1000000 events") && message.contains("--max-events"));
        // A window is estimated over its own span, cut to the run: [0.5ms, 2ms) of 1ms is 500ns.
        let window =
            TraceScope::Window(Instant::from_nanos(500_000), Instant::from_nanos(2_000_000));
        let fits = trace_bounds(window, ms(1), 500_000, per_ns, &mut quiet).unwrap();
        assert_eq!(
            fits.window,
            Some((Instant::from_nanos(500_000), Instant::from_nanos(2_000_000)))
        );
        assert!(trace_bounds(window, ms(1), 499_999, per_ns, &mut quiet).is_err());
    }
}
