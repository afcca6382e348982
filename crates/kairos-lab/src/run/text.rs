//! A real run in text: what ran where and for how long, the calibration, the job counts, the
//! misses by cause and the time lost per core, the measured latency histograms and every
//! task's release latency and response time.

use crate::text::{human_ns, Column};
use kairos_model::Workload;
use kairos_rt::attribution::{Cause, SlackFrom};
use kairos_rt::measure::{RunResult, Summary};
use kairos_rt::stalls::{CoreLost, Seen, Stall};
use std::collections::BTreeMap;

/// How many of the stalls that explain host misses the report names.
const NAMED_STALLS: usize = 5;

/// The first lines of every run report: what ran where and for how long, an early stop, and
/// the calibration. `under` names the policy (and, for tables, where they came from).
pub fn report_header(name: &str, under: &str, r: &RunResult) -> String {
    let cpus: Vec<String> = r.cpus.iter().map(|c| c.to_string()).collect();
    let mut out = format!(
        "{name} under {under} on CPU(s) {} for {} (ran {})\n",
        cpus.join(","),
        human_ns(r.duration_ns),
        human_ns(r.ran_ns)
    );
    if let Some(why) = &r.stopped_by {
        out.push_str(&format!("stopped early: {why}\n"));
    }
    out.push_str(&format!("{}\n", r.calibration.summary()));
    out
}

