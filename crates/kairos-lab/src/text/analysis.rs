//! A workload's analysis in text: one row per test with its evidence, the tests left out, the
//! overall verdict.

use crate::analyze::{Analysis, Skipped, TestVerdict};
use kairos_analysis::Verdict;
use kairos_model::Workload;

/// The analysis as `kairos analyze` prints it; with overheads, the overhead-aware verdict of
/// each test beside the ideal one, then what they charge each task.
pub fn analysis(workload: &Workload, analysis: &Analysis) -> String {
    let mut out = verdict_table(workload, analysis);
    out.push_str(&skipped_lines(&analysis.skipped));
    if let Some(o) = &analysis.overheads {
        out.push_str(&super::analysis_overheads::charges(o));
    }
    out.push_str(&overall_line(
        "verdict",
        analysis.schedulable,
        &analysis.shown_by,
    ));
    if let Some(o) = &analysis.overheads {
        let label = format!("verdict with overheads ({})", o.quantile.name());
        out.push_str(&overall_line(&label, o.schedulable, &o.shown_by));
    }
    out
}

fn overall_line(label: &str, schedulable: bool, shown_by: &[&str]) -> String {
    match schedulable {
        true => format!("{label}: schedulable (shown by {})\n", shown_by.join(", ")),
        false => format!("{label}: not shown schedulable by any test run\n"),
    }
}

fn skipped_lines(skipped: &[Skipped]) -> String {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for Skipped { test, reason } in skipped {
        match reasons.iter_mut().find(|(r, _)| r == reason) {
            Some((_, names)) => names.push(test),
            None => reasons.push((reason, vec![test])),
        }
    }
    reasons
        .iter()
        .map(|(reason, names)| format!("skipped {}: {reason}\n", names.join(", ")))
        .collect()
}

/// One row per test: the verdict (and the overhead-aware one, if any) and its evidence
/// (response times, the failing task, or the mapping of tasks to cores).
fn verdict_table(workload: &Workload, analysis: &Analysis) -> String {
    // The details list every task: each name elided as in the tables keeps a row readable.
    let elided: Vec<String> = (workload.tasks.iter())
        .map(|t| super::elide(&t.name, super::MAX_COLUMN))
        .collect();
    let names: Vec<&str> = elided.iter().map(String::as_str).collect();
    let imprecise: Vec<bool> = workload
        .tasks
        .iter()
        .map(|t| t.imprecise.is_some())
        .collect();
    let with = analysis.overheads.as_ref().map(|o| &o.tests);
    let mut out = format!(
        "{} on {} core(s), utilization {:.3}\n{:<24} {:<12} {}details\n",
        workload.name.as_deref().unwrap_or("workload"),
        workload.cores,
        workload.total_utilization(),
        "test",
        "verdict",
        if with.is_some() {
            "with overheads  "
        } else {
            ""
        },
    );
    for TestVerdict {
        test, verdict: v, ..
    } in &analysis.tests
    {
        let charged = with.map(|tests| tests.iter().find(|o| o.test == *test));
        let overheads = match charged {
            Some(Some(o)) => format!("{:<16}", word(&o.verdict)),
            Some(None) => format!("{:<16}", "-"),
            None => String::new(),
        };
        out.push_str(&format!(
            "{test:<24} {:<12} {overheads}{}{}{}\n",
            word(v),
            details(v, &names),
            optional_deadlines(v, &names, &imprecise),
            unsafe_optional_deadlines(v, &names)
        ));
    }
    out
}

fn word(v: &Verdict) -> &'static str {
    if v.schedulable {
        "schedulable"
    } else {
        "no"
    }
}

/// At most this many items of a per-task list are printed on a test's row; `--json` has all.
const LISTED: usize = 24;

/// The first [`LISTED`] items, then how many more there are: a row stays readable with
/// thousands of tasks.
fn listed(items: impl ExactSizeIterator<Item = String>) -> String {
    let more = items.len().saturating_sub(LISTED);
    let mut out = items.take(LISTED).collect::<Vec<_>>().join(" ");
    if more > 0 {
        out.push_str(&format!(" ... and {more} more (--json lists all)"));
    }
    out
}

fn details(v: &Verdict, names: &[&str]) -> String {
    if let Some(mapping) = &v.mapping {
        return listed(
            mapping
                .iter()
                .zip(names)
                .map(|(core, n)| format!("{n}->{core}")),
        );
    }
    if let Some(r) = &v.response_times {
        return listed(
            r.iter()
                .zip(names)
                .map(|(r, n)| format!("{n}:{}", super::human_ns(r.as_nanos()))),
        );
    }
    match v.failing_task {
        Some(i) => format!("fails at task {}", names.get(i).copied().unwrap_or("?")),
        None => String::new(),
    }
}

/// The RMWP tests' optional deadlines of the imprecise tasks: `; OD slam:7.000ms ...`.
fn optional_deadlines(v: &Verdict, names: &[&str], imprecise: &[bool]) -> String {
    let Some(od) = &v.optional_deadlines else {
        return String::new();
    };
    let items: Vec<String> = (od.iter().zip(names).zip(imprecise))
        .filter(|(_, &is)| is)
        .map(|((od, n), _)| format!("{n}:{}", super::human_ns(od.as_nanos())))
        .collect();
    match items.is_empty() {
        true => String::new(),
        false => format!("; OD {}", listed(items.into_iter())),
    }
}

/// The given optional deadlines the RMWP tests found later than their safe bound:
/// `; b: optional deadline 8.000ms is later than its safe bound 7.000ms`.
fn unsafe_optional_deadlines(v: &Verdict, names: &[&str]) -> String {
    (v.unsafe_optional_deadlines.iter())
        .map(|u| {
            format!(
                "; {}: optional deadline {} is later than its safe bound {}",
                names.get(u.task).copied().unwrap_or("?"),
                super::human_ns(u.given.as_nanos()),
                super::human_ns(u.safe_bound.as_nanos())
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> impl ExactSizeIterator<Item = String> {
        (1..n + 1).map(|i| format!("T{i}"))
    }

    #[test]
    fn long_lists_are_cut_with_a_count() {
        assert_eq!(listed(items(3)), "T1 T2 T3");
        let all: Vec<String> = items(LISTED).collect();
        assert_eq!(listed(items(LISTED)), all.join(" "));
        let cut = listed(items(LISTED + 976));
        assert!(cut.starts_with(&all.join(" ")), "{cut}");
        assert!(
            cut.ends_with(" ... and 976 more (--json lists all)"),
            "{cut}"
        );
        assert!(!cut.contains(&format!("T{}", LISTED + 1)), "{cut}");
    }
}
