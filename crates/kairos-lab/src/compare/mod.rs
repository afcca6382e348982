//! A real run beside its simulation (`kairos run --compare`): the simulation of the same run,
//! the job-by-job table, and in numbers how closely a measured run followed the simulation of the
//! same workload under the same policy, job by job. Both sides are traces in the simulator's
//! vocabulary, so the comparison needs nothing else.
//!
//! - `jobs`: jobs released in both;
//! - `completed_both`, `completed_simulated_only`: completions, so a run that lost a job the
//!   simulation completes shows it;
//! - `same_core_sequence`: jobs that ran on the same cores in the same order in both (the
//!   sequence of cores of their execution segments, consecutive repeats merged: a preemption
//!   and resumption on the same core is not a difference, a migration is);
//! - `response_time_diff_ns`: percentiles of measured minus simulated response time over the
//!   jobs completed in both (positive: the real job finished later);
//! - `jobs_by_parts`, `same_part_sequence`: for imprecise jobs run by parts, the jobs in both
//!   with a part end in either, and those whose parts ended the same way in both (the sequence
//!   of (part, outcome) of their `part_end` events: an optional part completed, cut or skipped
//!   alike).

use crate::text::{human_ns, Column};
use crate::{Failure, Notify};
use kairos_model::Part;
use kairos_model::{Duration, Workload};
use kairos_policy::PolicyKind;
use kairos_sim::{ExecutionTimeModel, SimConfig};
use kairos_trace::{PartOutcome, Trace, TraceEvent};
use serde::Serialize;
use std::collections::BTreeMap;

/// Jobs shown by the job-by-job table before the totals.
const COMPARE_ROWS: usize = 20;

/// The comparison of one measured run with its simulation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Compare {
    pub jobs: u64,
    pub completed_both: u64,
    pub completed_simulated_only: u64,
    pub completed_measured_only: u64,
    pub same_core_sequence: u64,
    pub response_time_diff_ns: SignedSummary,
    pub jobs_by_parts: u64,
    pub same_part_sequence: u64,
}

/// Percentiles of signed differences, ns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SignedSummary {
    pub count: u64,
    pub min: i64,
    pub p50: i64,
    pub p90: i64,
    pub p99: i64,
    pub max: i64,
}

impl SignedSummary {
    fn of(mut values: Vec<i64>) -> Self {
        if values.is_empty() {
            return SignedSummary::default();
        }
        values.sort_unstable();
        let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
        SignedSummary {
            count: values.len() as u64,
            min: values[0],
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: values[values.len() - 1],
        }
    }
}

impl Compare {
    /// The share of jobs with the same core sequence, in percent.
    pub fn same_core_percent(&self) -> f64 {
        if self.jobs == 0 {
            return 100.0;
        }
        100.0 * self.same_core_sequence as f64 / self.jobs as f64
    }

    /// The share of jobs run by parts whose parts ended alike, in percent.
    pub fn same_parts_percent(&self) -> f64 {
        if self.jobs_by_parts == 0 {
            return 100.0;
        }
        100.0 * self.same_part_sequence as f64 / self.jobs_by_parts as f64
    }

    /// One line for the readable report (two with jobs run by parts).
    pub fn line(&self) -> String {
        let d = &self.response_time_diff_ns;
        let parts = match self.jobs_by_parts {
            0 => String::new(),
            n => format!(
                "{n} job(s) run by parts in both: {} ({:.1} %) ended their parts alike (completed, cut, skipped)\n",
                self.same_part_sequence,
                self.same_parts_percent()
            ),
        };
        parts + &format!(
            "{} job(s) in both: {} ({:.1} %) ran the same core sequence; completed: {} in both, {} only simulated, {} only measured; response time measured - simulated: median {}, p99 {}, max {}\n",
            self.jobs,
            self.same_core_sequence,
            self.same_core_percent(),
            self.completed_both,
            self.completed_simulated_only,
            self.completed_measured_only,
            crate::text::human_signed_ns(d.p50),
            crate::text::human_signed_ns(d.p99),
            crate::text::human_signed_ns(d.max),
        )
    }
}

