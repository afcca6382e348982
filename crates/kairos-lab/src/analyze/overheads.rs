//! The same tests with the measured overheads charged (`kairos_analysis::overheads`, which names
//! its accounting), beside the ideal verdicts: what a set costs on the machine that measured it.

use super::{as_map, TestVerdict};
use kairos_analysis::overheads::{self, edzl, Charges, Inflation, Overload, Placement, Quantile};
use kairos_analysis::registry::Selection;
use kairos_analysis::SporadicTask;
use kairos_model::{Duration, Overheads, Workload};
use serde::Serialize;

/// Which overheads to charge.
#[derive(Clone, Copy, Debug, Default)]
pub struct OverheadRequest {
    /// A profile (`kairos bench overheads --out` writes one); `None`: the workload's own
    /// `[overheads]`, if it has any.
    pub profile: Option<Overheads>,
    pub quantile: Quantile,
}

/// The overhead-aware half of an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct OverheadAware {
    /// `profile` (given by the caller) or `workload` (the file's own `[overheads]`).
    pub source: &'static str,
    pub quantile: Quantile,
    /// Each overhead at that quantile, ns.
    pub charges: Charges,
    pub schedulable: bool,
    pub shown_by: Vec<&'static str>,
    /// Each test's verdict on the inflated set, keyed by test name.
    #[serde(serialize_with = "as_map")]
    pub tests: Vec<TestVerdict>,
    /// What each placement the tests assume charges each task.
    pub inflation: Vec<PlacementInflation>,
}

/// The set as the tests of one placement see it.
#[derive(Clone, Debug, Serialize)]
pub struct PlacementInflation {
    pub placement: Placement,
    /// The test this entry is for when its accounting differs from its placement's others
    /// (`gedzl`: two zero-laxity wake-ups more per period); absent: every test of the placement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<&'static str>,
    /// `None` when the set cannot be scheduled at all with these overheads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overload: Option<String>,
    /// The share of a core left to jobs after release interrupts (and the kernel's throttling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    pub tasks: Vec<TaskInflation>,
}

/// One task before and after the charges, ns.
#[derive(Clone, Debug, Serialize)]
pub struct TaskInflation {
    pub task: String,
    #[serde(serialize_with = "ns")]
    pub wcet: Duration,
    #[serde(serialize_with = "ns")]
    pub inflated_wcet: Duration,
    #[serde(serialize_with = "ns")]
    pub deadline: Duration,
    #[serde(serialize_with = "ns")]
    pub period: Duration,
}

fn ns<S: serde::Serializer>(d: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(d.as_nanos())
}

/// The overheads the request asks for, if any are not zero (or the machine throttles).
pub(super) fn chosen(
    workload: &Workload,
    request: &OverheadRequest,
) -> Option<(&'static str, Overheads)> {
    match request.profile {
        Some(profile) => Some(("profile", profile)),
        None => {
            let o = workload.overheads;
            (!o.is_zero() || o.rt_throttle.is_some() || !o.execution_loss.is_zero())
                .then_some(("workload", o))
        }
    }
}

/// Every selected test on the inflated set, and the inflation of each placement they assume.
pub(super) fn analyze(
    workload: &Workload,
    selection: &Selection,
    (source, profile): (&'static str, Overheads),
    quantile: Quantile,
) -> OverheadAware {
    let charges = Charges::at(&profile, quantile);
    let tasks = kairos_analysis::tasks_of(workload);
    let order = super::priority_order(workload);
    let run = &selection.run;
    let tests: Vec<TestVerdict> = (run.iter())
        .map(|t| {
            let verdict = overheads::verdict(t, &tasks, workload.cores, order.as_deref(), &charges);
            super::named(t.name.as_str(), verdict, workload)
        })
        .collect();
    let used: Vec<Placement> = (run.iter()).map(|t| t.placement(workload.cores)).collect();
    let placements = [
        Placement::Global,
        Placement::Partitioned,
        Placement::Uniprocessor,
    ]
    .into_iter()
    .filter(|p| used.contains(p));
    let shown_by = super::shown_by(&tests);
    let mut inflation: Vec<PlacementInflation> = placements
        .map(|p| {
            let inflated = overheads::inflate(&tasks, p, &charges);
            placement_inflation(workload, &tasks, (p, None), inflated)
        })
        .collect();
    if let Some(t) = run.iter().find(|t| t.name == edzl::TEST) {
        let placement = t.placement(workload.cores);
        let inflated = edzl::inflate(&tasks, placement, &charges);
        let entry = (placement, Some(edzl::TEST));
        inflation.push(placement_inflation(workload, &tasks, entry, inflated));
    }
    OverheadAware {
        source,
        quantile,
        charges,
        schedulable: !shown_by.is_empty(),
        shown_by,
        tests,
        inflation,
    }
}

fn placement_inflation(
    workload: &Workload,
    tasks: &[SporadicTask],
    (placement, test): (Placement, Option<&'static str>),
    inflated: Result<Inflation, Overload>,
) -> PlacementInflation {
    let rows = |after: &[SporadicTask]| {
        (workload.tasks.iter().zip(tasks).zip(after))
            .map(|((task, before), after)| TaskInflation {
                task: task.name.clone(),
                wcet: before.wcet,
                inflated_wcet: after.wcet,
                deadline: after.deadline,
                period: after.period,
            })
            .collect()
    };
    match inflated {
        Ok(Inflation { scale, tasks, .. }) => PlacementInflation {
            placement,
            test,
            overload: None,
            scale: Some(scale),
            tasks: rows(&tasks),
        },
        Err(overload) => PlacementInflation {
            placement,
            test,
            overload: Some(overload_text(workload, overload)),
            scale: None,
            tasks: Vec::new(),
        },
    }
}

fn overload_text(workload: &Workload, overload: Overload) -> String {
    match overload {
        Overload::Interrupts => "release interrupts alone fill a core".to_string(),
        Overload::Task(i) => format!(
            "task {} cannot fit: its release latency reaches its deadline or its inflated \
             density exceeds 1",
            workload.tasks[i].name
        ),
    }
}
