//! `kairos demo`: every stage kairos has so far, on an embedded workload, in seconds.

use crate::args::{write_output, CommandResult, Failure};
use crate::commands::simulate::{resolve_duration, run_policy, write_pictures};
use crate::report;
use kairos_model::{check_source, Format};
use kairos_policy::PolicyKind;
use kairos_policy::PriorityOrder;
use kairos_sim::SimConfig;
use std::path::{Path, PathBuf};

/// The demo workload, also shipped as `examples/demo.toml`.
pub const DEMO_WORKLOAD: &str = include_str!("../../examples/demo.toml");

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Folder for the Gantt charts and traces.
    #[arg(long, default_value = "kairos-demo")]
    pub out_dir: PathBuf,
}

pub fn run(args: &DemoArgs) -> CommandResult {
    println!("== 1. check: the embedded workload (examples/demo.toml)");
    let slot = kairos_model::input::LoadOptions::default().slot;
    let checked = crate::commands::check::evaluate(Path::new("demo.toml"), DEMO_WORKLOAD, slot);
    print!("{}", checked.text);
    let workload = check_source(DEMO_WORKLOAD, Format::Toml)
        .workload
        .ok_or_else(|| Failure::bad_input("the embedded demo workload is invalid"))?;

    println!("\n== 2. analyze: the default schedulability tests");
    let tasks = kairos_analysis::tasks_of(&workload);
    let selection = kairos_analysis::registry::select("default", workload.cores)
        .expect("the default list exists");
    for test in selection.run {
        let verdict = test.run(&tasks, workload.cores);
        let answer = if verdict.schedulable {
            "schedulable"
        } else {
            "not shown schedulable"
        };
        println!("  {:<22} {answer}", test.name);
    }

    let duration = resolve_duration(&workload, None)?;
    println!(
        "\n== 3. simulate: {} on {} cores under every policy",
        report::human_ns(duration.as_nanos()),
        workload.cores
    );
    let config = SimConfig {
        duration,
        record_trace: true,
        ..SimConfig::default()
    };
    write_output(&args.out_dir.join("workload.toml"), DEMO_WORKLOAD)?;
    let mut all = Vec::new();
    let mut files = Vec::new();
    for kind in PolicyKind::ALL {
        let outcome = run_policy(&workload, kind, PriorityOrder::Auto, &config)?;
        let name = kind.cli_name();
        files.extend(write_pictures(
            &outcome,
            Some(&args.out_dir.join(format!("gantt-{name}.svg"))),
            kairos_trace::gantt::GanttOptions::default(),
            Some(&args.out_dir.join(format!("trace-{name}.json"))),
            &workload,
        )?);
        all.push(outcome.metrics);
    }
    println!();
    print!(
        "{}",
        report::comparison_table(&all.iter().collect::<Vec<_>>())
    );
    for m in &all {
        let missed: Vec<String> = m
            .tasks
            .iter()
            .filter(|t| t.deadline_misses > 0)
            .map(|t| format!("{} ({})", t.name, t.deadline_misses))
            .collect();
        if !missed.is_empty() {
            println!("{} misses deadlines of: {}", m.policy, missed.join(", "));
        }
    }
    let mc = crate::commands::demo_mc::run(&args.out_dir, &mut files)?;
    crate::commands::demo_mc::run_for_real(&mc)?;
    crate::commands::demo_imprecise::run(&args.out_dir, &mut files)?;
    println!(
        "\n== 9. report: Gantt charts (open in a browser) and Perfetto traces (ui.perfetto.dev)"
    );
    for file in files {
        println!("  {file}");
    }
    println!(
        "Next: kairos simulate {}/workload.toml --policy gfp --gantt gfp.svg",
        args.out_dir.display()
    );
    Ok(0)
}