/// Per job: release, completion and the cores it ran on, in order.
#[derive(Default)]
struct JobPath {
    release: u64,
    completion: Option<u64>,
    segments: Vec<(u64, usize)>,
    parts: Vec<(Part, PartOutcome)>,
}

impl JobPath {
    fn cores(&self) -> Vec<usize> {
        let mut segments = self.segments.clone();
        segments.sort_unstable();
        let mut cores: Vec<usize> = segments.into_iter().map(|(_, c)| c).collect();
        cores.dedup();
        cores
    }
}

fn paths(trace: &Trace) -> BTreeMap<(usize, u64), JobPath> {
    let mut paths: BTreeMap<(usize, u64), JobPath> = BTreeMap::new();
    for event in &trace.events {
        match *event {
            TraceEvent::Release { task, job, at, .. } => {
                paths.entry((task, job)).or_default().release = at.as_nanos();
            }
            TraceEvent::Segment {
                core,
                task,
                job,
                start,
                ..
            } => (paths.entry((task, job)).or_default().segments).push((start.as_nanos(), core)),
            TraceEvent::Completion { task, job, at } => {
                paths.entry((task, job)).or_default().completion = Some(at.as_nanos());
            }
            TraceEvent::PartEnd {
                task,
                job,
                part,
                outcome,
                ..
            } => (paths.entry((task, job)).or_default().parts).push((part, outcome)),
            _ => {}
        }
    }
    paths
}

/// Compares a measured trace with the simulated one (see the module documentation).
pub fn compare(measured: &Trace, simulated: &Trace) -> Compare {
    let (real, sim) = (paths(measured), paths(simulated));
    let mut out = Compare::default();
    let mut diffs = Vec::new();
    for (id, r) in &real {
        let Some(s) = sim.get(id) else { continue };
        out.jobs += 1;
        out.same_core_sequence += u64::from(r.cores() == s.cores());
        if !(r.parts.is_empty() && s.parts.is_empty()) {
            out.jobs_by_parts += 1;
            out.same_part_sequence += u64::from(r.parts == s.parts);
        }
        match (r.completion, s.completion) {
            (Some(a), Some(b)) => {
                out.completed_both += 1;
                let response = |c: u64, p: &JobPath| c.saturating_sub(p.release) as i64;
                diffs.push(response(a, r) - response(b, s));
            }
            (None, Some(_)) => out.completed_simulated_only += 1,
            (Some(_), None) => out.completed_measured_only += 1,
            (None, None) => {}
        }
    }
    out.response_time_diff_ns = SignedSummary::of(diffs);
    out
}

/// What the simulation of a real run takes from it: the cores it ran on and for how long,
/// and for its stalled twin the stalls it recorded, as outages of their cores.
#[derive(Clone, Debug)]
pub struct RealRun {
    pub cores: usize,
    pub duration: Duration,
    pub outages: kairos_sim::outages::Outages,
}

impl RealRun {
    /// What `result`'s plain twin takes from it: no outage.
    pub fn of(result: &kairos_rt::measure::RunResult) -> RealRun {
        RealRun {
            cores: result.cpus.len(),
            duration: Duration::from_nanos(result.ran_ns),
            outages: Default::default(),
        }
    }
}

/// The simulator's run of the same workload: the same policy, priorities and core binding
/// over the same duration, on as many cores as the real run used, with sporadic tasks
/// arriving at their minimum inter-arrival time as the runtime releases them, and every job's
/// work drawn from `draws` (model and seed) as the run drew it.
pub fn simulate_same(
    workload: &Workload,
    kind: PolicyKind,
    priorities: kairos_policy::PriorityOrder,
    ran: RealRun,
    overheads: kairos_model::Overheads,
    draws: (ExecutionTimeModel, u64),
    notify: Notify,
) -> Result<Trace, Failure> {
    let mut simulated = workload.clone();
    if kind != PolicyKind::PartitionedFp {
        simulated.cores = ran.cores.max(1);
    }
    for task in &mut simulated.tasks {
        task.arrival = kairos_model::Arrival::Periodic;
    }
    let sim_config = SimConfig {
        duration: ran.duration.max(Duration::from_nanos(1)),
        execution_times: draws.0,
        seed: draws.1,
        record_trace: true,
        overheads,
        outages: ran.outages,
        ..SimConfig::default()
    };
    let outcome = crate::simulate::run_policy(&simulated, kind, priorities, &sim_config, notify)?;
    outcome
        .trace
        .ok_or_else(|| Failure::environment("the simulation kept no trace"))
}

