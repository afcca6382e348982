//! What a table-driven run adds to the common run result (Pautet, Robert, Tardieu,
//! "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 7.1
//! "Decomposition of a criticality mode change"): the parts of each mode change raised by an
//! overrun (detection: the end of the overrunning job's interval to the pass that saw it;
//! decided: to every decision of that pass published; all rescheduled: to the last core
//! running what the new mode wants, and each core's own delay from the decision), deadline
//! misses per criticality level, budget stops, and a check that no job ever ran on two cores
//! at once.

use super::cause::{self, Raise};
use crate::dispatcher::{ModeChangeRecord, UserRun};
use crate::measure::{names, Distribution, HistogramJson, RunResult};
use kairos_policy::table::TablePlan;
use std::collections::HashMap;
use std::sync::Arc;

/// The boundary of the overrunning interval to the last core rescheduled: a mode change end
/// to end.
pub const MODE_CHANGE_TOTAL: &str = "mode_change.total";

/// The rescheduling delay of one core: `mode_change.reschedule_delay.core<k>`.
pub fn reschedule_delay_name(core: usize) -> String {
    format!("mode_change.reschedule_delay.core{core}")
}

/// A table-driven run: the common result plus what only a run with modes knows.
#[derive(Debug)]
pub struct TableRun {
    pub result: RunResult,
    /// Every change of the mode, up and back to the lowest level, in order.
    pub mode_changes: Vec<ModeChangeRecord>,
    /// Deadline misses per criticality level (of the missing job's task), in level order.
    pub misses_per_level: Vec<u64>,
    /// Times two execution segments of one job overlapped (must be 0).
    pub overlaps: u64,
    /// Overruns that found the mode already raised at their instant (simultaneous overruns).
    pub overruns_absorbed: u64,
    /// Jobs stopped for good by budget enforcement.
    pub jobs_killed: u64,
    /// Every question to the table policy, with what led to it (to replay the run), when
    /// [`super::TableRunConfig::record_steps`] (else none).
    pub steps: Vec<kairos_policy::Step>,
    /// Every raise of the mode with its cause ([`super::cause`]), in order.
    pub raises: Vec<Raise>,
    /// The plan the run followed and each job's work as its body ran it (`[task][job]`, ns):
    /// what [`TableRun::attribute_misses`] weighs the misses against.
    pub plan: Arc<TablePlan>,
    pub asked: Vec<Vec<u64>>,
}

impl TableRun {
    /// Attributes the misses again, the generic rule's slack from `simulated`
    /// ([`RunResult::attribute_misses`]), then every miss a table explains by the rule of
    /// raises ([`super::cause::attribute_misses`]).
    pub fn attribute_misses(&mut self, simulated: Option<&kairos_trace::Trace>) {
        (self.result).attribute_misses(simulated.map(crate::attribution::Twin::new));
        let result = &mut self.result;
        cause::attribute_misses(&self.plan, result, &self.mode_changes, &self.asked);
    }
}

