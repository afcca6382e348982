//! The mixed-criticality part of `kairos demo`: an embedded MC-DAG system is checked,
//! its tables synthesized (GMH-MC-DAG with G-EDZL), validated by the independent validator,
//! then simulated with one injected budget overrun so the chart shows the mode change.

use crate::args::{write_output, Failure};
use kairos_mc::{synthesize, SynthOptions, Synthesis};
use kairos_model::mc_load::check_mc_source;
use kairos_model::{Duration, Format, McSystem};
use kairos_sim::table::{simulate_tables, TableExecModel, TableSimConfig};
use kairos_trace::gantt::{render_svg, GanttOptions};
use std::path::Path;

/// The demo's MC-DAG system, also shipped as `examples/mcdag/two-levels.toml`.
pub const DEMO_MC_SYSTEM: &str = include_str!("../../examples/mcdag/two-levels.toml");

/// The injected fault: the first job of `flight/sense` runs to its HI budget.
pub const DEMO_OVERRUN: &str = "flight/sense@0";

/// What the later steps (the real run) reuse.
pub struct McDemo {
    pub system: McSystem,
    pub synthesis: Synthesis,
}

/// Steps 4 to 6 of the demo; adds the files written to `files`.
pub fn run(out_dir: &Path, files: &mut Vec<String>) -> Result<McDemo, Failure> {
    println!("\n== 4. check a mixed-criticality system (examples/mcdag/two-levels.toml)");
    let checked = check_mc_source(DEMO_MC_SYSTEM, Format::Toml);
    let system = checked
        .system
        .ok_or_else(|| Failure::bad_input("the embedded MC-DAG system is invalid"))?;
    let tasks: usize = system.dags.iter().map(|d| d.tasks.len()).sum();
    println!(
        "  {} DAGs, {tasks} tasks, levels {}, {} cores; utilization {}",
        system.dags.len(),
        system.levels.join(" < "),
        system.cores,
        (0..system.level_count())
            .map(|l| format!("{} {:.2}", system.levels[l], system.utilization_at(l)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    write_output(&out_dir.join("mc-system.toml"), DEMO_MC_SYSTEM)?;

    println!("\n== 5. synthesize one table per level (GMH-MC-DAG, G-EDZL) and validate them");
    let synthesis = synthesize(&system, &SynthOptions::default()).map_err(|e| {
        Failure::bad_input(format!("the embedded MC-DAG system has no tables: {e}"))
    })?;
    for level in &synthesis.quality.levels {
        println!(
            "  table {:<3} {} jobs, {} intervals, {} preemptions, {} migrations",
            level.level,
            level.counts.jobs,
            level.counts.intervals,
            level.counts.preemptions,
            level.counts.migrations
        );
    }
    let report = kairos_validate::validate(&system, &synthesis.tables);
    if !report.is_valid() {
        return Err(Failure::bad_input(format!(
            "the independent validator rejects the demo tables: {:?}",
            report.counts()
        )));
    }
    println!(
        "  independent validator: valid ({} jobs, {} intervals, safe transitions at every instant)",
        report.jobs, report.intervals
    );
    let tables_path = out_dir.join("mc-tables.json");
    write_output(&tables_path, synthesis.tables.to_json())?;
    let tables_gantt = out_dir.join("mc-tables.svg");
    write_output(
        &tables_gantt,
        crate::commands::synth::gantt(
            &system,
            &synthesis.tables,
            Path::new("two-levels.toml"),
            &GanttOptions::default(),
        ),
    )?;
    files.push(format!("{} (one panel per level)", tables_gantt.display()));
    files.push(tables_path.display().to_string());

    // Two hyper-periods, so the return to LO shows too.
    let duration = Duration::from_nanos(synthesis.tables.hyperperiod * 2);
    println!(
        "\n== 6. simulate the tables for {duration} with one injected overrun ({DEMO_OVERRUN})"
    );
    let config = TableSimConfig {
        duration: Some(duration),
        execution_times: TableExecModel::Wcet,
        overruns: vec![DEMO_OVERRUN.parse().expect("the demo overrun parses")],
        record_trace: true,
        ..TableSimConfig::default()
    };
    let simulated = simulate_tables(&system, &synthesis.tables, &config)
        .map_err(|e| Failure::bad_input(format!("the demo tables cannot run: {e}")))?;
    print!(
        "{}",
        crate::commands::simulate::table_summary(&system, &simulated.metrics, "synthesized")
    );
    if let Some(trace) = &simulated.trace {
        let path = out_dir.join("mc-simulated.svg");
        let options = GanttOptions {
            title: Some(format!("{DEMO_OVERRUN} overruns: mode change LO -> HI")),
            ..GanttOptions::default()
        };
        write_output(&path, render_svg(trace, &options))?;
        files.push(format!(
            "{} (the mode change is the labelled line)",
            path.display()
        ));
    }
    Ok(McDemo { system, synthesis })
}

/// Length of the demo's real run.
const REAL_RUN: Duration = Duration::from_secs(2);

/// Step 7: the same tables on this machine's cores for two seconds, with the same overrun,
/// next to a simulation of the same two seconds. Without real-time privilege the step says
/// why and is skipped: the demo must work everywhere.
pub fn run_for_real(demo: &McDemo) -> Result<(), Failure> {
    println!(
        "\n== 7. run the same tables for real: {REAL_RUN} on this machine's cores, same overrun"
    );
    let tables = &demo.synthesis.tables;
    let overrun: kairos_rt::table::OverrunSpec = DEMO_OVERRUN
        .parse()
        .map_err(|e| Failure::bad_input(format!("demo overrun: {e}")))?;
    let mut config = kairos_rt::table::TableRunConfig::new(REAL_RUN.as_nanos());
    config.overruns = vec![overrun];
    let measured = match kairos_rt::table::run_tables(&demo.system, tables, &config) {
        Ok(result) => result,
        Err(e) => {
            println!("  skipped: {e}");
            return Ok(());
        }
    };
    let sim_config = TableSimConfig {
        duration: Some(REAL_RUN),
        overruns: vec![DEMO_OVERRUN.parse().expect("the demo overrun parses")],
        ..TableSimConfig::default()
    };
    let simulated = simulate_tables(&demo.system, tables, &sim_config)
        .map_err(|e| Failure::bad_input(format!("the demo tables cannot run: {e}")))?
        .metrics;
    let raises = simulated
        .mode_changes
        .iter()
        .filter(|c| !c.triggers.is_empty())
        .count();
    let rows: [(&str, String, String); 6] = [
        (
            "jobs released",
            simulated.jobs_released.to_string(),
            measured.jobs_released.to_string(),
        ),
        (
            "jobs completed",
            simulated.jobs_completed.to_string(),
            measured.jobs_completed.to_string(),
        ),
        (
            "jobs discarded",
            simulated.jobs_discarded.to_string(),
            measured.jobs_discarded.to_string(),
        ),
        (
            "mode raises",
            raises.to_string(),
            measured.mode_changes.to_string(),
        ),
        (
            "deadline misses",
            simulated.deadline_misses.to_string(),
            measured.deadline_misses.to_string(),
        ),
        (
            "migrations",
            simulated.migrations.to_string(),
            measured.migrations.to_string(),
        ),
    ];
    println!("  {:<18} {:>14} {:>14}", "", "simulated", "measured");
    for (what, sim, real) in rows {
        println!("  {what:<18} {sim:>14} {real:>14}");
    }
    let latency = &measured.release_latency_ns;
    println!(
        "  release latency (measured): min {} us, median {} us, p99 {} us, max {} us",
        latency.min / 1000,
        latency.p50 / 1000,
        latency.p99 / 1000,
        latency.max / 1000
    );
    for note in &measured.notes {
        println!("  note: {note}");
    }
    if measured.mode_changes > raises as u64 {
        println!(
            "  the extra raises are real overruns: the tables leave no slack, so a job whose start \
             the host delayed (here by up to {} us) or whose vCPU it stalled runs out of budget, \
             and G-MCRES moves to HI as designed (the LO jobs of that hyper-period are discarded)",
            latency.max / 1000
        );
    }
    Ok(())
}
