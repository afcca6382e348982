//! The tour's periodic workload (`examples/demo.toml`, embedded): checked, analysed with the
//! default tests, and simulated under every policy with a Gantt chart and a Perfetto trace each.

use super::{Demo, Figures, Ordered};
use crate::simulate::pictures::write_pictures;
use crate::simulate::{resolve_duration, run_policy};
use crate::text as report;
use crate::Failure;
use kairos_model::{check_source, Format, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{Metrics, SimConfig};
use std::path::Path;

/// The demo workload, also shipped as `examples/demo.toml`.
pub const DEMO_WORKLOAD: &str = include_str!("../../../../examples/demo.toml");

/// Stages check, analyze and simulate; the workload, for the report at the end.
pub fn run(demo: &mut Demo) -> Result<Workload, Failure> {
    demo.stage("check", "the embedded workload (examples/demo.toml)");
    let slot = kairos_model::input::LoadOptions::default().slot;
    let checked = crate::check::evaluate(Path::new("demo.toml"), DEMO_WORKLOAD, slot);
    demo.say_block(&checked.text);
    let workload = check_source(DEMO_WORKLOAD, Format::Toml)
        .workload
        .ok_or_else(|| Failure::bad_input("the embedded demo workload is invalid"))?;
    demo.record(
        "check",
        Figures::Workload {
            tasks: workload.tasks.len(),
            cores: workload.cores,
            utilization: workload.total_utilization(),
        },
    );
    analyse(demo, &workload);
    simulate(demo, &workload)?;
    Ok(workload)
}

fn analyse(demo: &mut Demo, workload: &Workload) {
    demo.stage("analyze", "the default schedulability tests");
    let tasks = kairos_analysis::tasks_of(workload);
    let selection = kairos_analysis::registry::select("default", workload.cores)
        .expect("the default list exists");
    let mut verdicts = Vec::new();
    for test in selection.run {
        let verdict = test.run(&tasks, workload.cores);
        let answer = match verdict.schedulable {
            true => "schedulable",
            false => "not shown schedulable",
        };
        demo.say(format!("  {:<22} {answer}", test.name));
        verdicts.push((test.name.clone(), verdict.schedulable));
    }
    let schedulable = Ordered(verdicts);
    demo.record("analyze", Figures::Analysis { schedulable });
}

fn simulate(demo: &mut Demo, workload: &Workload) -> Result<(), Failure> {
    let duration = resolve_duration(workload, None, demo.notify)?;
    demo.stage(
        "simulate",
        &format!(
            "{} on {} cores under every policy",
            report::human_ns(duration.as_nanos()),
            workload.cores
        ),
    );
    let config = SimConfig {
        duration,
        record_trace: true,
        ..SimConfig::default()
    };
    demo.write("workload.toml", DEMO_WORKLOAD)?;
    let mut all = Vec::new();
    for kind in PolicyKind::ALL {
        let outcome = run_policy(workload, kind, PriorityOrder::Auto, &config, demo.notify)?;
        let name = kind.cli_name();
        let written = write_pictures(
            &outcome,
            Some(&demo.out_dir().join(format!("gantt-{name}.svg"))),
            kairos_trace::gantt::GanttOptions::default(),
            Some(&demo.out_dir().join(format!("trace-{name}.json"))),
            workload,
        )?;
        demo.files.extend(written);
        all.push(outcome.metrics);
    }
    demo.say("");
    demo.say_block(&report::comparison_table(&all.iter().collect::<Vec<_>>()));
    for m in &all {
        let missed = misses(m);
        if !missed.is_empty() {
            demo.say(format!(
                "{} misses deadlines of: {}",
                m.policy,
                missed.join(", ")
            ));
        }
    }
    let figures = Figures::Policies {
        duration_ns: duration.as_nanos(),
        policies: all,
    };
    demo.record("simulate", figures);
    Ok(())
}

/// "task (count)" for every task of `m` that missed.
fn misses(m: &Metrics) -> Vec<String> {
    (m.tasks.iter())
        .filter(|t| t.deadline_misses > 0)
        .map(|t| format!("{} ({})", t.name, t.deadline_misses))
        .collect()
}
