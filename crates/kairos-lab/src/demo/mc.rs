//! The mixed-criticality part of the tour: an embedded MC-DAG system is checked,
//! its tables synthesized (GMH-MC-DAG with G-EDZL), validated by the independent validator,
//! then simulated with one injected budget overrun so the chart shows the mode change.

use super::{Demo, Figures, RealRun};
use crate::Failure;
use kairos_mc::{synthesize, SynthOptions, Synthesis};
use kairos_model::mc_load::check_mc_source;
use kairos_model::{Duration, Format, McSystem};
use kairos_sim::table::{simulate_tables, TableExecModel, TableSimConfig};
use kairos_trace::gantt::{render_svg, GanttOptions};

/// The demo's MC-DAG system, also shipped as `examples/mcdag/two-levels.toml`.
pub const DEMO_MC_SYSTEM: &str = include_str!("../../../../examples/mcdag/two-levels.toml");

/// The injected fault: the first job of `flight/sense` runs to its HI budget.
pub const DEMO_OVERRUN: &str = "flight/sense@0";

/// What the later steps (the real run) reuse.
pub struct McDemo {
    pub system: McSystem,
    pub synthesis: Synthesis,
}

/// The stages check, synthesize and simulate of the MC-DAG system.
pub fn run(demo: &mut Demo) -> Result<McDemo, Failure> {
    demo.stage(
        "check",
        "a mixed-criticality system (examples/mcdag/two-levels.toml)",
    );
    let checked = check_mc_source(DEMO_MC_SYSTEM, Format::Toml);
    let system = checked
        .system
        .ok_or_else(|| Failure::bad_input("the embedded MC-DAG system is invalid"))?;
    let tasks: usize = system.dags.iter().map(|d| d.tasks.len()).sum();
    demo.say(format!(
        "  {} DAGs, {tasks} tasks, levels {}, {} cores; utilization {}",
        system.dags.len(),
        system.levels.join(" < "),
        system.cores,
        (0..system.level_count())
            .map(|l| format!("{} {:.2}", system.levels[l], system.utilization_at(l)))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let figures = Figures::McSystem {
        dags: system.dags.len(),
        tasks,
        levels: system.levels.clone(),
    };
    demo.record("check", figures);
    demo.write("mc-system.toml", DEMO_MC_SYSTEM)?;
    let synthesis = synthesize_and_validate(demo, &system)?;
    simulate(demo, &system, &synthesis)?;
    Ok(McDemo { system, synthesis })
}

fn synthesize_and_validate(demo: &mut Demo, system: &McSystem) -> Result<Synthesis, Failure> {
    demo.stage(
        "synthesize",
        "one table per level (GMH-MC-DAG, G-EDZL), validated independently",
    );
    let synthesis = synthesize(system, &SynthOptions::default()).map_err(|e| {
        Failure::bad_input(format!("the embedded MC-DAG system has no tables: {e}"))
    })?;
    for level in &synthesis.quality.levels {
        demo.say(format!(
            "  table {:<3} {} jobs, {} intervals, {} preemptions, {} migrations",
            level.level,
            level.counts.jobs,
            level.counts.intervals,
            level.counts.preemptions,
            level.counts.migrations
        ));
    }
    let report = kairos_validate::validate(system, &synthesis.tables);
    if !report.is_valid() {
        return Err(Failure::bad_input(format!(
            "the independent validator rejects the demo tables: {:?}",
            report.counts()
        )));
    }
    demo.say(format!(
        "  independent validator: valid ({} jobs, {} intervals, safe transitions at every instant)",
        report.jobs, report.intervals
    ));
    let tables = synthesis.quality.levels.clone();
    demo.record(
        "synthesize",
        Figures::Tables {
            tables,
            valid: true,
        },
    );
    let tables_path = demo.write("mc-tables.json", synthesis.tables.to_json())?;
    let tables_gantt = demo.write(
        "mc-tables.svg",
        crate::synth::gantt(
            system,
            &synthesis.tables,
            "two-levels.toml",
            &GanttOptions::default(),
        ),
    )?;
    demo.file(&tables_gantt, "one panel per level");
    demo.file(&tables_path, "");
    Ok(synthesis)
}

fn simulate(demo: &mut Demo, system: &McSystem, synthesis: &Synthesis) -> Result<(), Failure> {
    // Two hyper-periods, so the return to LO shows too.
    let duration = Duration::from_nanos(synthesis.tables.hyperperiod * 2);
    demo.stage(
        "simulate",
        &format!("the tables for {duration} with one injected overrun ({DEMO_OVERRUN})"),
    );
    let config = TableSimConfig {
        duration: Some(duration),
        execution_times: TableExecModel::Wcet,
        overruns: vec![DEMO_OVERRUN.parse().expect("the demo overrun parses")],
        record_trace: true,
        ..TableSimConfig::default()
    };
    let simulated = simulate_tables(system, &synthesis.tables, &config)
        .map_err(|e| Failure::bad_input(format!("the demo tables cannot run: {e}")))?;
    demo.say_block(&crate::text::table_summary(
        system,
        &simulated.metrics,
        "synthesized",
    ));
    if let Some(trace) = &simulated.trace {
        let options = GanttOptions {
            title: Some(format!("{DEMO_OVERRUN} overruns: mode change LO -> HI")),
            ..GanttOptions::default()
        };
        let path = demo.write("mc-simulated.svg", render_svg(trace, &options))?;
        demo.file(&path, "the mode change is the labelled line");
    }
    let metrics = simulated.metrics;
    demo.record("simulate", Figures::TableRun { metrics });
    Ok(())
}

/// Length of the demo's real run.
const REAL_RUN: Duration = Duration::from_secs(2);

/// Step 7: the same tables on this machine's cores for two seconds, with the same overrun,
/// next to a simulation of the same two seconds. Without real-time privilege the step says
/// why and is skipped: the demo must work everywhere.
pub fn run_for_real(demo: &mut Demo, mc: &McDemo) -> Result<(), Failure> {
    demo.stage(
        "run",
        &format!("the same tables for real: {REAL_RUN} on this machine's cores, same overrun"),
    );
    let tables = &mc.synthesis.tables;
    let overrun: kairos_rt::table::OverrunSpec = DEMO_OVERRUN
        .parse()
        .map_err(|e| Failure::bad_input(format!("demo overrun: {e}")))?;
    let mut config = kairos_rt::table::TableRunConfig::new(REAL_RUN.as_nanos());
    config.overruns = vec![overrun];
    let measured = match kairos_rt::table::run_tables(&mc.system, tables, &config) {
        Ok(result) => result,
        Err(e) => {
            demo.say(format!("  skipped: {e}"));
            let skipped = e.to_string();
            demo.record("run", Figures::Skipped { skipped });
            return Ok(());
        }
    };
    let sim_config = TableSimConfig {
        duration: Some(REAL_RUN),
        overruns: vec![DEMO_OVERRUN.parse().expect("the demo overrun parses")],
        ..TableSimConfig::default()
    };
    let simulated = simulate_tables(&mc.system, tables, &sim_config)
        .map_err(|e| Failure::bad_input(format!("the demo tables cannot run: {e}")))?
        .metrics;
    let raises = simulated
        .mode_changes
        .iter()
        .filter(|c| !c.triggers.is_empty())
        .count() as u64;
    let rows: [(&str, u64, u64); 6] = [
        (
            "jobs released",
            simulated.jobs_released,
            measured.jobs_released,
        ),
        (
            "jobs completed",
            simulated.jobs_completed,
            measured.jobs_completed,
        ),
        (
            "jobs discarded",
            simulated.jobs_discarded,
            measured.jobs_discarded,
        ),
        ("mode raises", raises, measured.mode_changes),
        (
            "deadline misses",
            simulated.deadline_misses,
            measured.deadline_misses,
        ),
        ("migrations", simulated.migrations, measured.migrations),
    ];
    demo.say(format!(
        "  {:<18} {:>14} {:>14}",
        "", "simulated", "measured"
    ));
    for (what, sim, real) in rows {
        demo.say(format!("  {what:<18} {sim:>14} {real:>14}"));
    }
    let latency = &measured.release_latency_ns;
    demo.say(format!(
        "  release latency (measured): min {} us, median {} us, p99 {} us, max {} us",
        latency.min / 1000,
        latency.p50 / 1000,
        latency.p99 / 1000,
        latency.max / 1000
    ));
    for note in &measured.notes {
        demo.say(format!("  note: {note}"));
    }
    if measured.mode_changes > raises {
        demo.say(format!(
            "  the extra raises are real overruns: the tables leave no slack, so a job whose start \
             the host delayed (here by up to {} us) or whose vCPU it stalled runs out of budget, \
             and G-MCRES moves to HI as designed (the LO jobs of that hyper-period are discarded)",
            latency.max / 1000
        ));
    }
    let [released, completed, discarded, raised, missed, migrated] = rows.map(|(_, s, r)| [s, r]);
    let figures = RealRun {
        jobs_released: released,
        jobs_completed: completed,
        jobs_discarded: discarded,
        mode_raises: raised,
        deadline_misses: missed,
        migrations: migrated,
        release_latency_ns: *latency,
    };
    demo.record("run", Figures::RealRun(figures));
    Ok(())
}