/// The readable report of a run.
pub fn summary(workload: &Workload, r: &RunResult) -> String {
    let name = workload.name.as_deref().unwrap_or("workload");
    let mut out = report_header(name, &r.policy, r);
    out.push_str(&format!(
        "jobs: {} released, {} completed, {} deadline miss(es), {} migration(s), {} mode change(s); /dev/cpu_dma_latency {}\n",
        r.jobs_released,
        r.jobs_completed,
        r.deadline_misses,
        r.migrations,
        r.mode_changes,
        if r.dma_latency_held { "held at 0" } else { "not held" }
    ));
    out.push_str(&lost_time(r));
    if let Some(o) = &r.optional {
        out.push_str(&format!(
            "optional parts: {} completed, {} cut, {} skipped; QoS {} (optional time executed / requested)\n",
            o.optional_completed,
            o.optional_cut,
            o.optional_skipped,
            r.optional_qos.map_or("-".into(), |q| format!("{:.1} %", 100.0 * q)),
        ));
    }
    for (name, h) in &r.histograms {
        out.push_str(&format!("{name:<34} {}\n", h.summary.display_us()));
    }
    let task = Column::fitting(12, r.tasks.iter().map(|t| t.task.as_str()));
    out.push_str(&format!(
        "{} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
        task.left("task"),
        "released",
        "completed",
        "misses",
        "latency p50",
        "latency max",
        "response p50",
        "response max"
    ));
    for t in &r.tasks {
        out.push_str(&format!(
            "{} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
            task.left(&t.task),
            t.jobs_released,
            t.jobs_completed,
            t.deadline_misses,
            us(&t.release_latency_ns, |s| s.p50),
            us(&t.release_latency_ns, |s| s.max),
            us(&t.response_time_ns, |s| s.p50),
            us(&t.response_time_ns, |s| s.max),
        ));
    }
    for note in &r.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

fn us(summary: &Summary, pick: impl Fn(&Summary) -> u64) -> String {
    if summary.count == 0 {
        "-".into()
    } else {
        human_ns(pick(summary))
    }
}

/// The misses by cause, each stall that explains host misses, and each core's lost time (the
/// rule is `kairos_rt::attribution`'s, described in docs/run.md).
pub fn lost_time(r: &RunResult) -> String {
    let m = &r.misses_by_cause;
    let from = match m.slack_from {
        SlackFrom::Simulation => "slack from the simulation",
        SlackFrom::Run => "slack from the run",
        SlackFrom::Tables => "by the tables' rule",
    };
    let mut out = format!(
        "deadline misses by cause: {} host, {} schedule ({from})\n",
        m.host, m.schedule
    );
    if let Some(replayed) = m.by_stalled_twin {
        out.push_str(&format!(
            "  stalled twin: {replayed} of these misses happen in the simulation with the run's stalls that took a core as {} outage(s), not without them: host\n",
            super::outages_of(&r.stall_intervals).len()
        ));
    }
    let blamed = blamed_stalls(r);
    for (stall, misses) in blamed.iter().take(NAMED_STALLS) {
        let what = match stall.seen {
            Seen::Watcher => "stall",
            Seen::Dispatcher => "late wake-up of the dispatcher",
            Seen::Worker => "late start of a worker",
            Seen::Path => "late wind-up",
        };
        out.push_str(&format!(
            "  host: {what} of {} on CPU {} at {} ({misses} miss(es))\n",
            human_ns(stall.length.as_nanos()),
            cpu_of(&r.stalls, stall.core),
            human_ns(stall.start.as_nanos())
        ));
    }
    if blamed.len() > NAMED_STALLS {
        out.push_str(&format!(
            "  host: {} more stall(s)\n",
            blamed.len() - NAMED_STALLS
        ));
    }
    let slowed = (r.miss_causes.iter())
        .filter(|m| m.cause == Cause::Host && m.stall.is_none() && m.stalled_twin.is_none())
        .count();
    if slowed > 0 {
        out.push_str(&format!(
            "  host: a core slowed under the job ({slowed} miss(es))\n"
        ));
    }
    out.push_str(&super::seen::schedule_misses(r));
    r.stalls.iter().for_each(|c| out.push_str(&core_line(c)));
    out
}

/// The stalls that explain host misses, by start, each with how many.
fn blamed_stalls(r: &RunResult) -> Vec<(Stall, usize)> {
    let mut blamed: BTreeMap<(u64, usize), (Stall, usize)> = BTreeMap::new();
    for miss in r.miss_causes.iter().filter(|m| m.cause == Cause::Host) {
        if let Some(s) = miss.stall {
            blamed
                .entry((s.start.as_nanos(), s.core))
                .or_insert((s, 0))
                .1 += 1;
        }
    }
    blamed.into_values().collect()
}

fn cpu_of(cores: &[CoreLost], core: usize) -> usize {
    cores
        .iter()
        .find(|c| c.core == core)
        .map_or(core, |c| c.cpu)
}

fn core_line(c: &CoreLost) -> String {
    let steal = c.steal.map_or("unknown".into(), |s| human_ns(s.as_nanos()));
    if !c.watched {
        return format!(
            "lost time on CPU {}: not watched (SCHED_DEADLINE threads rank above any watcher), steal {steal}\n",
            c.cpu
        );
    }
    let slowed = (c.slowed)
        .map(|d| format!(", slowed {} under its jobs", human_ns(d.as_nanos())))
        .unwrap_or_default();
    let late = |n: u64, what: &str, total: kairos_model::Duration| match n {
        0 => String::new(),
        n => format!(", {n} {what} ({})", human_ns(total.as_nanos())),
    };
    let late = late(
        c.late_wakes,
        "late wake-up(s) of its dispatcher",
        c.late_wake_total,
    ) + &late(
        c.late_starts,
        "late start(s) of its workers",
        c.late_start_total,
    );
    format!(
        "lost time on CPU {}: {} stall(s), {} (largest {}, {} held by other threads), steal {steal}{slowed}{late}\n",
        c.cpu,
        c.count,
        human_ns(c.total.as_nanos()),
        human_ns(c.largest.as_nanos()),
        human_ns(c.held.as_nanos()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{Duration, Instant};
    use kairos_rt::measure::{JobRecord, SegmentRecord, ThreadLog, WorkerTime};
    use kairos_rt::stalls::LostTime;

    const MS: u64 = 1_000_000;

    fn missed(task: usize, cpu: usize, release: u64) -> JobRecord {
        JobRecord {
            task,
            job: 0,
            release,
            deadline: release + 10 * MS,
            requested: None,
            start: Some(release),
            completion: Some(release + 14 * MS),
            discarded: None,
            cpu: Some(cpu),
            release_core: None,
        }
    }

    fn core(core: usize, stalls: &[Stall], steal: Option<u64>) -> CoreLost {
        CoreLost {
            core,
            cpu: core + 2,
            watched: true,
            count: stalls.len() as u64,
            total: stalls
                .iter()
                .map(|s| s.length)
                .fold(Duration::ZERO, |a, b| a + b),
            largest: stalls.iter().map(|s| s.length).max().unwrap_or_default(),
            largest_at: stalls.iter().max_by_key(|s| s.length).map(|s| s.start),
            held: stalls
                .iter()
                .map(|s| s.held)
                .fold(Duration::ZERO, |a, b| a + b),
            steal: steal.map(Duration::from_nanos),
            ..CoreLost::default()
        }
    }

    /// Core 0 (CPU 2) stalls 12.3 ms at 1.204 s over the windows of `a` and `b`, which ran
    /// 4 ms there; `c` ran 11 ms of its 10 ms window on core 1 (CPU 3): no slack.
    fn result() -> RunResult {
        let stall = Stall {
            core: 0,
            start: Instant::from_nanos(1_204_000_000),
            length: Duration::from_nanos(12_300_000),
            held: Duration::ZERO,
            seen: Seen::Watcher,
        };
        let segment = |cpu, task, start, ms| SegmentRecord {
            cpu,
            task,
            job: 0,
            start,
            end: start + ms * MS,
            worker_time: None,
        };
        let log = ThreadLog {
            jobs: vec![
                missed(0, 0, 1_200 * MS),
                missed(1, 0, 1_201 * MS),
                missed(2, 1, 1_000 * MS),
            ],
            segments: vec![
                segment(0, 0, 1_200 * MS, 4),
                segment(0, 1, 1_201 * MS, 4),
                segment(1, 2, 1_000 * MS, 11),
            ],
            ..ThreadLog::default()
        };
        super::super::fixture::built(
            ("pfp", &["a", "b", "c"]),
            vec![2, 3],
            2_000 * MS,
            log,
            LostTime {
                cores: vec![core(0, &[stall], Some(20 * MS)), core(1, &[], None)],
                stalls: vec![stall],
            },
        )
    }

    #[test]
    fn the_report_names_the_stall_behind_the_host_misses_and_each_cores_lost_time() {
        // a and b: 10 - 4 = 6 ms of slack each, less than the 12.3 ms stall: host, one stall.
        // c executes 11 ms in its 10 ms window: schedule, named with how late it ended.
        assert_eq!(
            lost_time(&result()),
            "deadline misses by cause: 2 host, 1 schedule (slack from the run)\n\
             \x20 host: stall of 12.300ms on CPU 2 at 1.204s (2 miss(es))\n\
             \x20 schedule: c#0 4.000ms late; no slack: it, or its backlog, needs more than its window\n\
             \x20   its segments, from its release at 1.000s: CPU 3 +0ns for 11.000ms past its deadline\n\
             lost time on CPU 2: 1 stall(s), 12.300ms (largest 12.300ms, 0ns held by other threads), steal 20.000ms\n\
             lost time on CPU 3: 0 stall(s), 0ns (largest 0ns, 0ns held by other threads), steal unknown\n"
        );
    }

    #[test]
    fn a_schedule_miss_shows_what_its_segments_had_of_their_core() {
        let mut r = result();
        let c = (r.segments.iter_mut()).find(|s| s.task == 2).unwrap();
        c.worker_time = Some(WorkerTime {
            on_cpu: Duration::from_millis(10),
            work: Duration::from_millis(6),
            dispatching: Duration::ZERO,
            optional: true,
        });
        assert!(lost_time(&r).contains(
            "    its segments, from its release at 1.000s: CPU 3 +0ns for 11.000ms past its \
             deadline (work 6.000ms, on the CPU 10.000ms, best effort)\n"
        ));
        // The time its core's dispatcher took in it, which the rule credits to the run.
        let c = (r.segments.iter_mut()).find(|s| s.task == 2).unwrap();
        c.worker_time = Some(WorkerTime {
            dispatching: Duration::from_micros(386),
            optional: false,
            ..c.worker_time.unwrap()
        });
        assert!(lost_time(&r)
            .contains("(work 6.000ms, on the CPU 10.000ms, its dispatcher 386.000us)\n"));
    }

    #[test]
    fn a_schedule_miss_the_backlog_rule_decided_shows_both_slacks() {
        let mut r = result();
        let c = (r.miss_causes.iter_mut()).find(|m| m.task == 2).unwrap();
        (c.own_slack, c.slack) = (
            Some(Duration::from_micros(238)),
            Some(Duration::from_millis(111)),
        );
        c.backlog_from = Instant::from_nanos(143 * MS);
        (c.evidence, c.backlog_evidence) = (Duration::from_micros(211), Duration::from_millis(2));
        assert!(lost_time(&r).contains(
            "  schedule: c#0 4.000ms late; slack 238.000us, its backlog's 111.000ms \
             (from 143.000ms); the host's recorded holes and slowing came to 211.000us in its \
             own time, 2.000ms in its backlog\n"
        ));
        // Under a partitioned policy with a static order the figure may be the work ahead's.
        r.core_order = Some(kairos_policy::CoreOrder::Deadline);
        assert!(lost_time(&r).contains(
            "came to 211.000us in its own time and the work ahead of it, 2.000ms in its backlog\n"
        ));
        r.core_order = None;
        // One slack when the job's own decided: the larger of what the host took, or none.
        let c = (r.miss_causes.iter_mut()).find(|m| m.task == 2).unwrap();
        c.own_slack = c.slack;
        assert!(lost_time(&r).contains(
            "c#0 4.000ms late; slack 111.000ms, the host's recorded holes and slowing came to \
             2.000ms\n"
        ));
        let c = (r.miss_causes.iter_mut()).find(|m| m.task == 2).unwrap();
        (c.evidence, c.backlog_evidence) = (Duration::ZERO, Duration::ZERO);
        assert!(lost_time(&r).contains(
            "c#0 4.000ms late; slack 111.000ms, the host recorded no hole or slowing there\n"
        ));
        // A table run's own rule weighed the work the job lacked: none of those figures.
        r.misses_by_cause.slack_from = SlackFrom::Tables;
        assert!(lost_time(&r)
            .contains("c#0 4.000ms late; slack 111.000ms, no stall or slowed core took as much\n"));
    }
}