/// Completes a dispatcher run of the table policy (see the module documentation); `asked` is
/// each job's work as its body ran it (`[task][job]`, ns).
pub fn build(plan: Arc<TablePlan>, run: UserRun, asked: Vec<Vec<u64>>) -> TableRun {
    let UserRun {
        mut result,
        mode_changes,
        rescheduled,
        stops,
        steps,
        ..
    } = run;
    let mut parts = mode_change_parts(&mode_changes, &rescheduled, plan.cores);
    for (name, d) in std::mem::take(&mut parts) {
        result.histograms.insert(
            name,
            HistogramJson {
                summary: d.summary(),
                buckets: d.buckets(),
            },
        );
    }
    let end = result.ran_ns.min(result.duration_ns);
    let mut misses_per_level = vec![0; plan.levels.len()];
    for job in result.jobs.iter().filter(|j| j.missed(end)) {
        misses_per_level[plan.tasks[job.task].criticality()] += 1;
    }
    use_table_start_latency(&mut result, &plan);
    let overlaps = overlaps(&result);
    let absorbed = (mode_changes.iter())
        .map(|c| c.triggers.len().saturating_sub(1) as u64)
        .sum();
    result.notes.push(format!(
        "deadline misses per level: {}; overruns absorbed by a simultaneous one: {absorbed}; \
         jobs stopped by budget: {stops}",
        (plan.levels.iter().zip(&misses_per_level))
            .map(|(l, m)| format!("{l} {m}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if overlaps > 0 {
        result.notes.push(format!(
            "PROTOCOL VIOLATION: {overlaps} double execution(s)"
        ));
    }
    let raises = cause::raises(&plan, &result, &mode_changes, &asked);
    cause::attribute_misses(&plan, &mut result, &mode_changes, &asked);
    TableRun {
        result,
        raises,
        plan,
        asked,
        mode_changes,
        misses_per_level,
        overlaps,
        overruns_absorbed: absorbed,
        jobs_killed: stops,
        steps,
    }
}

/// The distributions of the raises' parts (returns to the lowest level are not measured: no
/// overrun detects them).
fn mode_change_parts(
    changes: &[ModeChangeRecord],
    rescheduled: &[(usize, u64, u64)],
    cores: usize,
) -> Vec<(String, Distribution)> {
    let mut by_epoch: HashMap<u64, Vec<(usize, u64)>> = HashMap::new();
    for &(core, epoch, at) in rescheduled {
        by_epoch.entry(epoch).or_default().push((core, at));
    }
    let mut named: HashMap<String, Distribution> = HashMap::new();
    let mut record =
        |name: &str, value: u64| named.entry(name.to_string()).or_default().record(value);
    for change in changes.iter().filter(|c| c.to > c.from) {
        let cores_done = by_epoch
            .get(&change.epoch)
            .map_or(&[][..], |v| v.as_slice());
        let all = (cores_done.iter().map(|&(_, at)| at)).fold(change.decided_at, u64::max);
        record(
            names::MODE_CHANGE_DETECTION,
            change.detected_at.saturating_sub(change.nominal),
        );
        record(
            names::MODE_CHANGE_SWITCH_DONE,
            change.decided_at.saturating_sub(change.detected_at),
        );
        record(
            names::MODE_CHANGE_ALL_RESCHEDULED,
            all.saturating_sub(change.detected_at),
        );
        record(MODE_CHANGE_TOTAL, all.saturating_sub(change.nominal));
        for &(core, at) in cores_done.iter().filter(|&&(core, _)| core < cores) {
            record(
                &reschedule_delay_name(core),
                at.saturating_sub(change.decided_at),
            );
        }
    }
    let mut named: Vec<_> = named.into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named
}

/// A table job does not start at its release but at its first interval: its latency is its
/// first start minus the start of the interval of its job that covers it (in the table of any
/// level; the first level found), in place of the start minus the release.
fn use_table_start_latency(result: &mut RunResult, plan: &TablePlan) {
    let h = plan.hyperperiod;
    let mut all = Distribution::new();
    let mut per_task = vec![Distribution::new(); result.tasks.len()];
    for job in &result.jobs {
        let (Some(start), Some(core)) = (job.start, job.cpu) else {
            continue;
        };
        let per = plan.jobs_per_hyperperiod(job.task);
        let key = plan.tasks[job.task].first_key + (job.job % per) as usize;
        let (base, rel) = (start / h * h, start % h);
        let intended = (plan.tables.iter())
            .filter_map(|level| level.slot_at(core, rel))
            .find(|slot| slot.key == key)
            .map(|slot| base + slot.start);
        if let Some(intended) = intended {
            all.record(start.saturating_sub(intended));
            per_task[job.task].record(start.saturating_sub(intended));
        }
    }
    result.release_latency_ns = all.summary();
    let json = HistogramJson {
        summary: all.summary(),
        buckets: all.buckets(),
    };
    result
        .histograms
        .insert(names::RELEASE_LATENCY.to_string(), json);
    for (summary, d) in result.tasks.iter_mut().zip(&per_task) {
        summary.release_latency_ns = d.summary();
    }
}

/// Pairs of segments of one job that overlap in time.
fn overlaps(result: &RunResult) -> u64 {
    let mut by_job: HashMap<(usize, u64), Vec<(u64, u64)>> = HashMap::new();
    for (_, task, job, start, end) in result.trace.segments() {
        (by_job.entry((task, job)).or_default()).push((start.as_nanos(), end.as_nanos()));
    }
    let mut count = 0;
    for segments in by_job.values_mut() {
        segments.sort_unstable();
        count += segments.windows(2).filter(|w| w[1].0 < w[0].1).count() as u64;
    }
    count
}
