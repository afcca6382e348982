//! An independent validation of scheduling tables (`kairos_validate`) in text and JSON.

use kairos_validate::Report;
use std::fmt::Write;

/// The violations, then the verdict line, as `kairos validate-tables` prints them.
pub fn text(workload: &str, tables: &str, report: &Report) -> String {
    let mut out = String::new();
    for violation in &report.violations {
        let _ = writeln!(out, "{violation}");
    }
    let verdict = if report.is_valid() {
        "valid".to_string()
    } else {
        let kinds: Vec<String> = (report.counts().iter())
            .map(|(kind, n)| format!("{} {n}", kind_name(*kind)))
            .collect();
        let count = report.violations.len();
        format!("{count} violation(s) ({})", kinds.join(", "))
    };
    let _ = writeln!(
        out,
        "{tables} against {workload}: {} level(s), {} job(s), {} interval(s): {verdict}",
        report.levels, report.jobs, report.intervals
    );
    out
}

/// The kind as the JSON report spells it (`unsafe_transition`).
fn kind_name(kind: kairos_validate::ViolationKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The report as one line of JSON: the files, the verdict, and the report's fields.
pub fn json(workload: &str, tables: &str, report: &Report) -> String {
    let mut value = serde_json::json!({
        "workload": workload,
        "tables": tables,
        "valid": report.is_valid(),
    });
    if let (Some(object), Ok(serde_json::Value::Object(fields))) =
        (value.as_object_mut(), serde_json::to_value(report))
    {
        object.extend(fields);
    }
    value.to_string()
}
