//! The demo's imprecise-task step: semi-fixed-priority scheduling (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP) on the embedded
//! copy of `examples/imprecise.toml`: the RMWP analyses with their optional deadlines, then
//! G-RMWP, P-RMWP and their baselines G-RM, P-RM simulated side by side with the optional work
//! each lets run, and a per-task Gantt chart of G-RMWP's three parts.

use super::{Demo, Figures};
use crate::simulate::pictures::write_pictures;
use crate::simulate::{resolve_duration, run_policy};
use crate::text::human_ns;
use crate::Failure;
use kairos_model::{check_source, Format, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::SimConfig;
use kairos_trace::gantt::{GanttOptions, RowsBy};

/// The imprecise workload, also shipped as `examples/imprecise.toml`.
pub const IMPRECISE_WORKLOAD: &str = include_str!("../../../../examples/imprecise.toml");

pub fn run(demo: &mut Demo) -> Result<(), Failure> {
    demo.stage(
        "imprecise",
        "tasks with optional parts (examples/imprecise.toml): G-RMWP and P-RMWP",
    );
    let workload = check_source(IMPRECISE_WORKLOAD, Format::Toml)
        .workload
        .ok_or_else(|| Failure::bad_input("the embedded imprecise workload is invalid"))?;
    let [g_rmwp, p_rmwp_cnf] = analyse(demo, &workload);
    let config = SimConfig {
        duration: resolve_duration(&workload, None, demo.notify)?,
        record_trace: true,
        ..SimConfig::default()
    };
    demo.say(format!(
        "  {:<7} {:>7} {:>18} {:>6} {:>5} {:>7}",
        "policy", "misses", "optional executed", "QoS", "cut", "skipped"
    ));
    let mut runs = Vec::new();
    for kind in PolicyKind::RMWP_FAMILY {
        let outcome = run_policy(
            &workload,
            kind,
            PriorityOrder::RateMonotonic,
            &config,
            demo.notify,
        )?;
        let m = &outcome.metrics;
        let optional = m.optional.unwrap_or_default();
        demo.say(format!(
            "  {:<7} {:>7} {:>18} {:>6} {:>5} {:>7}",
            m.policy,
            m.deadline_misses,
            human_ns(optional.optional_executed_ns),
            m.optional_qos
                .map_or("-".into(), |q| format!("{:.1}%", 100.0 * q)),
            optional.optional_cut,
            optional.optional_skipped
        ));
        if kind == PolicyKind::GlobalRmwp {
            let view = GanttOptions {
                rows: RowsBy::Tasks,
                ..GanttOptions::default()
            };
            let gantt = demo.out_dir().join("gantt-grmwp-parts.svg");
            let written = write_pictures(&outcome, Some(&gantt), view, None, &workload)?;
            demo.files.extend(written);
        }
        runs.push(outcome.metrics);
    }
    let figures = Figures::Imprecise {
        g_rmwp,
        p_rmwp_cnf,
        policies: runs,
    };
    demo.record("imprecise", figures);
    demo.write("imprecise.toml", IMPRECISE_WORKLOAD)?;
    Ok(())
}

/// The verdicts of `g-rmwp` and `p-rmwp-cnf` and the optional deadlines of the imprecise tasks.
fn analyse(demo: &mut Demo, workload: &Workload) -> [bool; 2] {
    let tasks = kairos_analysis::tasks_of(workload);
    ["g-rmwp", "p-rmwp-cnf"].map(|name| {
        let test = kairos_analysis::registry::find(name).expect("the RMWP tests exist");
        let verdict = test.run(&tasks, workload.cores);
        let od: Vec<String> = (workload.tasks.iter())
            .zip(verdict.optional_deadlines.unwrap_or_default())
            .filter(|(t, _)| t.imprecise.is_some())
            .map(|(t, od)| format!("{}:{}", t.name, human_ns(od.as_nanos())))
            .collect();
        let answer = if verdict.schedulable {
            "schedulable"
        } else {
            "not shown schedulable"
        };
        demo.say(format!(
            "  {name:<11} {answer}; optional deadlines {}",
            od.join(" ")
        ));
        verdict.schedulable
    })
}
