//! Schedulability analysis of one workload: every selected test of `kairos_analysis::registry`
//! (each module there names its paper), the overall answer, and the tests left out and why.
//! A VM system's compositional analysis is `kairos_analysis::csa::analyze`; JSONL batches of
//! task sets are [`batch`].

pub mod batch;
pub mod overheads;

pub use overheads::{OverheadAware, OverheadRequest};

use kairos_analysis::registry::{self, Selection, TestList};
use kairos_analysis::{tasks_of, Verdict};
use kairos_model::Workload;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// One workload's analysis, as `kairos analyze --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The file as the caller names it.
    pub file: String,
    pub workload: Option<String>,
    pub cores: usize,
    pub tasks: Vec<String>,
    /// Shown schedulable by at least one test (each under its own policy); sufficient tests
    /// saying "no" only fail to show it.
    pub schedulable: bool,
    pub shown_by: Vec<&'static str>,
    /// Each test's verdict, in the order they ran, keyed by test name.
    #[serde(serialize_with = "as_map")]
    pub tests: Vec<TestVerdict>,
    pub skipped: Vec<Skipped>,
    /// The same tests with overheads charged: the caller's profile, or the workload's own
    /// `[overheads]`; absent when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overheads: Option<OverheadAware>,
}

impl Analysis {
    /// The verdict that counts: the overhead-aware one when overheads were charged.
    pub fn verdict(&self) -> bool {
        self.overheads
            .as_ref()
            .map_or(self.schedulable, |o| o.schedulable)
    }
}

/// A test's verdict, with the failing task named as well as numbered.
#[derive(Clone, Debug, Serialize)]
pub struct TestVerdict {
    #[serde(skip)]
    pub test: &'static str,
    #[serde(flatten)]
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing_task_name: Option<String>,
}

/// A selected test that does not apply to the workload.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub test: &'static str,
    pub reason: &'static str,
}

fn as_map<S: Serializer>(tests: &[TestVerdict], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(tests.len()))?;
    for t in tests {
        map.serialize_entry(t.test, t)?;
    }
    map.end()
}

/// `workload` under the tests of `list` that apply to it (the RMWP tests for imprecise tasks),
/// with the workload's own `[overheads]` charged beside the ideal verdicts when it has any.
pub fn analyze(file: &str, workload: &Workload, list: &TestList) -> Analysis {
    analyze_with(file, workload, list, &OverheadRequest::default())
}

/// [`analyze`], charging the overheads `request` names.
pub fn analyze_with(
    file: &str,
    workload: &Workload,
    list: &TestList,
    request: &OverheadRequest,
) -> Analysis {
    let selection = list.for_workload(workload.cores, workload.has_imprecise_tasks());
    let tests = verdicts(workload, &selection);
    let shown_by = shown_by(&tests);
    let overheads = (overheads::chosen(workload, request))
        .map(|profile| overheads::analyze(workload, &selection, profile, request.quantile));
    Analysis {
        file: file.to_string(),
        workload: workload.name.clone(),
        cores: workload.cores,
        tasks: workload.tasks.iter().map(|t| t.name.clone()).collect(),
        schedulable: !shown_by.is_empty(),
        shown_by,
        tests,
        skipped: (selection.skipped.iter())
            .map(|(t, reason)| Skipped {
                test: t.name.as_str(),
                reason,
            })
            .collect(),
        overheads,
    }
}

/// `workload` under the default tests.
pub fn analyze_default(file: &str, workload: &Workload) -> Analysis {
    let list = TestList::parse("default").expect("the default list parses");
    analyze(file, workload, &list)
}

/// Every selected test's verdict.
fn verdicts(workload: &Workload, selection: &Selection) -> Vec<TestVerdict> {
    let tasks = tasks_of(workload);
    let order = priority_order(workload);
    (selection.run.iter())
        .map(|t: &&'static registry::Test| {
            let verdict = t.run_with_priorities(&tasks, workload.cores, order.as_deref());
            named(t.name.as_str(), verdict, workload)
        })
        .collect()
}

/// Fixed-priority tests follow the file's priorities when every task has one (as a
/// simulation's `auto` priority order does), rate-monotonic order otherwise.
fn priority_order(workload: &Workload) -> Option<Vec<usize>> {
    (workload.tasks.iter().all(|t| t.priority.is_some())).then(|| {
        let priorities: Vec<_> = workload.tasks.iter().map(|t| t.priority).collect();
        kairos_analysis::uniprocessor::explicit_order(&priorities)
    })
}

fn named(test: &'static str, verdict: Verdict, workload: &Workload) -> TestVerdict {
    TestVerdict {
        test,
        failing_task_name: verdict.failing_task.map(|i| workload.tasks[i].name.clone()),
        verdict,
    }
}

fn shown_by(tests: &[TestVerdict]) -> Vec<&'static str> {
    (tests.iter())
        .filter(|t| t.verdict.schedulable)
        .map(|t| t.test)
        .collect()
}
