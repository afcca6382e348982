//! `kairos validate-tables WORKLOAD TABLES.json`: checks scheduling tables against their MC-DAG
//! system with the independent validator (`kairos-validate`, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2; docs/validate-tables.md). Exit 0 when valid, 1 when violations are found, 2 on
//! bad input.

use crate::args::{duration_arg, CommandResult, Failure};
use crate::input::read_text;
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, TableSet};
use kairos_validate::{validate, Report};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// MC-DAG system: kairos TOML/JSON, or the MC-DAG framework's XML (.xml).
    pub workload: PathBuf,
    /// Table file (JSON, as written by `kairos synth --out`).
    pub tables: PathBuf,
    /// Length of one time unit of an XML workload (the format has no unit).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
    /// Number of cores, replacing the workload's (as `kairos synth --cores`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> CommandResult {
    let options = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    let mut system = crate::input::mc_system(&args.workload, "validate-tables", &options)?;
    if let Some(cores) = args.cores {
        system.cores = cores as usize;
    }
    let text = read_text(&args.tables)?;
    let tables = TableSet::from_json(&text)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", args.tables.display())))?;
    let report = validate(&system, &tables);
    if args.json {
        println!("{}", report_json(args, &report));
    } else {
        print_report(args, &report);
    }
    Ok(if report.is_valid() {
        0
    } else {
        crate::exit::NO
    })
}

fn print_report(args: &Args, report: &Report) {
    for violation in &report.violations {
        println!("{violation}");
    }
    let verdict = if report.is_valid() {
        "valid".to_string()
    } else {
        let kinds: Vec<String> = report
            .counts()
            .iter()
            .map(|(kind, n)| format!("{} {n}", kind_name(*kind)))
            .collect();
        format!(
            "{} violation(s) ({})",
            report.violations.len(),
            kinds.join(", ")
        )
    };
    println!(
        "{} against {}: {} level(s), {} job(s), {} interval(s): {verdict}",
        args.tables.display(),
        args.workload.display(),
        report.levels,
        report.jobs,
        report.intervals
    );
}

/// The kind as the JSON report spells it (`unsafe_transition`).
fn kind_name(kind: kairos_validate::ViolationKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn report_json(args: &Args, report: &Report) -> String {
    let mut value = serde_json::json!({
        "workload": args.workload.display().to_string(),
        "tables": args.tables.display().to_string(),
        "valid": report.is_valid(),
    });
    if let (Some(object), Ok(serde_json::Value::Object(fields))) =
        (value.as_object_mut(), serde_json::to_value(report))
    {
        object.extend(fields);
    }
    value.to_string()
}