/// Per job: release, first start, completion, missed; from a trace of either kind.
#[derive(Clone, Copy, Default)]
struct JobTimes {
    release: u64,
    start: Option<u64>,
    completion: Option<u64>,
    missed: bool,
}

fn job_times(trace: &Trace) -> BTreeMap<(usize, u64), JobTimes> {
    let mut views: BTreeMap<(usize, u64), JobTimes> = BTreeMap::new();
    for event in &trace.events {
        match *event {
            TraceEvent::Release { task, job, at, .. } => {
                views.entry((task, job)).or_default().release = at.as_nanos();
            }
            TraceEvent::Segment {
                task, job, start, ..
            } => {
                let v = views.entry((task, job)).or_default();
                let start = start.as_nanos();
                v.start = Some(v.start.map_or(start, |s| s.min(start)));
            }
            TraceEvent::Completion { task, job, at } => {
                views.entry((task, job)).or_default().completion = Some(at.as_nanos());
            }
            TraceEvent::DeadlineMiss { task, job, .. } => {
                views.entry((task, job)).or_default().missed = true;
            }
            _ => {}
        }
    }
    views
}

/// The job column of the comparison: its rows are not known before they are made.
const JOB: Column = Column::fixed(14);

/// The job-by-job comparison of a measured and a simulated trace.
pub fn job_by_job(workload: &Workload, measured: &Trace, simulated: &Trace) -> String {
    let sim = job_times(simulated);
    let mut real: Vec<((usize, u64), JobTimes)> = job_times(measured).into_iter().collect();
    real.sort_by_key(|&((task, job), v)| (v.release, task, job));
    let mut out =
        String::from("\nmeasured vs simulated, job by job (times from the run's start):\n");
    out.push_str(&format!(
        "{} {:>10} {:>11} {:>11} {:>11} {:>11} {:>8}\n",
        JOB.left("job"),
        "release",
        "start sim",
        "start real",
        "resp sim",
        "resp real",
        "miss s/r"
    ));
    let show = |t: Option<u64>| t.map_or("-".to_string(), human_ns);
    let (mut start_diffs, mut misses_sim, mut misses_real) = (Vec::new(), 0, 0);
    for (row, &((task, job), r)) in real.iter().enumerate() {
        let s = sim.get(&(task, job)).copied().unwrap_or_default();
        misses_real += u64::from(r.missed);
        misses_sim += u64::from(s.missed);
        if let (Some(a), Some(b)) = (r.start, s.start) {
            start_diffs.push(a.abs_diff(b));
        }
        if row < COMPARE_ROWS {
            let name = workload.tasks.get(task).map_or("?", |t| t.name.as_str());
            out.push_str(&format!(
                "{} {:>10} {:>11} {:>11} {:>11} {:>11} {:>8}\n",
                JOB.left(&format!("{name}#{job}")),
                human_ns(r.release),
                show(s.start),
                show(r.start),
                show(s.completion.map(|c| c.saturating_sub(r.release))),
                show(r.completion.map(|c| c.saturating_sub(r.release))),
                format!("{}/{}", yes_no(s.missed), yes_no(r.missed)),
            ));
        }
    }
    if real.len() > COMPARE_ROWS {
        out.push_str(&format!("... {} more job(s)\n", real.len() - COMPARE_ROWS));
    }
    start_diffs.sort_unstable();
    let median = start_diffs.get(start_diffs.len() / 2).copied().unwrap_or(0);
    let max = start_diffs.last().copied().unwrap_or(0);
    out.push_str(&format!(
        "{} job(s) started in both; |start real - start sim|: median {}, max {}; deadline misses: simulated {misses_sim}, measured {misses_real}\n",
        start_diffs.len(),
        human_ns(median),
        human_ns(max)
    ));
    out
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

#[cfg(test)]
mod tests;
